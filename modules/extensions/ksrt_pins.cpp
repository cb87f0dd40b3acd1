#include "extensions/ksrt_pins.hpp"

namespace mpgpu {

void KsrtPinLogic::apply(KsrtBus& b) {
  uint32_t idx = static_cast<uint32_t>(b.req_idx);
  bool error = false;
  try {
    switch (b.req_op) {
      case kRead: core.at(idx); break;
      case kAllocate: {
        KsrtEntry e;
        e.grid_tbs = b.req_grid;
        e.threads_per_tb = static_cast<uint32_t>(b.req_threads);
        e.registers_per_tb = static_cast<uint32_t>(b.req_regs);
        e.shared_mem_per_tb = static_cast<uint32_t>(b.req_shm);
        e.param_pointer = b.req_param;
        e.context = static_cast<uint32_t>(b.req_context);
        e.priority = static_cast<uint32_t>(b.req_priority);
        auto got = core.allocate(e);
        if (got) idx = *got;
        else error = true;  // full
        break;
      }
      case kRelease: core.at(idx), core.release(idx); break;
      case kIssueNext: core.at(idx), core.issue_next(idx); break;
      case kTbDone: core.at(idx), core.tb_done(idx); break;
      case kSetTokens: core.at(idx), core.set_tokens(idx, static_cast<int16_t>(b.req_tokens)); break;
      default: error = true;
    }
  } catch (const SimError&) {
    error = true;  // a value wider than its field: rejected, state unchanged
  } catch (const std::out_of_range&) {
    error = true;
  }
  b.resp_error = error;
  if (!error) respond(core.at(idx), idx, b);  // a rejected request leaves the entry outputs as they were
}

KsrtBus KsrtPinLogic::request(unsigned op, uint32_t idx, const KsrtEntry& e) {
  KsrtBus b;
  b.req_op = op, b.req_idx = idx;
  b.req_grid = e.grid_tbs, b.req_threads = e.threads_per_tb, b.req_regs = e.registers_per_tb;
  b.req_shm = e.shared_mem_per_tb, b.req_param = e.param_pointer, b.req_context = e.context;
  b.req_priority = e.priority, b.req_tokens = static_cast<uint16_t>(static_cast<int16_t>(e.tokens));
  return b;
}

void KsrtPinLogic::respond(const KsrtEntry& e, uint32_t idx, KsrtBus& b) {
  b.resp_idx = idx;
  b.resp_entry_valid = e.valid;
  b.resp_grid = e.grid_tbs;
  b.resp_threads = e.threads_per_tb;
  b.resp_regs = e.registers_per_tb;
  b.resp_shm = e.shared_mem_per_tb;
  b.resp_next_tb = e.next_tb;
  b.resp_tbs_done = e.tbs_done;
  b.resp_param = e.param_pointer;
  b.resp_context = e.context;
  b.resp_priority = e.priority;
  b.resp_tokens = static_cast<uint16_t>(static_cast<int16_t>(e.tokens));
}

}  // namespace mpgpu
