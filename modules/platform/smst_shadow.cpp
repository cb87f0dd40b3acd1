#include "platform/smst_shadow.hpp"

#include <fmt/format.h>

#include "Vsmst.h"

namespace mpgpu {

bool SmstShadow::twin_fits(const ExtensionParams& p) {
  // The parameters rtl/smst.v was verilated with (CMakeLists.txt, mpgpu_rtl).
  return p.num_sms == RTL_SMST_N && field_bits(Smst::layout(p), "running") == RTL_SMST_KB &&
         field_bits(Smst::layout(p), "running_tbs") == RTL_SMST_TBB;
}

SmstShadow::SmstShadow(sc_core::sc_module_name name, const ExtensionParams& p, Impl impl) : TableShadow(name, impl) {
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
}

SmstShadow::~SmstShadow() = default;

void SmstShadow::attach(Smst& core) {
  core.set_observer([this, &core](unsigned op, uint32_t sm, uint32_t arg) {
    const SmstEntry e = core.at(sm);
    const int idle = core.find_idle();
    replay(
        [=] {
          req_op_.write(op);
          req_sm_.write(sm);
          req_arg_.write(arg);
        },
        [=]() -> std::string {
          const bool same = !resp_error_.read() && resp_state_.read() == static_cast<unsigned>(e.state) &&
                            resp_running_.read() == e.running && resp_next_.read() == e.next &&
                            resp_tbs_.read() == e.running_tbs && resp_has_idle_.read() == (idle >= 0) &&
                            (idle < 0 || resp_idle_.read() == static_cast<unsigned>(idle));
          if (same) return "";
          return fmt::format("SMST {} differs from the core after op {} on SM {} (arg {}): state {} vs {}, tbs {} vs {}",
                             impl_name(), op, sm, arg, resp_state_.read().to_uint(), static_cast<unsigned>(e.state),
                             resp_tbs_.read().to_uint(), e.running_tbs);
        });
  });
}

void SmstShadow::trace(sc_core::sc_trace_file* tf) const {
  trace_signals(tf, clk_, rst_, req_valid_, req_op_, req_sm_, req_arg_, resp_valid_, resp_error_, resp_state_,
                resp_running_, resp_next_, resp_tbs_, resp_has_idle_, resp_idle_);
}

}  // namespace mpgpu
