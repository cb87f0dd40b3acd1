#include "extensions/victim_sets_pins.hpp"

namespace mpgpu {

VictimSetsPins::VictimSetsPins(sc_core::sc_module_name name, const DualKernelParams& p)
    : sc_module(name), clk("clk"), rst("rst"), req_valid("req_valid"), req_op("req_op"), req_pos("req_pos"),
      req_slot("req_slot"), resp_valid("resp_valid"), resp_error("resp_error"), resp_has_free("resp_has_free"),
      resp_row("resp_row"), resp_free("resp_free"), p_(p), core_(p) {
  SC_METHOD(tick);
  sensitive << clk.pos();
  dont_initialize();
}

void VictimSetsPins::tick() {
  if (rst.read()) {
    core_ = CandidateVictimSets(p_);
    resp_valid.write(false);
    resp_error.write(false);
    resp_has_free.write(false);
    resp_row.write(0);
    resp_free.write(0);
    return;
  }
  resp_valid.write(req_valid.read());
  if (!req_valid.read()) return;
  const uint32_t pos = req_pos.read().to_uint(), slot = req_slot.read().to_uint();
  bool error = false;
  try {
    switch (req_op.read().to_uint()) {
      case kRead: error = pos >= core_.positions(); break;
      case kSet: core_.set(pos, slot); break;
      case kClearTb: core_.clear_tb(slot); break;
      case kClearRow: core_.clear_row(pos); break;
    }
  } catch (const SimError&) {
    error = true;  // rejected; the sets are unchanged
  }
  resp_error.write(error);
  if (pos < core_.positions()) resp_row.write(core_.candidate(pos).to_ulong());
  const int f = core_.free_position();
  resp_has_free.write(f >= 0);
  resp_free.write(f >= 0 ? f : 0);
}

void VictimSetsPins::trace(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, clk, n + ".clk");
  sc_core::sc_trace(tf, req_valid, n + ".req_valid");
  sc_core::sc_trace(tf, req_op, n + ".req_op");
  sc_core::sc_trace(tf, req_pos, n + ".req_pos");
  sc_core::sc_trace(tf, req_slot, n + ".req_slot");
  sc_core::sc_trace(tf, resp_valid, n + ".resp_valid");
  sc_core::sc_trace(tf, resp_error, n + ".resp_error");
  sc_core::sc_trace(tf, resp_row, n + ".resp_row");
  sc_core::sc_trace(tf, resp_has_free, n + ".resp_has_free");
  sc_core::sc_trace(tf, resp_free, n + ".resp_free");
}

}  // namespace mpgpu
