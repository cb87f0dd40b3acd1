#include "sm/pipeline.hpp"

namespace mpgpu {

uint64_t SmPipeline::private_until(uint64_t enough) const {
  if (live_warps_ == 0) return kNever;
  // Not looked through: an instruction fetch may miss, a replay or an instruction in a fault's
  // hazard window takes other paths, and linked tables answer over their links.
  if (icache_on_ || faulted_warps_ != 0 || cycle_ < watch_open_until_ || links_.replay_queue || links_.operand_log)
    return 0;
  // A warp issues at most two instructions a cycle (try_issue: its head, then the next if independent).
  const uint64_t per_cycle = p_.pipeline.issue_width >= 2 ? 2 : 1;
  uint64_t bound = kNever;
  for (const Warp& w : warps_) {
    if (!w.live) continue;
    const LoopSpans* spans = tbs_[w.tb_slot].spans;
    if (!spans) return 0;  // a trace warp
    // Its head issues at `ready` at the earliest (operands and fetch), the instructions after it
    // at most per_cycle a cycle.
    const uint64_t before = spans->before_external(w.code.pc(), w.code.iterations());
    bound = std::min(bound, std::max(cycle_, w.ready) + before / per_cycle);
    if (bound < enough) return bound;
  }
  return bound;
}

}  // namespace mpgpu
