#include "extensions/smst_pins.hpp"

namespace mpgpu {

SmstPins::SmstPins(sc_core::sc_module_name name, const ExtensionParams& p)
    : sc_module(name), clk("clk"), rst("rst"), req_valid("req_valid"), req_op("req_op"), req_sm("req_sm"),
      req_arg("req_arg"), resp_valid("resp_valid"), resp_error("resp_error"), resp_has_idle("resp_has_idle"),
      resp_state("resp_state"), resp_running("resp_running"), resp_next("resp_next"), resp_tbs("resp_tbs"),
      resp_idle("resp_idle"), p_(p), core_(p) {
  SC_METHOD(tick);
  sensitive << clk.pos();
  dont_initialize();
}

void SmstPins::tick() {
  if (rst.read()) {
    core_ = Smst(p_);
    resp_valid.write(false);
    resp_error.write(false);
    resp_state.write(0);
    resp_running.write(0);
    resp_next.write(0);
    resp_tbs.write(0);
    resp_has_idle.write(false);
    resp_idle.write(0);
    return;
  }
  resp_valid.write(req_valid.read());
  if (!req_valid.read()) return;
  const uint32_t sm = req_sm.read().to_uint(), arg = req_arg.read().to_uint();
  bool error = false;
  try {
    switch (req_op.read().to_uint()) {
      case kRead: core_.at(sm); break;
      case kSetRunning: core_.set_running(sm, arg); break;
      case kReserve: core_.reserve(sm, arg); break;
      case kSetIdle: core_.set_idle(sm); break;
      case kTbStarted: core_.tb_started(sm); break;
      case kTbLeft: core_.tb_left(sm); break;
      default: error = true;
    }
  } catch (const SimError&) {
    error = true;  // the core rejected it and kept its state
  } catch (const std::out_of_range&) {
    error = true;
  }
  resp_error.write(error);
  if (sm < core_.entries()) {
    const SmstEntry& e = core_.at(sm);
    resp_state.write(static_cast<unsigned>(e.state));
    resp_running.write(e.running);
    resp_next.write(e.next);
    resp_tbs.write(e.running_tbs);
  }
  const int idle = core_.find_idle();
  resp_has_idle.write(idle >= 0);
  resp_idle.write(idle >= 0 ? idle : 0);
}

void SmstPins::trace(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, clk, n + ".clk");
  sc_core::sc_trace(tf, rst, n + ".rst");
  sc_core::sc_trace(tf, req_valid, n + ".req_valid");
  sc_core::sc_trace(tf, req_op, n + ".req_op");
  sc_core::sc_trace(tf, req_sm, n + ".req_sm");
  sc_core::sc_trace(tf, req_arg, n + ".req_arg");
  sc_core::sc_trace(tf, resp_valid, n + ".resp_valid");
  sc_core::sc_trace(tf, resp_error, n + ".resp_error");
  sc_core::sc_trace(tf, resp_state, n + ".resp_state");
  sc_core::sc_trace(tf, resp_running, n + ".resp_running");
  sc_core::sc_trace(tf, resp_next, n + ".resp_next");
  sc_core::sc_trace(tf, resp_tbs, n + ".resp_tbs");
  sc_core::sc_trace(tf, resp_has_idle, n + ".resp_has_idle");
  sc_core::sc_trace(tf, resp_idle, n + ".resp_idle");
}

}  // namespace mpgpu
