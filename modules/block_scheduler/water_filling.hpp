#pragma once
// SPEC 5, Warped-Slicer's decision: each kernel was profiled alone with 1..max TBs per SM (IPC
// per count). Water-filling: every kernel first gets one TB; then the kernel with the lowest
// predicted performance (its IPC at its count over its best IPC alone) gets one more TB, while
// one fits and its profile goes that far. Sharing is predicted to hurt when the kernels'
// predicted performances add up to 1 or less: an SM shared that way does no more than an SM
// given whole to one kernel (spatial multitasking), which is then chosen instead.
#include <vector>

#include "block_scheduler/sharing_configs.hpp"

namespace mpgpu {

struct SliceDecision {
  TbMix mix;                       // TBs per kernel on every shared SM
  std::vector<double> predicted;   // per kernel: IPC at its count / its best IPC alone
  bool spatial = false;            // sharing predicted to hurt (or one TB of each does not fit)
};

// `ipc_by_tbs[k][n - 1]`: kernel k alone with n TBs on an SM.
SliceDecision water_fill(const SmCapacity& cap, const std::vector<TbFootprint>& k,
                         const std::vector<std::vector<double>>& ipc_by_tbs);

}  // namespace mpgpu
