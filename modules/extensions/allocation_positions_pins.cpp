#include "extensions/allocation_positions_pins.hpp"

#include "common/error.hpp"

namespace mpgpu {

void AllocationPositionsPinLogic::apply(AllocationPositionsBus& b) {
  const uint32_t pos = static_cast<uint32_t>(b.req_pos);
  bool error = false;
  switch (b.req_op) {
    case kRead: error = pos >= positions.size(); break;
    case kConfigure:
      try {
        positions = allocation_positions(p, static_cast<uint32_t>(b.req_regs), static_cast<uint32_t>(b.req_shm),
                                         static_cast<uint32_t>(b.req_tb_regs), static_cast<uint32_t>(b.req_tb_shm));
      } catch (const SimError&) {
        error = true;  // an offset wider than its field: rejected, the positions stay
      }
      break;
    default: error = true;
  }
  b.resp_error = error;
  if (!error) respond(positions, b.req_op == kRead ? pos : 0, b);
}

void AllocationPositionsPinLogic::respond(const std::vector<AllocationPosition>& positions, uint32_t pos,
                                          AllocationPositionsBus& b) {
  b.resp_count = positions.size();
  b.resp_reg_offset = pos < positions.size() ? positions[pos].reg_offset : 0;
  b.resp_shm_offset = pos < positions.size() ? positions[pos].shm_offset : 0;
}

}  // namespace mpgpu
