#include "fill_unit/fill_unit.hpp"

#include <algorithm>

namespace mpgpu {

using sc_core::sc_time;

FillUnit::FillUnit(sc_core::sc_module_name name, const FillUnitParams& p, ClockDomain clock)
    : sc_module(name), walk_in("walk_in"), p_(p), clock_(clock), walkers_(p.walkers) {
  walk_in.register_b_transport(this, &FillUnit::b_transport);
}

void FillUnit::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
  const sc_time now = sc_core::sc_time_stamp();
  auto w = std::min_element(walkers_.begin(), walkers_.end(),
                            [](const auto& a, const auto& b) { return a.free_at() < b.free_at(); });
  const sc_time walk = clock_.cycles(p_.walk_cycles);
  delay = w->book(now + delay, walk) + walk - now;
  ++walks_;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace mpgpu
