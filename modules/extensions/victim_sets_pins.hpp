#pragma once
// Candidate victim sets (SPEC 4) pins and pin view: the C++ core behind the pins of its Verilog
// twin rtl/victim_sets.v. The response is the addressed row after the operation and the first
// position whose set is empty (free to allocate).
#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"
#include "extensions/victim_sets.hpp"

namespace mpgpu {

#define MPGPU_VICTIM_SETS_IN(X) X(req_op, 2) X(req_pos, 8) X(req_slot, 8)
#define MPGPU_VICTIM_SETS_OUT(X) X(resp_row, 64) X(resp_has_free, 1) X(resp_free, 8)
MPGPU_PIN_BUS(VictimSetsBus, MPGPU_VICTIM_SETS_IN, MPGPU_VICTIM_SETS_OUT)

struct VictimSetsPinLogic {
  CandidateVictimSets core;
  explicit VictimSetsPinLogic(const DualKernelParams& p) : core(p) {}
  void apply(VictimSetsBus& b);
  static void reset_outputs(VictimSetsBus& b) { b = VictimSetsBus{}; }
  static void respond(const CandidateVictimSets& core, uint32_t pos, VictimSetsBus& b);
};
using VictimSetsPinView = PinView<VictimSetsBus, VictimSetsPinLogic>;

}  // namespace mpgpu
