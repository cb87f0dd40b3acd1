#pragma once
// FCFS with Left-Over (SPEC 1, 5): kernels in arrival order; a kernel's TBs are issued to the SMs
// round-robin, one TB per SM per pass, until no SM can take another; the next kernel only gets
// what is left over once every TB of the kernels before it has been issued.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
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
  // Try to place TB `tb` of kernel `id` on SM `sm`; true if the SM took it.
  using TryDispatch = std::function<bool(uint32_t sm, uint32_t id, uint32_t tb)>;

  void arrive(uint32_t id, uint32_t grid) { queue_.push_back({id, grid}); }
  // Issue as many TBs as the SMs accept. Returns the number issued.
  uint32_t schedule(const TryDispatch& try_dispatch);
  bool idle() const { return queue_.empty(); }
  bool serves(uint32_t sm) const { return std::find(sms_.begin(), sms_.end(), sm) != sms_.end(); }
  size_t waiting_kernels() const { return queue_.size(); }

 private:
  std::vector<uint32_t> sms_;  // the SMs it issues to, round-robin
  uint32_t next_sm_ = 0;  // round-robin start, as hardware keeps it across calls
  std::deque<PendingKernel> queue_;  // kernels with TBs still to issue, in arrival order
};

}  // namespace mpgpu
