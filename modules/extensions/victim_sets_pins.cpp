#include "extensions/victim_sets_pins.hpp"

namespace mpgpu {

void VictimSetsPinLogic::apply(VictimSetsBus& b) {
  const uint32_t pos = static_cast<uint32_t>(b.req_pos), slot = static_cast<uint32_t>(b.req_slot);
  bool error = false;
  try {
    switch (b.req_op) {
      case CandidateVictimSets::kRead: error = pos >= core.positions(); break;
      case CandidateVictimSets::kSet: core.set(pos, slot); break;
      case CandidateVictimSets::kClearTb: core.clear_tb(slot); break;
      case CandidateVictimSets::kClearRow: core.clear_row(pos); break;
    }
  } catch (const SimError&) {
    error = true;  // rejected; the sets are unchanged
  }
  b.resp_error = error;
  respond(core, pos, b);
}

void VictimSetsPinLogic::respond(const CandidateVictimSets& core, uint32_t pos, VictimSetsBus& b) {
  if (pos < core.positions()) b.resp_row = core.candidate(pos).to_ulong();
  const int f = core.free_position();
  b.resp_has_free = f >= 0;
  b.resp_free = f >= 0 ? f : 0;
}

}  // namespace mpgpu
