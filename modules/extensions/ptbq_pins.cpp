#include "extensions/ptbq_pins.hpp"

namespace mpgpu {

void PtbqPinLogic::apply(PtbqBus& b) {
  const uint32_t q = static_cast<uint32_t>(b.req_q);
  bool error = q >= core.queues();
  if (!error) {
    try {
      switch (b.req_op) {
        case kFront: break;
        case kPush: core.push(q, {b.req_tb, b.req_ptr, 0}); break;
        case kPop: error = !core.pop(q).has_value(); break;
        case kClear: core.clear(q); break;
      }
    } catch (const SimError&) {
      error = true;  // full: rejected, the queue is unchanged
    }
  }
  b.resp_error = error;
  if (q < core.queues()) respond(core, q, b);
}

void PtbqPinLogic::respond(const Ptbq& core, uint32_t q, PtbqBus& b) {
  const PtbqEntry* head = core.front(q);
  b.resp_empty = head == nullptr;
  b.resp_size = core.size(q);
  b.resp_tb = head ? head->tb : 0;
  b.resp_ptr = head ? head->save_pointer : 0;
}

}  // namespace mpgpu
