#include "extensions/ksrt_pins.hpp"

namespace mpgpu {

KsrtPins::KsrtPins(sc_core::sc_module_name name, const ExtensionParams& p)
    : sc_module(name), clk("clk"), rst("rst"), req_valid("req_valid"), req_op("req_op"), req_idx("req_idx"),
      req_context("req_context"), req_priority("req_priority"), req_grid("req_grid"), req_regs("req_regs"),
      req_shm("req_shm"), req_threads("req_threads"), req_tokens("req_tokens"), req_param("req_param"),
      resp_valid("resp_valid"), resp_error("resp_error"), resp_entry_valid("resp_entry_valid"), resp_idx("resp_idx"),
      resp_context("resp_context"), resp_priority("resp_priority"), resp_grid("resp_grid"), resp_regs("resp_regs"),
      resp_shm("resp_shm"), resp_next_tb("resp_next_tb"), resp_tbs_done("resp_tbs_done"),
      resp_threads("resp_threads"), resp_tokens("resp_tokens"), resp_param("resp_param"), p_(p), core_(p) {
  SC_METHOD(tick);
  sensitive << clk.pos();
  dont_initialize();
}

void KsrtPins::tick() {
  if (rst.read()) {
    core_ = Ksrt(p_);
    resp_valid.write(false);
    resp_error.write(false);
    resp_entry_valid.write(false);
    for (auto* o : {&resp_idx, &resp_context, &resp_priority}) o->write(0);
    for (auto* o : {&resp_grid, &resp_regs, &resp_shm, &resp_next_tb, &resp_tbs_done}) o->write(0);
    resp_threads.write(0);
    resp_tokens.write(0);
    resp_param.write(0);
    return;
  }
  resp_valid.write(req_valid.read());
  if (!req_valid.read()) return;
  uint32_t idx = req_idx.read().to_uint();
  bool error = false;
  try {
    switch (req_op.read().to_uint()) {
      case kRead: core_.at(idx); break;
      case kAllocate: {
        KsrtEntry e;
        e.grid_tbs = req_grid.read().to_uint64();
        e.threads_per_tb = req_threads.read().to_uint();
        e.registers_per_tb = req_regs.read().to_uint();
        e.shared_mem_per_tb = req_shm.read().to_uint();
        e.param_pointer = req_param.read().to_uint64();
        e.context = req_context.read().to_uint();
        e.priority = req_priority.read().to_uint();
        auto got = core_.allocate(e);
        if (got) idx = *got;
        else error = true;  // full
        break;
      }
      case kRelease: core_.at(idx), core_.release(idx); break;
      case kIssueNext: core_.at(idx), core_.issue_next(idx); break;
      case kTbDone: core_.at(idx), core_.tb_done(idx); break;
      case kSetTokens: core_.at(idx), core_.set_tokens(idx, static_cast<int16_t>(req_tokens.read().to_uint())); break;
      default: error = true;
    }
  } catch (const SimError&) {
    error = true;  // a value wider than its field: rejected, state unchanged
  } catch (const std::out_of_range&) {
    error = true;
  }
  resp_error.write(error);
  if (error) return;
  const KsrtEntry& e = core_.at(idx);
  resp_idx.write(idx);
  resp_entry_valid.write(e.valid);
  resp_grid.write(e.grid_tbs);
  resp_threads.write(e.threads_per_tb);
  resp_regs.write(e.registers_per_tb);
  resp_shm.write(e.shared_mem_per_tb);
  resp_next_tb.write(e.next_tb);
  resp_tbs_done.write(e.tbs_done);
  resp_param.write(e.param_pointer);
  resp_context.write(e.context);
  resp_priority.write(e.priority);
  resp_tokens.write(static_cast<uint16_t>(static_cast<int16_t>(e.tokens)));
}

void KsrtPins::trace(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, clk, n + ".clk");
  sc_core::sc_trace(tf, req_valid, n + ".req_valid");
  sc_core::sc_trace(tf, req_op, n + ".req_op");
  sc_core::sc_trace(tf, req_idx, n + ".req_idx");
  sc_core::sc_trace(tf, resp_valid, n + ".resp_valid");
  sc_core::sc_trace(tf, resp_error, n + ".resp_error");
  sc_core::sc_trace(tf, resp_idx, n + ".resp_idx");
  sc_core::sc_trace(tf, resp_next_tb, n + ".resp_next_tb");
  sc_core::sc_trace(tf, resp_tbs_done, n + ".resp_tbs_done");
  sc_core::sc_trace(tf, resp_tokens, n + ".resp_tokens");
}

}  // namespace mpgpu
