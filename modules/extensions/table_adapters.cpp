#include "extensions/table_adapters.hpp"

namespace mpgpu {

namespace {
[[noreturn]] void bad_op(const char* table, unsigned op) {
  throw SimError(std::string(table) + ": no operation " + std::to_string(op));
}
}  // namespace

PinResponse CommandBuffersAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: return {core.occupied(r.index), core.occupied(r.index) ? core.peek(r.index) : 0};
    case 1: core.put(r.index, static_cast<uint32_t>(r.a)); return {1, r.a};
    case 2: return {0, core.take(r.index)};
  }
  bad_op("command_buffers", r.op);
}

PinResponse ActiveQueueAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: return {core.order().size(), core.order().at(r.index)};
    case 1: core.push(static_cast<uint32_t>(r.a)); return {core.order().size(), r.a};
    case 2: core.remove(static_cast<uint32_t>(r.a)); return {core.order().size(), r.a};
  }
  bad_op("active_queue", r.op);
}

PinResponse ReplayQueueAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: return {core.size(), 0};
    case 1:
      if (!core.issue({r.index, r.a, r.b})) throw SimError("replay queue full");
      return {core.size(), 0};
    case 2:
      if (!core.commit(r.index, r.b)) throw SimError("replay queue: no such instruction");
      return {core.size(), 0};
    case 3: {
      const auto order = core.replay_order(r.index);
      return {order.size(), order.empty() ? 0 : order.front().pc};
    }
  }
  bad_op("replay_queue", r.op);
}

PinResponse OperandLogAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: return {core.used(r.index), core.share()};
    case 1: core.partition(static_cast<uint32_t>(r.a)); return {0, core.share()};
    case 2:
      if (!core.allocate(r.index, r.a != 0)) throw SimError("operand log: share used up");
      return {core.used(r.index), core.share()};
    case 3: core.release(r.index, r.a != 0); return {core.used(r.index), core.share()};
  }
  bad_op("operand_log", r.op);
}

PinResponse RunningTbStatusAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: break;
    case 1: core.start(r.index, r.a, r.b != 0); break;
    case 2: core.executed(r.index, r.a); break;
    case 3: core.lost_idempotence(r.index); break;
    default: bad_op("running_tb_status", r.op);
  }
  const auto& e = core.at(r.index);
  return {e.executed_instructions, e.issue_cycle | (uint64_t{e.flush} << 63)};
}

PinResponse PreemptingStatusAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: return {core.allocated(r.index), core.tb_slot(r.index)};
    case 1: core.allocate(r.index, static_cast<uint32_t>(r.a)); return {1, r.a};
    case 2: core.release(r.index); return {0, core.tb_slot(r.index)};
    case 3: core.set_kernel(static_cast<uint32_t>(r.a), static_cast<uint32_t>(r.b)); return {core.pid(), core.kernel_id()};
  }
  bad_op("preempting_allocation_status", r.op);
}

PinResponse AllocationPositionsAdapter::apply(const PinRequest& r) {
  switch (r.op) {
    case 0: {
      const auto& a = positions.at(r.index);
      return {a.reg_offset, a.shm_offset};
    }
    case 1:
      positions = allocation_positions(p, registers, shared_mem, static_cast<uint32_t>(r.a), static_cast<uint32_t>(r.b));
      return {positions.size(), 0};
  }
  bad_op("allocation_positions", r.op);
}

}  // namespace mpgpu
