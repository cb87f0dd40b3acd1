// Scheduling policies of SPEC 2 over the framework tables: NPQ, PPQ (exclusive and shared), DSS.
// Priority: a larger number is more important. Ties go to the oldest kernel (active-queue order).
#include <algorithm>
#include <limits>

#include "block_scheduler/sm_driver.hpp"

namespace mpgpu {

namespace {

// Highest priority first, then oldest; only kernels passing `ok`.
template <typename Pred>
int best_kernel(const SmDriver& d, Pred ok) {
  int best = -1;
  for (uint32_t k : d.active().order())
    if (ok(k) && (best < 0 || d.kernel(k).priority > d.kernel(best).priority)) best = static_cast<int>(k);
  return best;
}

// Non-preemptive priority queues: idle SMs go to the most important kernel that can use them.
class Npq : public Policy {
 public:
  std::string name() const override { return "npq"; }
  void decide(SmDriver& d) override {
    for (int sm; (sm = d.smst().find_idle()) >= 0;) {
      const int k = best_kernel(d, [&](uint32_t k) { return d.wants_sm(k); });
      if (k < 0) return;
      d.assign(sm, k);
    }
  }
};

// Preemptive priority queues. Exclusive: while a kernel of the top priority present is active,
// no lower-priority kernel gets an SM or a new TB. Shared: free SMs still go to lower priorities.
class Ppq : public Policy {
 public:
  explicit Ppq(bool exclusive, std::string name = "") : exclusive_(exclusive), name_(std::move(name)) {}
  std::string name() const override { return !name_.empty() ? name_ : exclusive_ ? "ppq_exclusive" : "ppq_shared"; }

  bool may_issue(const SmDriver& d, uint32_t k) const override {
    return !exclusive_ || d.kernel(k).priority >= top_priority(d);
  }

  void decide(SmDriver& d) override {
    const uint32_t top = top_priority(d);
    for (int sm; (sm = d.smst().find_idle()) >= 0;) {
      const int k = best_kernel(d, [&](uint32_t k) { return d.wants_sm(k) && may_issue(d, k); });
      if (k < 0) break;
      d.assign(sm, k);
    }
    // Preempt SMs of less important kernels for every kernel that still wants SMs, most
    // important first.
    for (;;) {
      // A victim runs a kernel below the preempting one's priority, which is at most `top`: with
      // no SM running below `top` no kernel has one, and asking each whether it wants SMs (most
      // of a decision, once per finished TB) would end the same way.
      if (!runs_below(d, top)) return;
      const int k = best_kernel(d, [&](uint32_t k) { return d.wants_sm(k); });
      if (k < 0 || (exclusive_ && d.kernel(k).priority < top)) return;
      const int victim = pick_victim(d, d.kernel(k).priority);
      if (victim < 0) return;
      d.reserve(victim, k);
    }
  }

 private:
  // Some SM runs a kernel below `priority`: from the SMST's set of running kernels (a few),
  // not its entries (every SM).
  static bool runs_below(const SmDriver& d, uint32_t priority) {
    const boost::dynamic_bitset<>& running = d.smst().running_kernels();
    for (size_t k = running.find_first(); k != boost::dynamic_bitset<>::npos; k = running.find_next(k))
      if (d.kernel(uint32_t(k)).priority < priority) return true;
    return false;
  }
  // The least important running kernel's SM (youngest kernel, then highest SM index). Under
  // Chimera, among that kernel's SMs the cheapest to preempt (meeting the latency constraint
  // with the least overhead, else the least latency).
  static int pick_victim(const SmDriver& d, uint32_t below) {
    int best = -1;
    uint32_t best_prio = 0;
    size_t best_age = 0;
    std::pair<bool, double> best_cost{true, 0.0};
    const bool costed = d.mechanism() == Mechanism::chimera;
    const auto& order = d.active().order();
    for (uint32_t sm = 0; sm < d.num_sms(); ++sm) {
      const SmstEntry& s = d.smst().at(sm);
      if (s.state != SmState::running) continue;
      const uint32_t prio = d.kernel(s.running).priority;
      if (prio >= below) continue;
      const size_t age = std::find(order.begin(), order.end(), s.running) - order.begin();
      const bool ranks_above = best < 0 || prio < best_prio || (prio == best_prio && age > best_age);
      const bool ties = best >= 0 && prio == best_prio && age == best_age;
      std::pair<bool, double> cost{true, 0.0};
      if (costed && (ranks_above || ties)) cost = d.preemption_cost(sm);
      const bool cheaper = !costed || (cost.first != best_cost.first ? cost.first : cost.second <= best_cost.second);
      if (ranks_above || (ties && cheaper)) {
        best = static_cast<int>(sm);
        best_prio = prio;
        best_age = age;
        best_cost = cost;
      }
    }
    return best;
  }
  // The highest priority among the active kernels; may_issue asks it for every TB issued, and
  // it changes only with the active queue.
  uint32_t top_priority(const SmDriver& d) const {
    if (top_at_ == d.active().changes()) return top_;
    uint32_t top = 0;
    for (uint32_t k : d.active().order()) top = std::max(top, d.kernel(k).priority);
    top_at_ = d.active().changes(), top_ = top;
    return top;
  }
  mutable uint64_t top_at_ = ~uint64_t{0};  // the active queue's changes() when top_ was read
  mutable uint32_t top_ = 0;
  bool exclusive_;
  std::string name_;
};

// Dynamic Spatial Sharing (SPEC 2): each kernel's token count is its SM budget minus the SMs it
// owns; the kernel with the most tokens takes idle SMs, and takes SMs from the kernel with the
// fewest while the two differ by more than one.
// Spatial multitasking (SPEC 5's baseline) is the same partitioning under its own name: disjoint
// SM sets per kernel, an even split (or the processes' shares) re-made when a kernel arrives or
// leaves; the workload's preemption mechanism moves SMs (rtx2060 and gtx1080 offer draining:
// a moved SM takes no new TBs and changes hands when its last one ends).
class Dss : public Policy {
 public:
  Dss(std::vector<int32_t> process_budgets, std::string name)
      : process_budgets_(std::move(process_budgets)), name_(std::move(name)) {}
  std::string name() const override { return name_; }

  void admitted(SmDriver& d, uint32_t) override { rebudget(d); }
  void retired(SmDriver& d, uint32_t k) override {
    rebudget(d, k);
  }

  void decide(SmDriver& d) override {
    sync(d);
    // Each iteration takes an idle SM or moves one SM from kmin to kmax; moves narrow the token
    // gap by two, so the loop ends after at most N_SM + (sum of positive gaps) / 2 iterations.
    for (uint32_t iter = 0; iter <= 4 * d.num_sms(); ++iter) {
      int kmax = -1;
      for (uint32_t k : d.active().order())
        if (d.wants_sm(k) && (kmax < 0 || tokens(d, k) > tokens(d, kmax))) kmax = static_cast<int>(k);
      if (kmax < 0) return;
      const int idle = d.smst().find_idle();
      if (idle >= 0) {
        d.assign(idle, kmax);
        sync(d);
        continue;
      }
      int kmin = -1;
      const auto& order = d.active().order();
      for (auto it = order.rbegin(); it != order.rend(); ++it)  // youngest wins ties
        if (running_sm(d, *it) >= 0 && (kmin < 0 || tokens(d, *it) < tokens(d, kmin))) kmin = static_cast<int>(*it);
      if (kmin < 0 || kmin == kmax || tokens(d, kmax) <= tokens(d, kmin) + 1) return;
      d.reserve(running_sm(d, kmin), kmax);
      sync(d);
    }
  }

 private:
  static int32_t tokens(const SmDriver& d, uint32_t k) { return d.ksrt().at(k).tokens; }
  // The highest-indexed SM running k (not already reserved), or -1.
  static int running_sm(const SmDriver& d, uint32_t k) {
    for (int sm = static_cast<int>(d.num_sms()) - 1; sm >= 0; --sm)
      if (d.smst().at(sm).state == SmState::running && d.smst().at(sm).running == k) return sm;
    return -1;
  }
  // Equal sharing: floor(N_SM / n) each, the remainder to the first arrivals; or the budgets the
  // workload gives per process.
  void rebudget(SmDriver& d, int leaving = -1) {
    budget_.resize(d.num_sms(), 0);
    std::vector<uint32_t> ks;
    for (uint32_t k : d.active().order())
      if (static_cast<int>(k) != leaving) ks.push_back(k);
    const uint32_t n = static_cast<uint32_t>(ks.size());
    for (uint32_t i = 0; i < n; ++i) {
      const DriverKernel& dk = d.kernel(ks[i]);
      if (dk.process < process_budgets_.size() && process_budgets_[dk.process] >= 0)
        budget_[ks[i]] = process_budgets_[dk.process];
      else
        budget_[ks[i]] = static_cast<int32_t>(d.num_sms() / n + (i < d.num_sms() % n ? 1 : 0));
    }
    sync(d, leaving);
  }
  void sync(SmDriver& d, int leaving = -1) {
    for (uint32_t k : d.active().order())
      if (static_cast<int>(k) != leaving) d.set_tokens(k, budget_[k] - static_cast<int32_t>(d.owned_sms(k)));
  }
  std::vector<int32_t> process_budgets_;
  std::vector<int32_t> budget_;  // by KSRT index
  std::string name_;
};

}  // namespace

std::unique_ptr<Policy> make_policy(const std::string& name, const std::vector<int32_t>& dss_budgets) {
  if (name == "npq") return std::make_unique<Npq>();
  if (name == "ppq_exclusive") return std::make_unique<Ppq>(true);
  if (name == "chimera" || name == "dual_kernel") return std::make_unique<Ppq>(true, name);
  if (name == "ppq_shared") return std::make_unique<Ppq>(false);
  if (name == "dss" || name == "spatial") return std::make_unique<Dss>(dss_budgets, name);
  throw SimError("no SM-driver policy '" + name + "'");
}

}  // namespace mpgpu
