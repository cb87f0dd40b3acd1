#pragma once
// Command buffers and active queue (SPEC 2) pins and pin views: the C++ cores behind the pins of
// their Verilog twins rtl/command_buffers.v and rtl/active_queue.v.
#include "extensions/active_queue.hpp"
#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"

namespace mpgpu {

// Command buffers: 0 read(ctx), 1 put(ctx, launch), 2 take(ctx). The response is the context's
// buffer after the operation (take: the launch taken, and the buffer empty).
#define MPGPU_CMD_BUF_IN(X) X(req_op, 2) X(req_ctx, 8) X(req_launch, 32)
#define MPGPU_CMD_BUF_OUT(X) X(resp_occupied, 1) X(resp_launch, 32)
MPGPU_PIN_BUS(CommandBuffersBus, MPGPU_CMD_BUF_IN, MPGPU_CMD_BUF_OUT)

struct CommandBuffersPinLogic {
  enum Op : unsigned { kRead = 0, kPut = 1, kTake = 2 };
  CommandBuffers core;
  explicit CommandBuffersPinLogic(const ExtensionParams& p) : core(p) {}
  void apply(CommandBuffersBus& b);
  static void reset_outputs(CommandBuffersBus& b) { b = CommandBuffersBus{}; }
  // The response to update `op` of context `ctx` the core just made (take: of `launch`).
  static void respond(const CommandBuffers& core, unsigned op, uint32_t ctx, uint32_t launch, CommandBuffersBus& b);
};
using CommandBuffersPinView = PinView<CommandBuffersBus, CommandBuffersPinLogic>;

// Active queue: 0 read(pos): the pos-th oldest KSRT index; 1 push(k); 2 remove(k). The response
// is the queue's size after the operation and the index read, pushed or removed.
#define MPGPU_ACTIVE_QUEUE_IN(X) X(req_op, 2) X(req_pos, 8) X(req_k, 8)
#define MPGPU_ACTIVE_QUEUE_OUT(X) X(resp_size, 8) X(resp_k, 8)
MPGPU_PIN_BUS(ActiveQueueBus, MPGPU_ACTIVE_QUEUE_IN, MPGPU_ACTIVE_QUEUE_OUT)

struct ActiveQueuePinLogic {
  enum Op : unsigned { kRead = 0, kPush = 1, kRemove = 2 };
  ActiveQueue core;
  explicit ActiveQueuePinLogic(const ExtensionParams& p) : core(p) {}
  void apply(ActiveQueueBus& b);
  static void reset_outputs(ActiveQueueBus& b) { b = ActiveQueueBus{}; }
};
using ActiveQueuePinView = PinView<ActiveQueueBus, ActiveQueuePinLogic>;

}  // namespace mpgpu
