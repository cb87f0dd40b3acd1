#include "block_scheduler/left_over.hpp"

namespace mpgpu {

uint32_t LeftOverFcfs::schedule(const TryDispatch& try_dispatch) {
  uint32_t issued = 0;
  const uint32_t num_sms = static_cast<uint32_t>(sms_.size());
  if (num_sms == 0) return 0;
  while (!queue_.empty()) {
    PendingKernel& k = queue_.front();
    bool progress = true;
    while (k.next_tb < k.grid && progress) {
      progress = false;
      for (uint32_t i = 0; i < num_sms && k.next_tb < k.grid; ++i) {
        const uint32_t sm = sms_[(next_sm_ + i) % num_sms];
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
