#include "dram/memory_controller.hpp"

#include <algorithm>

namespace mpgpu {

using sc_core::sc_time;

MemoryController::MemoryController(sc_core::sc_module_name name, const DramParams& p, ClockDomain clock)
    : sc_module(name), mem_in("mem_in"), p_(p), clock_(clock) {
  mem_in.register_b_transport(this, &MemoryController::b_transport);
}

void MemoryController::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t len = std::max(1u, gp.get_data_length());
  // The bus moves bus_bytes x data_rate bytes per DRAM cycle, in whole bursts.
  const uint32_t burst_bytes = p_.bus_bytes * p_.burst_length;
  const uint32_t bursts = (len + burst_bytes - 1) / burst_bytes;
  const sc_time on_bus = clock_.cycles(double(bursts) * p_.burst_length / p_.data_rate);
  const sc_time start = bus_.book(now + delay + clock_.cycles(p_.latency_cycles), on_bus);
  delay = start + on_bus - now;
  bytes_ += len;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace mpgpu
