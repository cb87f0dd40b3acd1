#pragma once
// The block scheduler's record of refusals: per SM, the launch whose TB it last refused, until
// room changes on it (a TB ends or leaves, its limits change). An SM refuses that launch again
// without being asked. The SMs (below 64) that refused the most recently refused launch are also
// kept as a bit mask, so Left-Over's pass over the SMs skips them rather than testing each: a
// TB that ends frees room on one SM while the others still refuse the kernel in front.
#include <cstdint>
#include <vector>

namespace mpgpu {

class Refusals {
 public:
  static constexpr uint32_t kNone = ~0u;
  explicit Refusals(uint32_t sms) : launch_(sms, kNone) {}

  bool refused(uint32_t sm, uint32_t launch) const { return launch_[sm] == launch; }
  void refuse(uint32_t sm, uint32_t launch) {
    launch_[sm] = launch;
    if (launch != mask_launch_) mask_launch_ = launch, mask_ = 0;  // entries of other launches stay in launch_
    if (sm < 64) mask_ |= uint64_t{1} << sm;
  }
  void clear(uint32_t sm) {
    launch_[sm] = kNone;
    if (sm < 64) mask_ &= ~(uint64_t{1} << sm);
  }
  // SMs (bit per SM id) known to refuse `launch`: a subset of those with refused(sm, launch).
  uint64_t refusing(uint32_t launch) const { return launch == mask_launch_ ? mask_ : 0; }

 private:
  std::vector<uint32_t> launch_;  // per SM
  uint32_t mask_launch_ = kNone;
  uint64_t mask_ = 0;  // bit sm: launch_[sm] == mask_launch_
};

}  // namespace mpgpu
