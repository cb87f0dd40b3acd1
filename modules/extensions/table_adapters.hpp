#pragma once
// Request/response adapters of the tables that are not linked yet (no pin bus, no Verilog twin):
// they use the generic TablePins view. Each names its operations; `index` selects an entry, `a`
// and `b` carry operands; d0/d1 are the response.
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/table_pins.hpp"

namespace mpgpu {

// 0 read(slot): d0 executed instructions, d1 issue cycle | flush << 63; 1 start(slot, a = cycle,
// b = idempotent); 2 executed(slot, a = instructions); 3 lost_idempotence(slot).
struct RunningTbStatusAdapter {
  RunningTbStatus core;
  explicit RunningTbStatusAdapter(const DualKernelParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 read(k): d0 register offset, d1 shared-memory offset; 1 configure(a = TB registers,
// b = TB shared memory): d0 positions. Sized for `registers` and `shared_mem` of the SM.
struct AllocationPositionsAdapter {
  DualKernelParams p;
  uint32_t registers, shared_mem;
  std::vector<AllocationPosition> positions;
  AllocationPositionsAdapter(const DualKernelParams& params, uint32_t regs, uint32_t shm)
      : p(params), registers(regs), shared_mem(shm) {}
  PinResponse apply(const PinRequest& r);
};

using RunningTbStatusPins = TablePins<RunningTbStatusAdapter>;
using AllocationPositionsPins = TablePins<AllocationPositionsAdapter>;

}  // namespace mpgpu
