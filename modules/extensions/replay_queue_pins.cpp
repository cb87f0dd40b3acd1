#include "extensions/replay_queue_pins.hpp"

#include "common/error.hpp"

namespace mpgpu {

void ReplayQueuePinLogic::apply(ReplayQueueBus& b) {
  ReplayEntry e;
  e.warp = static_cast<uint32_t>(b.req_warp);
  e.pc = b.req_pc;
  e.slot = static_cast<uint32_t>(b.req_slot);
  bool error = false;
  uint32_t taken = 0;
  try {
    switch (b.req_op) {
      case kIssue:
        error = !core.issue(e);
        if (!error) e.slot = core.last_slot();
        break;
      case kCommit: error = !core.commit_slot(e.slot); break;
      case kTake:
        core.check_warp(e.warp);
        taken = static_cast<uint32_t>(core.take_warp(e.warp).size());
        break;
      default: error = true;
    }
  } catch (const SimError&) {
    error = true;  // a warp or PC wider than its field: rejected, nothing changes
  }
  b.resp_error = error;
  if (!error) respond(core, static_cast<unsigned>(b.req_op), e, taken, b);
}

ReplayQueueBus ReplayQueuePinLogic::request(unsigned op, const ReplayEntry& e) {
  ReplayQueueBus b;
  b.req_op = op;
  b.req_warp = e.warp;
  if (op == kIssue) b.req_pc = e.pc;  // the table picks the slot
  if (op == kCommit) b.req_slot = e.slot;
  return b;
}

void ReplayQueuePinLogic::respond(const ReplayQueue& core, unsigned op, const ReplayEntry& e, uint32_t taken,
                                  ReplayQueueBus& b) {
  b.resp_count = core.size();
  b.resp_full = core.full();
  b.resp_slot = op == kTake ? 0 : e.slot;
  b.resp_taken = taken;
}

void OperandLogPinLogic::apply(OperandLogBus& b) {
  const uint32_t tb = static_cast<uint32_t>(b.req_tb), n = static_cast<uint32_t>(b.req_n);
  const uint32_t slots = core.params().max_tbs;
  bool error = b.req_op == kPartition ? n == 0 || n > slots : tb >= slots;
  if (b.req_op == kAllocate || b.req_op == kRelease) error = error || (n != 1 && n != 2);
  uint32_t taken = 0;
  if (!error) {
    try {
      switch (b.req_op) {
        case kPartition: core.partition(n); break;
        case kAllocate: error = !core.allocate(tb, n == 2); break;
        case kRelease: core.release(tb, n == 2); break;
        default:
          taken = core.used(tb);
          core.take_tb(tb);
      }
    } catch (const SimError&) {
      error = true;  // a release of more than the TB holds: rejected
    }
  }
  b.resp_error = error;
  if (!error) respond(core, static_cast<unsigned>(b.req_op), tb, taken, b);
}

void OperandLogPinLogic::respond(const OperandLog& core, unsigned op, uint32_t tb, uint32_t taken, OperandLogBus& b) {
  b.resp_share = core.share();
  b.resp_used = tb < core.params().max_tbs ? core.used(tb) : 0;
  b.resp_taken = op == kTake ? taken : 0;
}

}  // namespace mpgpu
