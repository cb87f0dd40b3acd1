#include "extensions/table_adapters.hpp"

namespace mpgpu {

namespace {
[[noreturn]] void bad_op(const char* table, unsigned op) {
  throw SimError(std::string(table) + ": no operation " + std::to_string(op));
}
}  // namespace

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
