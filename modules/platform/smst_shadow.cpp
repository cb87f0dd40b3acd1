#include "platform/smst_shadow.hpp"

#include <fmt/format.h>

#include "Vsmst.h"

namespace mpgpu {

using sc_core::SC_ZERO_TIME;

bool SmstShadow::twin_fits(const ExtensionParams& p) {
  // The parameters rtl/smst.v was verilated with (CMakeLists.txt, mpgpu_rtl).
  return p.num_sms == RTL_SMST_N && field_bits(Smst::layout(p), "running") == RTL_SMST_KB &&
         field_bits(Smst::layout(p), "running_tbs") == RTL_SMST_TBB;
}

SmstShadow::SmstShadow(sc_core::sc_module_name name, const ExtensionParams& p, Impl impl)
    : sc_module(name), impl_(impl) {
  auto bind = [&](auto& m) {
    m.clk(clk_), m.rst(rst_), m.req_valid(req_valid_), m.req_op(req_op_), m.req_sm(req_sm_), m.req_arg(req_arg_);
    m.resp_valid(resp_valid_), m.resp_error(resp_error_), m.resp_has_idle(resp_has_idle_), m.resp_state(resp_state_);
    m.resp_running(resp_running_), m.resp_next(resp_next_), m.resp_tbs(resp_tbs_), m.resp_idle(resp_idle_);
  };
  if (impl == Impl::pins) {
    pins_ = std::make_unique<SmstPins>("pins", p);
    bind(*pins_);
  } else {
    rtl_ = std::make_unique<Vsmst>("rtl");
    bind(*rtl_);
  }
  SC_THREAD(run);
}

SmstShadow::~SmstShadow() = default;

void SmstShadow::attach(Smst& core) {
  core.set_observer([this, &core](unsigned op, uint32_t sm, uint32_t arg) {
    pending_.push_back({op, sm, arg, core.at(sm), core.find_idle()});
    work_.notify(SC_ZERO_TIME);
  });
}

// One clock cycle in delta time: rising edge, let the registered outputs settle, falling edge.
void SmstShadow::edge() {
  clk_.write(true);
  wait(SC_ZERO_TIME);
  wait(SC_ZERO_TIME);
  clk_.write(false);
  wait(SC_ZERO_TIME);
}

void SmstShadow::run() {
  rst_.write(true);
  wait(SC_ZERO_TIME);
  edge();
  rst_.write(false);
  for (;;) {
    if (pending_.empty()) wait(work_);
    while (!pending_.empty()) {
      const Expect e = pending_.front();
      pending_.pop_front();
      req_valid_.write(true);
      req_op_.write(e.op);
      req_sm_.write(e.sm);
      req_arg_.write(e.arg);
      wait(SC_ZERO_TIME);
      edge();
      ++checked_;
      const bool same = !resp_error_.read() && resp_state_.read() == static_cast<unsigned>(e.entry.state) &&
                        resp_running_.read() == e.entry.running && resp_next_.read() == e.entry.next &&
                        resp_tbs_.read() == e.entry.running_tbs && resp_has_idle_.read() == (e.idle >= 0) &&
                        (e.idle < 0 || resp_idle_.read() == static_cast<unsigned>(e.idle));
      if (!same && first_mismatch_.empty())
        first_mismatch_ = fmt::format("SMST {} differs from the core after op {} on SM {} (arg {}): state {} vs {}, tbs {} vs {}",
                                      impl_ == Impl::verilog ? "Verilog twin" : "pin view", e.op, e.sm, e.arg,
                                      resp_state_.read().to_uint(), static_cast<unsigned>(e.entry.state),
                                      resp_tbs_.read().to_uint(), e.entry.running_tbs);
      req_valid_.write(false);
    }
  }
}

void SmstShadow::trace(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, clk_, n + ".clk");
  sc_core::sc_trace(tf, rst_, n + ".rst");
  sc_core::sc_trace(tf, req_valid_, n + ".req_valid");
  sc_core::sc_trace(tf, req_op_, n + ".req_op");
  sc_core::sc_trace(tf, req_sm_, n + ".req_sm");
  sc_core::sc_trace(tf, req_arg_, n + ".req_arg");
  sc_core::sc_trace(tf, resp_valid_, n + ".resp_valid");
  sc_core::sc_trace(tf, resp_error_, n + ".resp_error");
  sc_core::sc_trace(tf, resp_state_, n + ".resp_state");
  sc_core::sc_trace(tf, resp_running_, n + ".resp_running");
  sc_core::sc_trace(tf, resp_next_, n + ".resp_next");
  sc_core::sc_trace(tf, resp_tbs_, n + ".resp_tbs");
  sc_core::sc_trace(tf, resp_has_idle_, n + ".resp_has_idle");
  sc_core::sc_trace(tf, resp_idle_, n + ".resp_idle");
}

}  // namespace mpgpu
