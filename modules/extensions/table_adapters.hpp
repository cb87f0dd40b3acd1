#pragma once
// Request/response adapter of the table that is not linked (no pin bus, no Verilog twin): it uses
// the generic TablePins view. It names its operations; `index` selects an entry, `a`
// and `b` carry operands; d0/d1 are the response.
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/table_pins.hpp"

namespace mpgpu {

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

using AllocationPositionsPins = TablePins<AllocationPositionsAdapter>;

}  // namespace mpgpu
