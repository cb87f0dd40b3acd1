#include "sm/warp_scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace mpgpu {

using warp_sched_detail::kNone;

namespace {
void check_new_warp(uint32_t warp, bool present) {
  if (warp == kNone) throw std::invalid_argument("warp scheduler: invalid warp id");
  if (present) throw std::invalid_argument("warp scheduler: warp " + std::to_string(warp) + " added twice");
}
[[noreturn]] void unknown_warp(uint32_t warp) {
  throw std::invalid_argument("warp scheduler: removing unknown warp " + std::to_string(warp));
}
}  // namespace

// ---------------------------------------------------------------------------------------- GtoList

namespace warp_sched_detail {

void GtoList::add(uint32_t warp, uint64_t age) {
  auto it = std::upper_bound(by_age_.begin(), by_age_.end(), Aged{age, warp}, [](const Aged& a, const Aged& b) {
    return a.age != b.age ? a.age < b.age : a.warp < b.warp;
  });
  by_age_.insert(it, Aged{age, warp});
}

void GtoList::remove(uint32_t warp) {
  for (auto it = by_age_.begin(); it != by_age_.end(); ++it)
    if (it->warp == warp) {
      by_age_.erase(it);
      break;
    }
  if (greedy_ == warp) greedy_ = kNone;
}

uint32_t* GtoList::write_order(uint32_t* out) const {
  if (greedy_ != kNone) *out++ = greedy_;
  for (const Aged& a : by_age_)
    if (a.warp != greedy_) *out++ = a.warp;
  return out;
}

}  // namespace warp_sched_detail

// ------------------------------------------------------------------------------------------- GTO

void GtoScheduler::add_warp(uint32_t warp, uint64_t age, uint32_t /*kernel*/) {
  check_new_warp(warp, present(warp));
  if (warp >= present_.size()) present_.resize(warp + 1, 0);
  present_[warp] = 1;
  list_.add(warp, age);
  order_.resize(list_.size());  // the only (re)allocation: order() rebuilds in place
  dirty_ = true;
  relayout();
}

void GtoScheduler::relayout() {
  std::vector<uint32_t> by_age;
  list_.for_each([&](uint32_t w) { by_age.push_back(w); });
  set_layout(by_age.begin(), by_age.end());
  segments_.assign(1, Segment{list_.greedy(), 0, uint32_t(by_age.size())});
}

void GtoScheduler::remove_warp(uint32_t warp) {
  if (!present(warp)) unknown_warp(warp);
  present_[warp] = 0;
  list_.remove(warp);
  order_.resize(list_.size());
  dirty_ = true;
  relayout();
}

const std::vector<uint32_t>& GtoScheduler::order() {
  if (dirty_) {
    list_.write_order(order_.data());
    dirty_ = false;
  }
  return order_;
}

std::optional<uint32_t> GtoScheduler::greedy() const {
  if (list_.greedy() == kNone) return std::nullopt;
  return list_.greedy();
}

// ------------------------------------------------------------------------------------------- LRR

void LrrScheduler::add_warp(uint32_t warp, uint64_t /*age*/, uint32_t /*kernel*/) {
  auto it = std::lower_bound(ring_.begin(), ring_.end(), warp);
  check_new_warp(warp, it != ring_.end() && *it == warp);
  ring_.insert(it, warp);
  order_.resize(ring_.size());
  dirty_ = true;
  set_layout(ring_.begin(), ring_.end());
  resegment();
}

void LrrScheduler::resegment() {
  // last_ == kNone (nothing issued yet) is larger than any id: start at the smallest.
  const uint32_t start = uint32_t(std::upper_bound(ring_.begin(), ring_.end(), last_) - ring_.begin());
  const uint32_t n = uint32_t(ring_.size());
  segments_.clear();
  if (start < n) segments_.push_back({kNone, start, n});
  if (start > 0) segments_.push_back({kNone, 0, start});
}

void LrrScheduler::remove_warp(uint32_t warp) {
  auto it = std::lower_bound(ring_.begin(), ring_.end(), warp);
  if (it == ring_.end() || *it != warp) unknown_warp(warp);
  ring_.erase(it);
  order_.resize(ring_.size());
  dirty_ = true;
  set_layout(ring_.begin(), ring_.end());
  resegment();
}

const std::vector<uint32_t>& LrrScheduler::order() {
  if (dirty_) {
    // last_ == kNone (nothing issued yet) is larger than any id: start at the smallest.
    auto start = std::upper_bound(ring_.begin(), ring_.end(), last_);
    if (start == ring_.end()) start = ring_.begin();
    std::copy(ring_.begin(), start, std::copy(start, ring_.end(), order_.begin()));
    dirty_ = false;
  }
  return order_;
}

void LrrScheduler::issued_warp(uint32_t warp) {
  if (warp != warp_sched_detail::kNone && warp != last_) {
    last_ = warp;
    dirty_ = true;
    resegment();
  }
}

// ------------------------------------------------------------------------------------------ QAWS

QawsScheduler::QawsScheduler(std::map<uint32_t, uint32_t> budgets, bool group_by_kernel)
    : budgets_(std::move(budgets)), group_by_kernel_(group_by_kernel) {
  for (const auto& [kernel, budget] : budgets_)
    if (budget == 0)
      throw std::invalid_argument("qaws: kernel " + std::to_string(kernel) + " has budget 0 (must be >= 1)");
}

void QawsScheduler::set_budget(uint32_t kernel, uint32_t budget) {
  if (budget == budget_of(kernel)) return;
  if (budget == 0)
    throw std::invalid_argument("qaws: kernel " + std::to_string(kernel) + " has budget 0 (must be >= 1)");
  for (size_t w = 0; w < warp_kernel_.size(); ++w)
    if (present(static_cast<uint32_t>(w)) && warp_kernel_[w] == kernel)
      throw std::invalid_argument("qaws: budget of kernel " + std::to_string(kernel) +
                                  " changed while it has warps in the scheduler");
  budgets_[kernel] = budget;
}

uint32_t QawsScheduler::budget_of(uint32_t kernel) const {
  auto it = budgets_.find(kernel);
  return it == budgets_.end() ? 1 : it->second;
}

size_t QawsScheduler::group_index(uint32_t key) const {
  size_t i = 0;
  while (i < groups_.size() && groups_[i].key != key) ++i;
  return i;
}

void QawsScheduler::add_warp(uint32_t warp, uint64_t age, uint32_t kernel) {
  check_new_warp(warp, present(warp));
  const uint32_t budget = budget_of(kernel);
  const uint32_t key = group_by_kernel_ ? kernel : budget;
  size_t gi = group_index(key);
  if (gi == groups_.size()) {
    // New group: sorted among the groups not yet seen by order(), behind those already seen.
    Group g;
    g.key = key;
    g.budget = budget;
    auto pos = std::upper_bound(groups_.begin() + static_cast<std::ptrdiff_t>(settled_), groups_.end(), g, before);
    gi = static_cast<size_t>(pos - groups_.begin());
    groups_.insert(pos, std::move(g));
  }
  groups_[gi].warps.add(warp, age);
  if (warp >= warp_key_.size()) {
    warp_key_.resize(warp + 1, kNone);
    warp_kernel_.resize(warp + 1, kNone);
  }
  warp_key_[warp] = key;
  warp_kernel_[warp] = kernel;
  ++warps_;
  order_.resize(warps_);
  dirty_ = true;
  relayout();
}

void QawsScheduler::remove_warp(uint32_t warp) {
  if (!present(warp)) unknown_warp(warp);
  const size_t gi = group_index(warp_key_[warp]);
  warp_key_[warp] = kNone;
  --warps_;
  order_.resize(warps_);
  groups_[gi].warps.remove(warp);
  if (groups_[gi].warps.empty()) {
    groups_.erase(groups_.begin() + static_cast<std::ptrdiff_t>(gi));
    if (gi < settled_) --settled_;
  }
  dirty_ = true;
  relayout();
}

void QawsScheduler::relayout() {
  std::vector<uint32_t> at;
  for (const Group& g : groups_) g.warps.for_each([&](uint32_t w) { at.push_back(w); });
  set_layout(at.begin(), at.end());
  resegment();
}

void QawsScheduler::resegment() {
  segments_.clear();
  uint32_t begin = 0;
  for (const Group& g : groups_) {
    const uint32_t end = begin + uint32_t(g.warps.size());
    segments_.push_back({g.warps.greedy(), begin, end});
    begin = end;
  }
}

const std::vector<uint32_t>& QawsScheduler::order() {
  if (dirty_) {
    uint32_t* out = order_.data();
    for (const Group& g : groups_) out = g.warps.write_order(out);
    dirty_ = false;
  }
  settled_ = groups_.size();
  return order_;
}

void QawsScheduler::issued_warp(uint32_t w) {
  if (!present(w)) return;  // 1. all stalled (kNone) or the warp already exited: no counting
  const size_t gi = group_index(warp_key_[w]);
  if (groups_.size() == 1 || gi != 0 || w == groups_[0].warps.head()) {
    // 2. single group: plain GTO. 3. the head kept issuing. 4. all of g0 stalled, a warp of
    // another group issued: it becomes that group's greedy warp; g0 stays first; no counting.
    if (groups_[gi].warps.set_greedy(w)) {
      dirty_ = true;
      segments_[gi].head = w;
    }
    return;
  }
  // 5. Counted switch inside g0.
  Group& g0 = groups_[0];
  g0.warps.set_greedy(w);
  dirty_ = true;
  segments_[0].head = w;
  if (++g0.ncs >= g0.budget) {
    g0.ncs = 0;
    // N-group generalization of the paper's swap(g0, g1): rotate g0 to the back of the order.
    std::rotate(groups_.begin(), groups_.begin() + 1, groups_.end());
    settled_ = groups_.size();
    relayout();
  }
}

std::vector<QawsScheduler::GroupInfo> QawsScheduler::groups() const {
  std::vector<GroupInfo> out;
  for (const Group& g : groups_) out.push_back({g.key, g.budget, g.ncs, g.warps.size()});
  return out;
}

// --------------------------------------------------------------------------------------- factory

const std::vector<std::string>& warp_scheduler_kinds() {
  static const std::vector<std::string> kinds{"gto", "lrr", "qaws"};
  return kinds;
}

std::unique_ptr<WarpScheduler> make_warp_scheduler(const std::string& kind, std::map<uint32_t, uint32_t> budgets) {
  if (kind == "gto") return std::make_unique<GtoScheduler>();
  if (kind == "lrr") return std::make_unique<LrrScheduler>();
  if (kind == "qaws") return std::make_unique<QawsScheduler>(std::move(budgets));
  throw std::invalid_argument("unknown warp scheduler '" + kind + "' (expected gto, lrr or qaws)");
}

}  // namespace mpgpu
