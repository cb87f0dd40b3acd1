#pragma once
// The preempting kernel's allocation status and kernel register (SPEC 4) pins and pin view: the
// C++ core behind the pins of its Verilog twin rtl/preempting_status.v. Operations: 0 read
// (position), 1 allocate(position, TB slot), 2 release(position), 3 set_kernel(pid, kernel id).
// The response is the addressed position after the operation and the preempting kernel's ids.
#include "extensions/clocked_table.hpp"
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/pin_bus.hpp"

namespace mpgpu {

#define MPGPU_PREEMPTING_IN(X) X(req_op, 2) X(req_pos, 8) X(req_slot, 8) X(req_pid, 16) X(req_kernel, 8)
#define MPGPU_PREEMPTING_OUT(X) X(resp_allocated, 1) X(resp_slot, 8) X(resp_pid, 16) X(resp_kernel, 8)
MPGPU_PIN_BUS(PreemptingStatusBus, MPGPU_PREEMPTING_IN, MPGPU_PREEMPTING_OUT)

struct PreemptingStatusPinLogic {
  enum Op : unsigned { kRead = 0, kAllocate = 1, kRelease = 2, kSetKernel = 3 };
  PreemptingAllocationStatus core;
  explicit PreemptingStatusPinLogic(const DualKernelParams& p) : core(p) {}
  void apply(PreemptingStatusBus& b);
  static void reset_outputs(PreemptingStatusBus& b) { b = PreemptingStatusBus{}; }
  static void respond(const PreemptingAllocationStatus& core, uint32_t position, PreemptingStatusBus& b);
};
using PreemptingStatusPinView = PinView<PreemptingStatusBus, PreemptingStatusPinLogic>;

}  // namespace mpgpu
