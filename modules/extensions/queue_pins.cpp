#include "extensions/queue_pins.hpp"

namespace mpgpu {

void CommandBuffersPinLogic::apply(CommandBuffersBus& b) {
  const uint32_t ctx = static_cast<uint32_t>(b.req_ctx);
  bool error = ctx >= core.contexts();
  uint32_t taken = 0;
  if (!error) {
    try {
      switch (b.req_op) {
        case kRead: break;
        case kPut: core.put(ctx, static_cast<uint32_t>(b.req_launch)); break;
        case kTake: taken = core.take(ctx); break;
        default: error = true;
      }
    } catch (const SimError&) {
      error = true;  // put on a full buffer, take from an empty one: rejected, nothing changes
    }
  }
  b.resp_error = error;
  if (!error) respond(core, static_cast<unsigned>(b.req_op), ctx, taken, b);
}

void CommandBuffersPinLogic::respond(const CommandBuffers& core, unsigned op, uint32_t ctx, uint32_t launch,
                                     CommandBuffersBus& b) {
  b.resp_occupied = core.occupied(ctx);
  b.resp_launch = op == kTake ? launch : core.occupied(ctx) ? core.peek(ctx) : 0;
}

void ActiveQueuePinLogic::apply(ActiveQueueBus& b) {
  bool error = false;
  uint64_t k = b.req_k;
  try {
    switch (b.req_op) {
      case kRead:
        if (b.req_pos >= core.order().size()) error = true;
        else k = core.order()[b.req_pos];
        break;
      case kPush: core.push(static_cast<uint32_t>(b.req_k)); break;
      case kRemove: core.remove(static_cast<uint32_t>(b.req_k)); break;
      default: error = true;
    }
  } catch (const SimError&) {
    error = true;  // full, an index wider than its field, or not in the queue: rejected
  }
  b.resp_error = error;
  if (error) return;
  b.resp_size = core.order().size();
  b.resp_k = k;
}

}  // namespace mpgpu
