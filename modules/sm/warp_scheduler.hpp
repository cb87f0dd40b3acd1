#pragma once
// Warp-scheduler functional cores of SPEC 7 (Singh, DATE 2022): GTO, LRR and QAWS.
// Plain C++ (no SystemC). One instance per scheduler (sub-core); the SM's pipeline calls, every
// cycle in which the scheduler has work, order() then issued(). Warp ids are the SM's warp-slot
// numbers (small integers; per-slot tables are indexed by them).
//
// Common contract
//   - add_warp(w, age, kernel): w joins the scheduler. age: smaller = older (launch order); equal
//     ages are broken by the smaller warp id. Adding a warp twice throws std::invalid_argument.
//   - remove_warp(w): w exited. Removing an unknown warp throws std::invalid_argument.
//   - order(): this cycle's priority list (every warp of the scheduler exactly once, highest
//     first). Its contents and iterators stay valid through issued() and until the next
//     add_warp(), remove_warp() or order() call. Cached: rebuilt in place only when
//     it changes (warps added/removed, a greedy warp changed, LRR pointer moved, group rotation),
//     so the steady state costs no allocation and no rebuild.
//   - issued(w): outcome of the cycle whose order() was used last: the warp that issued first,
//     or nullopt when every warp stalled. issued(nullopt) never changes any state. issued(w) for a
//     w no longer in the scheduler (it exited before issued() was called) changes nothing in GTO
//     and QAWS (no greedy warp set, no QAWS switch counted); LRR still resumes its search after w.
//
// GTO (greedy-then-oldest)
//   order = [greedy] ++ (all other warps by age, oldest first). The greedy warp is the warp that
//   issued last; before any issue, or after the greedy warp was removed, there is none and the
//   order is pure age order. Since the pipeline issues the first ready warp of the order, the
//   greedy warp keeps issuing until it stalls; then the oldest ready warp issues and becomes the
//   new greedy warp. issued(nullopt) keeps the greedy warp.
//
// LRR (loose round robin)
//   The ring is the warps sorted by warp id (slot order). order = the ring rotated so that it
//   starts at the first warp whose id is greater than the last issued warp's id (wrapping), i.e.
//   the search starts just after the warp that issued last. That also holds when the last issued
//   warp has since been removed. Before any issue the order starts at the smallest id.
//   issued(nullopt) keeps the pointer.
//
// QAWS (QoS-aware warp scheduling)
//   Budgets: kernel id -> budget (>= 1; a kernel missing from the map has budget 1; a budget of
//   0 throws std::invalid_argument), from the factory's map and/or set_budget(). Higher QoS ->
//   larger budget. A warp's budget is read when it is added.
//   Groups: by default ONE GROUP PER DISTINCT BUDGET (kernels with the same budget share a group
//   and are scheduled together by GTO over their warps). This is what makes "equal budgets
//   degenerate to GTO" exact; with distinct budgets (the paper's case) it is one group per
//   kernel. QawsScheduler(budgets, /*group_by_kernel=*/true) gives one group per kernel instead
//   (ties ordered by kernel id), which does NOT reduce to GTO for equal budgets.
//   Each group g has: its warps (GTO inside the group: the group's own greedy warp first, then its
//   other warps by age), g.budget and a switch counter g.ncs (starts at 0). Groups live in a
//   rotation order g0, g1, ..., gN-1; order = GTO(g0) ++ GTO(g1) ++ ... ++ GTO(gN-1).
//   Group order: groups created before the first order() call after the scheduler had no group
//   (e.g. all the warps of a simultaneous launch) are sorted by budget descending, then by key
//   (kernel id or budget) ascending. A group created later (a kernel's first warp arrives on a
//   sub-core already running other kernels, or returns after all its warps had exited) is placed
//   at the BACK of the rotation (behind groups already seen by an order() call; among groups
//   created between the same two order() calls, sorted as above). A group whose last warp exits is
//   deleted (its ncs is lost); the next group moves up.
//   issued(w), with h = the head of g0 (its greedy warp, or its oldest warp when it has none),
//   i.e. the head of the order of the cycle being reported:
//     1. w = nullopt (all stalled), or w not in the scheduler:         nothing (no counting).
//     2. only one group:                    w becomes its group's greedy warp (plain GTO).
//     3. w == h (the greedy warp kept issuing):                        nothing.
//     4. w in a group gi != g0 (every warp of g0 stalled): w becomes gi's greedy warp; g0 keeps
//        priority; nothing is counted.
//     5. w in g0, w != h (the head stalled, the pipeline switched to another g0 warp): a counted
//        switch. w becomes g0's greedy warp; g0.ncs += 1; if g0.ncs == g0.budget: g0.ncs = 0 and
//        g0 is rotated to the BACK of the group order (g1 becomes first). This rotation is the
//        N-group generalization of the paper's swap(g0, g1); with two groups it is the swap.
//   So a group keeps priority for exactly `budget` counted switches. (SPEC 7's pseudocode tests
//   `ncs < budget` before incrementing, which would give budget+1 switches; we follow its prose
//   "when g0.ncs reaches g0.budget, reset it and give g1 priority" and the expected behaviour
//   "K2 (budget 4) keeps priority for exactly 4 switches, K1 (budget 1) for 1".)
//   Non-first groups never count (their ncs stays 0). Equal budgets -> a single group -> GTO.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace mpgpu {

// Orders the warps of one scheduler (sub-core) by priority each cycle. Warp ids are the SM's warp-slot numbers.
class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  virtual void add_warp(uint32_t warp, uint64_t age, uint32_t kernel) = 0;  // age: smaller = older (launch order)
  virtual void remove_warp(uint32_t warp) = 0;                              // the warp exited
  // This cycle's priority order, highest first. The pipeline walks it and issues the first ready warp(s).
  virtual const std::vector<uint32_t>& order() = 0;
  // Outcome of the cycle: the warp that issued first, or none (all stalled). Called once per cycle in which order() was used.
  void issued(std::optional<uint32_t> warp) { issued_warp(warp.value_or(UINT32_MAX)); }
  // issued() with UINT32_MAX (warp_sched_detail::kNone) for none: the issue stage's form, without
  // a std::optional (built on the stack in two pieces and read back whole, it stalled store
  // forwarding every cycle); the final classes' own are inline.
  virtual void issued_warp(uint32_t warp) = 0;
  virtual const char* name() const = 0;
  // Number of warps currently in the scheduler.
  virtual size_t size() const = 0;
  // QAWS budget of `kernel` (>= 1) for the warps added from now on; GTO/LRR ignore it. A no-op
  // when unchanged (cheap enough to call before every add_warp). Throws std::invalid_argument for
  // 0, or for a change while the kernel has warps in the scheduler.
  virtual void set_budget(uint32_t kernel, uint32_t budget) { (void)kernel, (void)budget; }
  // Called at the start of each cycle in which the pipeline consults the scheduler (as order() was).
  virtual void begin_cycle() {}

  // The order in a form the issue stage can walk without rebuilding it: each warp has a position
  // (0 .. size()-1), and order() is the segments in turn, each its head warp (if any) and then
  // the warps at positions [begin, end) ascending, the head skipped. Positions change only when
  // layout() does (warps added or removed, QAWS groups rotated); a new greedy warp or LRR pointer
  // changes only the segments. Kept up to date by every call above.
  struct Segment {
    uint32_t head;  // kNone (UINT32_MAX) or a warp whose position is in [begin, end)
    uint32_t begin, end;
  };
  // Inline for up to two (GTO has one, LRR two): it shares the object's first line with layout().
  using Segments = boost::container::small_vector<Segment, 2>;
  const Segments& segments() const { return segments_; }
  uint32_t position(uint32_t warp) const { return pos_[warp]; }
  bool has_position(uint32_t warp) const {  // the warp is in the scheduler
    return warp < pos_.size() && pos_[warp] < at_.size() && at_[pos_[warp]] == warp;
  }
  uint32_t warp_at(uint32_t position) const { return at_[position]; }
  uint32_t positions() const { return uint32_t(at_.size()); }  // = size(), without a virtual call
  uint64_t layout() const { return layout_; }
  // Hints the host cache to load both position tables (a wake-up with hundreds of SMs).
  void prefetch_positions() const {
    for (const std::vector<uint32_t>* v : {&at_, &pos_}) {
      const char* p = reinterpret_cast<const char*>(v->data());
      for (size_t b = 0; b < v->size() * sizeof(uint32_t); b += 64) __builtin_prefetch(p + b);
    }
  }

 protected:
  // Sets the positions: warps[i] is at position i.
  template <class It> void set_layout(It first, It last) {
    at_.assign(first, last);
    for (uint32_t i = 0; i < at_.size(); ++i) {
      if (at_[i] >= pos_.size()) pos_.resize(at_[i] + 1);
      pos_[at_[i]] = i;
    }
    ++layout_;
  }

 private:
  // Read by the issue stage every cycle: declared first, to share the object's first lines.
  uint64_t layout_ = 0;

 protected:
  Segments segments_;

 private:
  std::vector<uint32_t> at_, pos_;  // warp by position, position by warp
};

// kind: "gto" | "lrr" | "qaws". budgets: kernel id -> budget (QAWS only; a kernel missing from the map has budget 1).
// Throws std::invalid_argument for an unknown kind (the message names it) or a zero budget.
std::unique_ptr<WarpScheduler> make_warp_scheduler(const std::string& kind, std::map<uint32_t, uint32_t> budgets = {});
const std::vector<std::string>& warp_scheduler_kinds();

namespace warp_sched_detail {
constexpr uint32_t kNone = UINT32_MAX;

// The warps of one GTO domain: kept sorted by (age, warp), plus the greedy warp (kNone: none).
class GtoList {
 public:
  void add(uint32_t warp, uint64_t age);
  void remove(uint32_t warp);  // the warp must be present; clears greedy if it was the greedy warp
  // Makes `warp` (present) the greedy warp; returns whether that changed anything.
  bool set_greedy(uint32_t warp) {
    if (greedy_ == warp) return false;
    greedy_ = warp;
    return true;
  }
  uint32_t greedy() const { return greedy_; }
  // First warp of this list's GTO order (kNone when empty).
  uint32_t head() const { return greedy_ != kNone ? greedy_ : by_age_.empty() ? kNone : by_age_.front().warp; }
  // Writes this list's GTO order (size() warps) at `out`; returns the end.
  uint32_t* write_order(uint32_t* out) const;
  bool empty() const { return by_age_.empty(); }
  size_t size() const { return by_age_.size(); }
  template <class F> void for_each(F&& f) const {  // by age, oldest first
    for (const Aged& a : by_age_) f(a.warp);
  }

 private:
  struct Aged {
    uint64_t age;
    uint32_t warp;
  };
  uint32_t greedy_ = kNone;  // first: the issue stage reads it every cycle
  std::vector<Aged> by_age_;
};
}  // namespace warp_sched_detail

class GtoScheduler final : public WarpScheduler {
 public:
  GtoScheduler() { segments_.assign(1, Segment{warp_sched_detail::kNone, 0, 0}); }  // one segment, even empty
  void add_warp(uint32_t warp, uint64_t age, uint32_t kernel) override;
  void remove_warp(uint32_t warp) override;
  const std::vector<uint32_t>& order() override;
  void issued_warp(uint32_t warp) override {
    // The greedy warp issuing again (the usual cycle) changes nothing: checked before the lookup.
    if (warp != list_.greedy() && has_position(warp)) {  // = present(warp), from lines the cycle read
      list_.set_greedy(warp);
      dirty_ = true;
      segments_[0].head = warp;
    }
  }
  const char* name() const override { return "gto"; }
  size_t size() const override { return list_.size(); }
  std::optional<uint32_t> greedy() const;

 private:
  bool present(uint32_t w) const { return w < present_.size() && present_[w]; }
  void relayout();
  warp_sched_detail::GtoList list_;
  std::vector<uint8_t> present_;  // by warp id
  std::vector<uint32_t> order_;
  bool dirty_ = true;
};

class LrrScheduler final : public WarpScheduler {
 public:
  void add_warp(uint32_t warp, uint64_t age, uint32_t kernel) override;
  void remove_warp(uint32_t warp) override;
  const std::vector<uint32_t>& order() override;
  void issued_warp(uint32_t warp) override;
  const char* name() const override { return "lrr"; }
  size_t size() const override { return ring_.size(); }

 private:
  void resegment();  // after the ring or the pointer changed
  std::vector<uint32_t> ring_;  // sorted by warp id
  uint32_t last_ = warp_sched_detail::kNone;  // last issued warp (may have been removed since)
  std::vector<uint32_t> order_;
  bool dirty_ = true;
};

class QawsScheduler final : public WarpScheduler {
 public:
  explicit QawsScheduler(std::map<uint32_t, uint32_t> budgets = {}, bool group_by_kernel = false);
  void add_warp(uint32_t warp, uint64_t age, uint32_t kernel) override;
  void remove_warp(uint32_t warp) override;
  const std::vector<uint32_t>& order() override;
  void issued_warp(uint32_t warp) override;
  const char* name() const override { return "qaws"; }
  size_t size() const override { return warps_; }

  void set_budget(uint32_t kernel, uint32_t budget) override;
  void begin_cycle() override { settled_ = groups_.size(); }
  uint32_t budget_of(uint32_t kernel) const;
  // Introspection (tests, traces): the groups in rotation order, g0 first.
  struct GroupInfo {
    uint32_t key;  // budget (default) or kernel id (group_by_kernel)
    uint32_t budget;
    uint32_t ncs;
    size_t warps;
  };
  std::vector<GroupInfo> groups() const;

 private:
  struct Group {
    uint32_t key;
    uint32_t budget;
    uint32_t ncs = 0;
    warp_sched_detail::GtoList warps;
  };
  static bool before(const Group& a, const Group& b) {  // initial group order
    return a.budget != b.budget ? a.budget > b.budget : a.key < b.key;
  }
  size_t group_index(uint32_t key) const;  // groups_.size() when absent
  bool present(uint32_t w) const { return w < warp_key_.size() && warp_key_[w] != warp_sched_detail::kNone; }

  std::map<uint32_t, uint32_t> budgets_;
  bool group_by_kernel_;
  void relayout();    // positions: the groups in rotation order, each by age
  void resegment();   // heads: each group's greedy warp
  std::vector<Group> groups_;       // rotation order, g0 first; never holds an empty group
  size_t settled_ = 0;              // groups_[0, settled_) existed at the last order() call
  std::vector<uint32_t> warp_key_;  // by warp id: its group's key, kNone when absent
  std::vector<uint32_t> warp_kernel_;  // by warp id: its kernel (valid while present)
  size_t warps_ = 0;
  std::vector<uint32_t> order_;
  bool dirty_ = true;
};

}  // namespace mpgpu
