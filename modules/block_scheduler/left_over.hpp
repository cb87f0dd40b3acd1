#pragma once
// FCFS with Left-Over (SPEC 1, 5): kernels in arrival order; a kernel's TBs are issued to the SMs
// round-robin, one TB per SM per pass, until no SM can take another; the next kernel only gets
// what is left over once every TB of the kernels before it has been issued.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace mpgpu {

struct PendingKernel {
  uint32_t id;       // launch id
  uint32_t grid;     // TBs in all
  uint32_t next_tb = 0;
};

class LeftOverFcfs {
 public:
  explicit LeftOverFcfs(uint32_t num_sms) : sms_(num_sms) {
    for (uint32_t i = 0; i < num_sms; ++i) sms_[i] = i;
  }
  // Over a subset of the SMs (a compute partition), in the given order.
  explicit LeftOverFcfs(std::vector<uint32_t> sms) : sms_(std::move(sms)) {}

  void arrive(uint32_t id, uint32_t grid) { queue_.push_back({id, grid}); }
  // Issue as many TBs as the SMs accept; try_dispatch(sm, id, tb) places TB `tb` of kernel `id`
  // on SM `sm` and says whether the SM took it. Returns the number issued. (A template: the
  // block scheduler calls it after every TB that ends, two passes over the SMs each time.)
  template <typename TryDispatch>
  uint32_t schedule(TryDispatch&& try_dispatch);
  bool idle() const { return queue_.empty(); }
  bool serves(uint32_t sm) const { return std::find(sms_.begin(), sms_.end(), sm) != sms_.end(); }
  size_t waiting_kernels() const { return queue_.size(); }

 private:
  std::vector<uint32_t> sms_;  // the SMs it issues to, round-robin
  uint32_t next_sm_ = 0;  // round-robin start, as hardware keeps it across calls
  std::deque<PendingKernel> queue_;  // kernels with TBs still to issue, in arrival order
};

template <typename TryDispatch>
uint32_t LeftOverFcfs::schedule(TryDispatch&& try_dispatch) {
  uint32_t issued = 0;
  const uint32_t num_sms = static_cast<uint32_t>(sms_.size());
  if (num_sms == 0) return 0;
  while (!queue_.empty()) {
    PendingKernel& k = queue_.front();
    bool progress = true;
    while (k.next_tb < k.grid && progress) {
      progress = false;
      for (uint32_t i = 0, sm_at = next_sm_; i < num_sms && k.next_tb < k.grid; ++i) {
        const uint32_t sm = sms_[sm_at];
        sm_at = sm_at + 1 == num_sms ? 0 : sm_at + 1;
        if (try_dispatch(sm, k.id, k.next_tb)) {
          ++k.next_tb;
          ++issued;
          progress = true;
        }
      }
      next_sm_ = (next_sm_ + 1) % num_sms;
    }
    if (k.next_tb < k.grid) break;  // Left-Over: later kernels wait for this one's TBs
    queue_.pop_front();
  }
  return issued;
}

}  // namespace mpgpu
