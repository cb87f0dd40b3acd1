#include "platform/victim_sets_shadow.hpp"

#include <fmt/format.h>

#include "Vvictim_sets.h"

namespace mpgpu {

bool VictimSetsShadow::twin_fits(const DualKernelParams& p) {
  // The parameters rtl/victim_sets.v was verilated with (CMakeLists.txt, mpgpu_rtl).
  return p.positions <= RTL_VICTIM_SETS_K && p.tb_slots <= RTL_VICTIM_SETS_P;
}

VictimSetsShadow::VictimSetsShadow(sc_core::sc_module_name name, const DualKernelParams& p, Impl impl)
    : TableShadow(name, impl), p_(p) {
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
}

VictimSetsShadow::~VictimSetsShadow() = default;

void VictimSetsShadow::observe(unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after) {
  const uint64_t row = after.candidate(pos).to_ulong();
  const int free = after.free_position();
  replay(
      [=] {
        req_op_.write(op);
        req_pos_.write(pos);
        req_slot_.write(slot);
      },
      [=]() -> std::string {
        // A larger twin's rows past K are never set: its first free row at or past K means none.
        const bool has_free = resp_has_free_.read() && resp_free_.read() < p_.positions;
        const bool same = !resp_error_.read() && resp_row_.read() == row && has_free == (free >= 0) &&
                          (free < 0 || resp_free_.read() == static_cast<unsigned>(free));
        if (same) return "";
        return fmt::format("{}: candidate victim sets {} differs from the core after op {} (position {}, slot {}): "
                           "row {:#x} vs {:#x}, free position {} vs {}",
                           name(), impl_name(), op, pos, slot, resp_row_.read().to_uint64(), row,
                           has_free ? int(resp_free_.read().to_uint()) : -1, free);
      });
}

void VictimSetsShadow::trace(sc_core::sc_trace_file* tf) const {
  trace_signals(tf, clk_, rst_, req_valid_, req_op_, req_pos_, req_slot_, resp_valid_, resp_error_, resp_row_,
                resp_has_free_, resp_free_);
}

}  // namespace mpgpu
