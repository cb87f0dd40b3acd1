#include "extensions/ptbq_pins.hpp"

namespace mpgpu {

PtbqPins::PtbqPins(sc_core::sc_module_name name, const ExtensionParams& p)
    : sc_module(name), clk("clk"), rst("rst"), req_valid("req_valid"), req_op("req_op"), req_q("req_q"),
      req_tb("req_tb"), req_ptr("req_ptr"), resp_valid("resp_valid"), resp_error("resp_error"),
      resp_empty("resp_empty"), resp_tb("resp_tb"), resp_ptr("resp_ptr"), resp_size("resp_size"), p_(p), core_(p) {
  SC_METHOD(tick);
  sensitive << clk.pos();
  dont_initialize();
}

void PtbqPins::tick() {
  if (rst.read()) {
    core_ = Ptbq(p_);
    resp_valid.write(false);
    resp_error.write(false);
    resp_empty.write(true);
    resp_tb.write(0);
    resp_ptr.write(0);
    resp_size.write(0);
    return;
  }
  resp_valid.write(req_valid.read());
  if (!req_valid.read()) return;
  const uint32_t q = req_q.read().to_uint();
  bool error = q >= core_.queues();
  if (!error) {
    try {
      switch (req_op.read().to_uint()) {
        case kFront: break;
        case kPush: core_.push(q, {req_tb.read().to_uint64(), req_ptr.read().to_uint64(), 0}); break;
        case kPop: error = !core_.pop(q).has_value(); break;
        case kClear: core_.clear(q); break;
      }
    } catch (const SimError&) {
      error = true;  // full: rejected, the queue is unchanged
    }
  }
  resp_error.write(error);
  if (q < core_.queues()) {
    const PtbqEntry* head = core_.front(q);
    resp_empty.write(head == nullptr);
    resp_size.write(core_.size(q));
    resp_tb.write(head ? head->tb : 0);
    resp_ptr.write(head ? head->save_pointer : 0);
  }
}

void PtbqPins::trace(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, clk, n + ".clk");
  sc_core::sc_trace(tf, req_valid, n + ".req_valid");
  sc_core::sc_trace(tf, req_op, n + ".req_op");
  sc_core::sc_trace(tf, req_q, n + ".req_q");
  sc_core::sc_trace(tf, req_tb, n + ".req_tb");
  sc_core::sc_trace(tf, req_ptr, n + ".req_ptr");
  sc_core::sc_trace(tf, resp_valid, n + ".resp_valid");
  sc_core::sc_trace(tf, resp_error, n + ".resp_error");
  sc_core::sc_trace(tf, resp_empty, n + ".resp_empty");
  sc_core::sc_trace(tf, resp_tb, n + ".resp_tb");
  sc_core::sc_trace(tf, resp_ptr, n + ".resp_ptr");
  sc_core::sc_trace(tf, resp_size, n + ".resp_size");
}

}  // namespace mpgpu
