#include "extensions/running_tb_status_pins.hpp"

#include "common/error.hpp"

namespace mpgpu {

void RunningTbStatusPinLogic::apply(RunningTbStatusBus& b) {
  const uint32_t slot = static_cast<uint32_t>(b.req_slot);
  bool error = slot >= core.slots();
  if (!error) {
    try {
      switch (b.req_op) {
        case kRead: break;
        case kStart: core.start(slot, b.req_value, b.req_idempotent != 0); break;
        case kExecuted: core.executed(slot, b.req_value); break;
        default: core.lost_idempotence(slot);
      }
    } catch (const SimError&) {
      error = true;  // a cycle or a count wider than its field: rejected, nothing changes
    }
  }
  b.resp_error = error;
  if (!error) respond(core, slot, b);
}

RunningTbStatusBus RunningTbStatusPinLogic::request(unsigned op, uint32_t slot, uint64_t value, bool idempotent) {
  RunningTbStatusBus b;
  b.req_op = op;
  b.req_slot = slot;
  b.req_value = value;
  b.req_idempotent = idempotent;
  return b;
}

void RunningTbStatusPinLogic::respond(const RunningTbStatus& core, uint32_t slot, RunningTbStatusBus& b) {
  const RunningTbStatusEntry& e = core.at(slot);
  b.resp_executed = e.executed_instructions;
  b.resp_cycle = e.issue_cycle;
  b.resp_flush = e.flush;
}

}  // namespace mpgpu
