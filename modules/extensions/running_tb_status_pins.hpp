#pragma once
// Running-TB status (SPEC 4) pins and pin view: the C++ core behind the pins of its Verilog twin
// rtl/running_tb_status.v. Operations: 0 read(slot), 1 start(slot, value = issue cycle,
// idempotent), 2 executed(slot, value = instructions added), 3 lost_idempotence(slot). The
// response is the slot's entry after the operation.
#include "extensions/clocked_table.hpp"
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/pin_bus.hpp"

namespace mpgpu {

#define MPGPU_TB_STATUS_IN(X) X(req_op, 2) X(req_slot, 8) X(req_value, 64) X(req_idempotent, 1)
#define MPGPU_TB_STATUS_OUT(X) X(resp_executed, 64) X(resp_cycle, 64) X(resp_flush, 1)
MPGPU_PIN_BUS(RunningTbStatusBus, MPGPU_TB_STATUS_IN, MPGPU_TB_STATUS_OUT)

struct RunningTbStatusPinLogic {
  enum Op : unsigned {
    kRead = RunningTbStatus::kRead,
    kStart = RunningTbStatus::kStart,
    kExecuted = RunningTbStatus::kExecuted,
    kLostIdempotence = RunningTbStatus::kLostIdempotence
  };
  RunningTbStatus core;
  explicit RunningTbStatusPinLogic(const DualKernelParams& p) : core(p) {}
  void apply(RunningTbStatusBus& b);
  static void reset_outputs(RunningTbStatusBus& b) { b = RunningTbStatusBus{}; }
  // The request of update (or read) `op` of `slot` and the response a correct table gives.
  static RunningTbStatusBus request(unsigned op, uint32_t slot, uint64_t value, bool idempotent);
  static void respond(const RunningTbStatus& core, uint32_t slot, RunningTbStatusBus& b);
};
using RunningTbStatusPinView = PinView<RunningTbStatusBus, RunningTbStatusPinLogic>;

}  // namespace mpgpu
