#pragma once
// Allocation positions (SPEC 4) pins and pin view: the predetermined positions of a preempting
// kernel's TBs in an SM's register file and shared memory, behind the pins of the Verilog twin
// rtl/allocation_positions.v. Operations: 0 read(position): its register and shared-memory
// offsets; 1 configure(SM registers, SM shared memory, TB registers, TB shared memory): the
// positions for TBs of that size, as many as fit (at most K). The response carries the count.
#include <vector>

#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"
#include "extensions/dual_kernel_tables.hpp"

namespace mpgpu {

#define MPGPU_POSITIONS_IN(X) X(req_op, 2) X(req_pos, 8) X(req_regs, 32) X(req_shm, 32) X(req_tb_regs, 32) X(req_tb_shm, 32)
#define MPGPU_POSITIONS_OUT(X) X(resp_count, 8) X(resp_reg_offset, 32) X(resp_shm_offset, 32)
MPGPU_PIN_BUS(AllocationPositionsBus, MPGPU_POSITIONS_IN, MPGPU_POSITIONS_OUT)

struct AllocationPositionsPinLogic {
  enum Op : unsigned { kRead = 0, kConfigure = 1 };
  DualKernelParams p;
  std::vector<AllocationPosition> positions;
  explicit AllocationPositionsPinLogic(const DualKernelParams& params) : p(params) {}
  void apply(AllocationPositionsBus& b);
  static void reset_outputs(AllocationPositionsBus& b) { b = AllocationPositionsBus{}; }
  // The response a correct table gives holding `positions` to an access of `pos` (configure: 0).
  static void respond(const std::vector<AllocationPosition>& positions, uint32_t pos, AllocationPositionsBus& b);
};
using AllocationPositionsPinView = PinView<AllocationPositionsBus, AllocationPositionsPinLogic>;

}  // namespace mpgpu
