// The block scheduler's extension tables through their links (extensions/table_link.hpp): each
// update of a core is made on the link, the response compared with the core, the latency charged.
#include <fmt/format.h>

#include "block_scheduler/block_scheduler.hpp"

namespace mpgpu {

uint64_t BlockScheduler::local_time_ps() const {
  const sc_core::sc_time t = sc_core::sc_time_stamp() + (in_round_ ? offset_ : owed_);
  return static_cast<uint64_t>(t.to_seconds() * 1e12 + 0.5);
}

void BlockScheduler::charge_access(uint32_t cycles) {
  if (cycles <= 1) return;  // the first cycle is the driver's own
  const sc_core::sc_time t = clock_.cycles(double(cycles - 1));
  (in_round_ ? offset_ : owed_) += t;
}

template <class Bus, class Describe>
void BlockScheduler::access(TableLink<Bus>& link, const Bus& request, const Bus& expected, const Describe& what) {
  const uint64_t at = local_time_ps();
  const uint32_t cycles = link.access(request, at);
  check_response(link, expected, what, at);
  charge_access(cycles);
}

void BlockScheduler::link_tables(BlockSchedulerLinks links) {
  links_ = std::move(links);
  if (SmDriver* d = driver()) {
    Smst::Observer smst;
    Ksrt::Observer ksrt;
    Ptbq::Observer ptbq;
    if (links_.smst)
      smst = [this, d](unsigned op, uint32_t sm, uint32_t arg) {
        SmstBus rq;
        rq.req_op = op, rq.req_sm = sm, rq.req_arg = arg;
        access(*links_.smst, rq, SmstPinLogic::expected(d->smst(), op, sm, arg),
               [&] { return fmt::format("op {} on SM {} (arg {})", op, sm, arg); });
      };
    if (links_.ksrt)
      ksrt = [this, d](unsigned op, uint32_t idx) {
        const KsrtEntry& e = d->ksrt().at(idx);
        KsrtBus rq = KsrtPinLogic::request(op, idx, e);
        if (op == KsrtPinLogic::kAllocate) rq.req_idx = 0;  // the table picks the entry
        KsrtBus want = rq;
        KsrtPinLogic::respond(e, idx, want);
        access(*links_.ksrt, rq, want, [&] { return fmt::format("op {} on entry {}", op, idx); });
      };
    if (links_.ptbq)
      ptbq = [this, d](unsigned op, uint32_t q, const PtbqEntry* pushed) {
        PtbqBus rq;
        rq.req_op = op, rq.req_q = q;
        if (pushed) rq.req_tb = pushed->tb, rq.req_ptr = pushed->save_pointer;
        PtbqBus want = rq;
        PtbqPinLogic::respond(d->ptbq(), q, want);
        access(*links_.ptbq, rq, want, [&] { return fmt::format("op {} on queue {}", op, q); });
      };
    CommandBuffers::Observer cmd;
    ActiveQueue::Observer active;
    if (links_.command_buffers)
      cmd = [this, d](unsigned op, uint32_t ctx, uint32_t launch) {
        CommandBuffersBus rq;
        rq.req_op = op, rq.req_ctx = ctx, rq.req_launch = launch;
        CommandBuffersBus want = rq;
        CommandBuffersPinLogic::respond(d->command_buffers(), op, ctx, launch, want);
        access(*links_.command_buffers, rq, want, [&] { return fmt::format("op {} on context {} (launch {})", op, ctx, launch); });
      };
    if (links_.active_queue)
      active = [this, d](unsigned op, uint32_t k) {
        ActiveQueueBus rq;
        rq.req_op = op, rq.req_k = k;
        ActiveQueueBus want = rq;
        want.resp_size = d->active().order().size(), want.resp_k = k;
        access(*links_.active_queue, rq, want, [&] { return fmt::format("op {} of KSRT index {}", op, k); });
      };
    d->observe_tables(std::move(smst), std::move(ksrt), std::move(ptbq), std::move(cmd), std::move(active));
  }
  if (!processor_ || (links_.victim_sets.empty() && links_.preempting_status.empty() && links_.allocation_positions.empty()))
    return;
  PreemptionProcessor::TablesObserver o;
  o.planned = [this](uint32_t sm) {  // a new preempting kernel: the SM's tables start empty
    if (!links_.victim_sets.empty()) links_.victim_sets.at(sm)->reset();
    if (!links_.preempting_status.empty()) links_.preempting_status.at(sm)->reset();
  };
  if (!links_.allocation_positions.empty())
    o.positions = [this](uint32_t sm, uint32_t registers, uint32_t shared_mem, uint32_t tb_registers, uint32_t tb_shared_mem,
                         const std::vector<AllocationPosition>& positions) {
      TableLink<AllocationPositionsBus>& link = *links_.allocation_positions.at(sm);
      AllocationPositionsBus rq;
      rq.req_op = AllocationPositionsPinLogic::kConfigure;
      rq.req_regs = registers, rq.req_shm = shared_mem, rq.req_tb_regs = tb_registers, rq.req_tb_shm = tb_shared_mem;
      AllocationPositionsBus want = rq;
      AllocationPositionsPinLogic::respond(positions, 0, want);
      access(link, rq, want, [&] { return fmt::format("configure for TBs of {} registers and {} B", tb_registers, tb_shared_mem); });
      for (uint32_t k = 0; k < positions.size(); ++k) {  // the victim-set build reads each position
        AllocationPositionsBus read;
        read.req_op = AllocationPositionsPinLogic::kRead, read.req_pos = k;
        AllocationPositionsBus got = read;
        AllocationPositionsPinLogic::respond(positions, k, got);
        access(link, read, got, [&] { return fmt::format("read of position {}", k); });
      }
    };
  if (!links_.victim_sets.empty())
    o.victim_sets = [this](uint32_t sm, unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after) {
      VictimSetsBus rq;
      rq.req_op = op, rq.req_pos = pos, rq.req_slot = slot;
      VictimSetsBus want = rq;
      VictimSetsPinLogic::respond(after, pos, want);
      access(*links_.victim_sets.at(sm), rq, want, [&] { return fmt::format("op {} (position {}, slot {})", op, pos, slot); });
    };
  if (!links_.preempting_status.empty())
    o.status = [this](uint32_t sm, unsigned op, uint32_t pos, uint32_t arg, const PreemptingAllocationStatus& after) {
      PreemptingStatusBus rq;
      rq.req_op = op, rq.req_pos = pos;
      if (op == PreemptingStatusPinLogic::kSetKernel) rq.req_pid = arg, rq.req_kernel = after.kernel_id();
      else rq.req_slot = arg;
      PreemptingStatusBus want = rq;
      PreemptingStatusPinLogic::respond(after, pos, want);
      access(*links_.preempting_status.at(sm), rq, want, [&] { return fmt::format("op {} (position {}, argument {})", op, pos, arg); });
    };
  processor_->observe_tables(std::move(o));
}

}  // namespace mpgpu
