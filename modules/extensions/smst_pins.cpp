#include "extensions/smst_pins.hpp"

namespace mpgpu {

namespace {
void respond(const Smst& core, uint32_t sm, SmstBus& b) {
  if (sm < core.entries()) {
    const SmstEntry& e = core.at(sm);
    b.resp_state = static_cast<unsigned>(e.state);
    b.resp_running = e.running;
    b.resp_next = e.next;
    b.resp_tbs = e.running_tbs;
  }
  const int idle = core.find_idle();
  b.resp_has_idle = idle >= 0;
  b.resp_idle = idle >= 0 ? idle : 0;
}
}  // namespace

void SmstPinLogic::apply(SmstBus& b) {
  const uint32_t sm = static_cast<uint32_t>(b.req_sm), arg = static_cast<uint32_t>(b.req_arg);
  bool error = false;
  try {
    switch (b.req_op) {
      case kRead: core.at(sm); break;
      case kSetRunning: core.set_running(sm, arg); break;
      case kReserve: core.reserve(sm, arg); break;
      case kSetIdle: core.set_idle(sm); break;
      case kTbStarted: core.tb_started(sm); break;
      case kTbLeft: core.tb_left(sm); break;
      default: error = true;
    }
  } catch (const SimError&) {
    error = true;  // the core rejected it and kept its state
  } catch (const std::out_of_range&) {
    error = true;
  }
  b.resp_error = error;
  respond(core, sm, b);
}

SmstBus SmstPinLogic::expected(const Smst& core, unsigned op, uint32_t sm, uint32_t arg) {
  SmstBus b;
  b.req_op = op, b.req_sm = sm, b.req_arg = arg;
  b.resp_valid = 1;
  respond(core, sm, b);
  return b;
}

}  // namespace mpgpu
