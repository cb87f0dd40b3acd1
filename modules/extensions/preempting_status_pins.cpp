#include "extensions/preempting_status_pins.hpp"

namespace mpgpu {

void PreemptingStatusPinLogic::apply(PreemptingStatusBus& b) {
  const uint32_t pos = static_cast<uint32_t>(b.req_pos);
  bool error = false;
  try {
    switch (b.req_op) {
      case kRead: error = pos >= core.positions(); break;
      case kAllocate: core.allocate(pos, static_cast<uint32_t>(b.req_slot)); break;
      case kRelease: core.release(pos); break;
      case kSetKernel: core.set_kernel(static_cast<uint32_t>(b.req_pid), static_cast<uint32_t>(b.req_kernel)); break;
    }
  } catch (const SimError&) {
    error = true;  // allocated already, or an id wider than its field: rejected, nothing changes
  } catch (const std::out_of_range&) {
    error = true;
  }
  b.resp_error = error;
  respond(core, pos, b);
}

void PreemptingStatusPinLogic::respond(const PreemptingAllocationStatus& core, uint32_t pos, PreemptingStatusBus& b) {
  if (pos < core.positions()) {
    b.resp_allocated = core.allocated(pos);
    b.resp_slot = core.allocated(pos) ? core.tb_slot(pos) : 0;
  }
  b.resp_pid = core.pid();
  b.resp_kernel = core.kernel_id();
}

}  // namespace mpgpu
