// The pipeline's replay queue and operand log over their links (extensions/table_link.hpp): each
// update of a core is made on the link too and the response compared with the core; the cycles
// the tables take to answer an issue hold the ld/st unit.
#include <fmt/format.h>

#include "sm/pipeline.hpp"

namespace mpgpu {

template <class Bus, class Describe>
void SmPipeline::table_access(TableLink<Bus>& link, const Bus& request, const Bus& want, bool at_issue,
                              Describe describe) {
  const uint64_t at = cycle_ * link_period_ps_;
  const uint32_t cycles = link.access(request, at);
  check_response(link, want, describe, at);
  if (at_issue) issue_table_cycles_ = std::max(issue_table_cycles_, cycles);
}

void SmPipeline::link_tables(SmTableLinks links, uint64_t period_ps) {
  links_ = std::move(links);
  link_period_ps_ = period_ps;
  if (links_.replay_queue)
    replay_queue_.set_observer([this](unsigned op, const ReplayEntry& e, uint32_t taken) {
      const ReplayQueueBus rq = ReplayQueuePinLogic::request(op, e);
      ReplayQueueBus want = rq;
      ReplayQueuePinLogic::respond(replay_queue_, op, e, taken, want);
      table_access(*links_.replay_queue, rq, want, op == ReplayQueue::kIssue,
                   [&] { return fmt::format("op {} of warp {} (slot {}, pc {:#x})", op, e.warp, e.slot, e.pc); });
    });
  if (links_.operand_log)
    operand_log_.set_observer([this](unsigned op, uint32_t arg, uint32_t n) {
      OperandLogBus rq;
      rq.req_op = op;
      if (op == OperandLog::kPartition) rq.req_n = arg;
      else rq.req_tb = arg, rq.req_n = op == OperandLog::kTake ? 0 : n;
      OperandLogBus want = rq;
      OperandLogPinLogic::respond(operand_log_, op, static_cast<uint32_t>(rq.req_tb), n, want);
      table_access(*links_.operand_log, rq, want, op == OperandLog::kAllocate,
                   [&] { return fmt::format("op {} (argument {}, {} entries)", op, arg, n); });
    });
}

}  // namespace mpgpu
