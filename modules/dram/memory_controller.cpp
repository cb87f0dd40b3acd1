#include "dram/memory_controller.hpp"

#include <algorithm>

#include "common/payload.hpp"

namespace mpgpu {

using sc_core::sc_time;

MemoryController::MemoryController(sc_core::sc_module_name name, const DramParams& p, ClockDomain clock,
                                   const AddressMap& map)
    : sc_module(name), mem_in("mem_in"), p_(p), clock_(clock), map_(map), channel_(p) {
  if (p_.latency_clock_mhz > 0) own_clock_latency_ = ClockDomain(p_.latency_clock_mhz).cycles(p_.latency_cycles);
  mem_in.register_b_transport(this, &MemoryController::b_transport);
}

void MemoryController::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
  const sc_time now = sim_now();
  const DecodedAddress where = map_.decode(gp.get_address());
  // The fixed latency counts in its own clock (GPGPU-Sim's DRAM latency is in core cycles).
  // Commands issue on DRAM clock edges: a request between two edges waits for the next.
  const uint64_t arrival = p_.latency_clock_mhz > 0
                               ? clock_.to_cycles_ceil(now + delay + own_clock_latency_)
                               : clock_.to_cycles_ceil(now + delay) + p_.latency_cycles;
  const uint32_t bytes = std::max(1u, gp.get_data_length());
  const auto* ext = gp.get_extension<gpu_mem_ext>();
  const uint32_t context = ext ? ext->context : 0;
  const DramAccess a = channel_.serve(arrival, where.bank, where.row, gp.is_write(), bytes, context);
  by_context_.add_bytes(context, bytes);
  if (a.outcome == RowOutcome::conflict) by_context_.displaced(context, a.displaced_owner);
  delay = clock_.cycles(double(a.completion)) - now;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace mpgpu
