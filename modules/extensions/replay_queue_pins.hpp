#pragma once
// Replay queue and operand log (SPEC 3) pins and pin views: the C++ cores behind the pins of
// their Verilog twins rtl/replay_queue.v and rtl/operand_log.v. The SM pipeline reaches them at
// the issue of each global memory instruction (fault_organization replay_queue / operand_log).
#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"
#include "extensions/replay_queue.hpp"

namespace mpgpu {

// Replay queue: 0 issue(warp, pc) into the lowest free slot, 1 commit(slot), 2 take(warp). The
// response is the count and full flag after it, the slot issued or committed, the entries taken.
#define MPGPU_REPLAY_QUEUE_IN(X) X(req_op, 2) X(req_warp, 8) X(req_pc, 64) X(req_slot, 16)
#define MPGPU_REPLAY_QUEUE_OUT(X) X(resp_count, 16) X(resp_full, 1) X(resp_slot, 16) X(resp_taken, 16)
MPGPU_PIN_BUS(ReplayQueueBus, MPGPU_REPLAY_QUEUE_IN, MPGPU_REPLAY_QUEUE_OUT)

struct ReplayQueuePinLogic {
  enum Op : unsigned { kIssue = ReplayQueue::kIssue, kCommit = ReplayQueue::kCommit, kTake = ReplayQueue::kTake };
  ReplayQueue core;
  explicit ReplayQueuePinLogic(const ReplayQueueParams& p) : core(p) {}
  void apply(ReplayQueueBus& b);
  static void reset_outputs(ReplayQueueBus& b) { b = ReplayQueueBus{}; }
  // The request of update `op` the core just made (of entry `e`; take: of e.warp) and the
  // response a correct table gives (`taken`: the entries a take removed).
  static ReplayQueueBus request(unsigned op, const ReplayEntry& e);
  static void respond(const ReplayQueue& core, unsigned op, const ReplayEntry& e, uint32_t taken, ReplayQueueBus& b);
};
using ReplayQueuePinView = PinView<ReplayQueueBus, ReplayQueuePinLogic>;

// Operand log: 0 partition(n resident TBs), 1 allocate(tb, n entries), 2 release(tb, n),
// 3 take(tb). The response is the share and the TB's entries in use after it, the entries taken.
#define MPGPU_OPERAND_LOG_IN(X) X(req_op, 2) X(req_tb, 8) X(req_n, 8)
#define MPGPU_OPERAND_LOG_OUT(X) X(resp_share, 16) X(resp_used, 16) X(resp_taken, 16)
MPGPU_PIN_BUS(OperandLogBus, MPGPU_OPERAND_LOG_IN, MPGPU_OPERAND_LOG_OUT)

struct OperandLogPinLogic {
  enum Op : unsigned {
    kPartition = OperandLog::kPartition,
    kAllocate = OperandLog::kAllocate,
    kRelease = OperandLog::kRelease,
    kTake = OperandLog::kTake
  };
  OperandLog core;
  explicit OperandLogPinLogic(const OperandLogParams& p) : core(p) {}
  void apply(OperandLogBus& b);
  static void reset_outputs(OperandLogBus& b) { b = OperandLogBus{}; }
  // The response a correct log gives after update `op` of TB `tb` (`taken`: what a take removed).
  static void respond(const OperandLog& core, unsigned op, uint32_t tb, uint32_t taken, OperandLogBus& b);
};
using OperandLogPinView = PinView<OperandLogBus, OperandLogPinLogic>;

}  // namespace mpgpu
