#include "platform/victim_sets_shadow.hpp"

#include <fmt/format.h>

#include "Vvictim_sets.h"

namespace mpgpu {

using sc_core::SC_ZERO_TIME;

bool VictimSetsShadow::twin_fits(const DualKernelParams& p) {
  // The parameters rtl/victim_sets.v was verilated with (CMakeLists.txt, mpgpu_rtl).
  return p.positions <= RTL_VICTIM_SETS_K && p.tb_slots <= RTL_VICTIM_SETS_P;
}

VictimSetsShadow::VictimSetsShadow(sc_core::sc_module_name name, const DualKernelParams& p, Impl impl)
    : sc_module(name), impl_(impl), p_(p) {
  auto bind = [&](auto& m) {
    m.clk(clk_), m.rst(rst_), m.req_valid(req_valid_), m.req_op(req_op_), m.req_pos(req_pos_), m.req_slot(req_slot_);
    m.resp_valid(resp_valid_), m.resp_error(resp_error_), m.resp_has_free(resp_has_free_), m.resp_row(resp_row_);
    m.resp_free(resp_free_);
  };
  if (impl == Impl::pins) {
    pins_ = std::make_unique<VictimSetsPins>("pins", p);
    bind(*pins_);
  } else {
    rtl_ = std::make_unique<Vvictim_sets>("rtl");
    bind(*rtl_);
  }
  SC_THREAD(run);
}

VictimSetsShadow::~VictimSetsShadow() = default;

void VictimSetsShadow::observe(unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after) {
  pending_.push_back({op, pos, slot, after.candidate(pos).to_ulong(), after.free_position()});
  work_.notify(SC_ZERO_TIME);
}

// One clock cycle in delta time: rising edge, let the registered outputs settle, falling edge.
void VictimSetsShadow::edge() {
  clk_.write(true);
  wait(SC_ZERO_TIME);
  wait(SC_ZERO_TIME);
  clk_.write(false);
  wait(SC_ZERO_TIME);
}

void VictimSetsShadow::run() {
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
      req_pos_.write(e.pos);
      req_slot_.write(e.slot);
      wait(SC_ZERO_TIME);
      edge();
      ++checked_;
      // A larger twin's rows past K are never set: its first free row at or past K means none.
      const bool has_free = resp_has_free_.read() && resp_free_.read() < p_.positions;
      const bool same = !resp_error_.read() && resp_row_.read() == e.row && has_free == (e.free >= 0) &&
                        (e.free < 0 || resp_free_.read() == static_cast<unsigned>(e.free));
      if (!same && first_mismatch_.empty())
        first_mismatch_ = fmt::format("{}: candidate victim sets {} differs from the core after op {} (position {}, slot {}): "
                                      "row {:#x} vs {:#x}, free position {} vs {}",
                                      name(), impl_ == Impl::verilog ? "Verilog twin" : "pin view", e.op, e.pos, e.slot,
                                      resp_row_.read().to_uint64(), e.row,
                                      has_free ? int(resp_free_.read().to_uint()) : -1, e.free);
      req_valid_.write(false);
    }
  }
}

void VictimSetsShadow::trace(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, clk_, n + ".clk");
  sc_core::sc_trace(tf, rst_, n + ".rst");
  sc_core::sc_trace(tf, req_valid_, n + ".req_valid");
  sc_core::sc_trace(tf, req_op_, n + ".req_op");
  sc_core::sc_trace(tf, req_pos_, n + ".req_pos");
  sc_core::sc_trace(tf, req_slot_, n + ".req_slot");
  sc_core::sc_trace(tf, resp_valid_, n + ".resp_valid");
  sc_core::sc_trace(tf, resp_error_, n + ".resp_error");
  sc_core::sc_trace(tf, resp_row_, n + ".resp_row");
  sc_core::sc_trace(tf, resp_has_free_, n + ".resp_has_free");
  sc_core::sc_trace(tf, resp_free_, n + ".resp_free");
}

}  // namespace mpgpu
