#pragma once
// FCFS with Left-Over (SPEC 1, 5): kernels in arrival order; a kernel's TBs are issued to the SMs
// round-robin, one TB per SM per pass, until no SM can take another; the next kernel only gets
// what is left over once every TB of the kernels before it has been issued.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace mpgpu {

struct PendingKernel {
  uint32_t id;       // launch id
  uint32_t grid;     // TBs in all
  uint32_t next_tb = 0;
};

class LeftOverFcfs {
 public:
  explicit LeftOverFcfs(uint32_t num_sms) : sms_(num_sms), identity_(true) {
    for (uint32_t i = 0; i < num_sms; ++i) sms_[i] = i;
  }
  // Over a subset of the SMs (a compute partition), in the given order.
  explicit LeftOverFcfs(std::vector<uint32_t> sms) : sms_(std::move(sms)) {
    identity_ = true;
    for (size_t i = 0; i < sms_.size(); ++i) identity_ &= sms_[i] == i;
  }

  void arrive(uint32_t id, uint32_t grid) { queue_.push_back({id, grid}); }
  // Intra-SM sharing (SPEC 5): the first `n` kernels are issued side by side, none waiting for
  // another to issue all its TBs (the SMs' TB-mix registers divide the room); 1: Left-Over.
  void set_side_by_side(uint32_t n) { side_by_side_ = std::max<uint32_t>(1, n); }
  // Launch ids of the kernels issued side by side now (the first `side_by_side` with TBs left).
  std::vector<uint32_t> front() const {
    std::vector<uint32_t> ids;
    for (size_t i = 0; i < queue_.size() && i < side_by_side_; ++i) ids.push_back(queue_[i].id);
    return ids;
  }
  // Issue as many TBs as the SMs accept; try_dispatch(sm, id, tb) places TB `tb` of kernel `id`
  // on SM `sm` and says whether the SM took it. Returns the number issued. (A template: the
  // block scheduler calls it after every TB that ends, two passes over the SMs each time.)
  // An SM that refuses a kernel's TB must refuse its later TBs for the rest of the call (room
  // only fills up during a call): a pass after the first asks only the SMs that took a TB in
  // the pass before, in the same round-robin order, as asking all would issue the same TBs.
  template <typename TryDispatch>
  uint32_t schedule(TryDispatch&& try_dispatch) {
    return schedule(std::forward<TryDispatch>(try_dispatch), true, none_known);
  }
  // The same, told by refusing(id) the SMs (bit per SM id) known to refuse launch `id`: a
  // kernel's first pass does not ask them (with many SMs full, most of a pass).
  template <typename TryDispatch, typename Refusing>
  uint32_t schedule(TryDispatch&& try_dispatch, Refusing&& refusing) {
    return schedule(std::forward<TryDispatch>(try_dispatch), true, refusing);
  }
  // schedule() when every SM refuses (nothing changed since the last call): only the round-robin
  // start moves, one step per pass, without asking the SMs.
  void idle_round() {
    schedule([](uint32_t, uint32_t, uint32_t) { return false; }, /*ask_sms=*/false, none_known);
  }
  bool idle() const { return queue_.empty(); }
  bool serves(uint32_t sm) const { return std::find(sms_.begin(), sms_.end(), sm) != sms_.end(); }
  size_t waiting_kernels() const { return queue_.size(); }

 private:
  template <typename TryDispatch, typename Refusing>
  uint32_t schedule(TryDispatch&& try_dispatch, bool ask_sms, Refusing&& refusing);
  static uint64_t none_known(uint32_t) { return 0; }
  // The positions (bits into sms_) of the SMs in `sm_mask` (bit per SM id).
  uint64_t positions_of(uint64_t sm_mask) const {
    if (identity_) return sm_mask;
    uint64_t m = 0;
    for (size_t pos = 0; pos < sms_.size() && pos < 64; ++pos)
      if (sms_[pos] < 64 && (sm_mask >> sms_[pos] & 1)) m |= uint64_t{1} << pos;
    return m;
  }
  std::vector<uint32_t> sms_;  // the SMs it issues to, round-robin
  bool identity_ = false;  // sms_[i] == i: positions are SM ids
  uint32_t next_sm_ = 0;  // round-robin start, as hardware keeps it across calls
  uint32_t side_by_side_ = 1;
  std::deque<PendingKernel> queue_;  // kernels with TBs still to issue, in arrival order
};

template <typename TryDispatch, typename Refusing>
uint32_t LeftOverFcfs::schedule(TryDispatch&& try_dispatch, bool ask_sms, Refusing&& refusing) {
  uint32_t issued = 0;
  const uint32_t num_sms = static_cast<uint32_t>(sms_.size());
  if (num_sms == 0) return 0;
  for (size_t at = 0; at < queue_.size();) {
    PendingKernel& k = queue_[at];
    bool progress = true;
    // Positions (indices into sms_) that took a TB of this kernel in the last pass; all at first.
    // Those known to refuse it are left out: asking them issues nothing.
    uint64_t took = num_sms < 64 ? (uint64_t{1} << num_sms) - 1 : ~uint64_t{0};
    if (const uint64_t known = refusing(k.id)) took &= ~positions_of(known);
    // Asks the SM at position `pos` for the kernel's next TB.
    auto ask = [&](uint32_t pos) {
      if (!try_dispatch(sms_[pos], k.id, k.next_tb)) return false;
      ++k.next_tb;
      ++issued;
      progress = true;
      return true;
    };
    while (k.next_tb < k.grid && progress) {
      progress = false;
      if (num_sms <= 64) {
        // From next_sm_ round-robin: the positions at or after it, then those before it.
        const uint64_t from = took & (~uint64_t{0} << next_sm_), wrapped = took & ~(~uint64_t{0} << next_sm_);
        took = 0;
        for (uint64_t m : {from, wrapped})
          for (; ask_sms && m && k.next_tb < k.grid; m &= m - 1) {
            const uint32_t pos = uint32_t(__builtin_ctzll(m));
            if (ask(pos)) took |= uint64_t{1} << pos;
          }
      } else {  // more SMs than mask bits: every pass asks them all
        for (uint32_t i = 0, pos = next_sm_; ask_sms && i < num_sms && k.next_tb < k.grid; ++i) {
          ask(pos);
          pos = pos + 1 == num_sms ? 0 : pos + 1;
        }
      }
      next_sm_ = (next_sm_ + 1) % num_sms;
    }
    if (k.next_tb == k.grid) {
      queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(at));
      continue;
    }
    if (++at >= side_by_side_) break;  // Left-Over: later kernels wait for this one's TBs
  }
  return issued;
}

}  // namespace mpgpu
