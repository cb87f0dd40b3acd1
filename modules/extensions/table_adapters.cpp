#include "extensions/table_adapters.hpp"

namespace mpgpu {

namespace {
[[noreturn]] void bad_op(const char* table, unsigned op) {
  throw SimError(std::string(table) + ": no operation " + std::to_string(op));
}
}  // namespace

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
