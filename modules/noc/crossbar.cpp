#include "noc/crossbar.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace mpgpu {

using sc_core::sc_time;

Crossbar::Crossbar(sc_core::sc_module_name name, const CrossbarParams& p, ClockDomain clock,
                   const AddressMap& map)
    : sc_module(name), mem_in("mem_in"), mem_out("mem_out"), p_(p), clock_(clock), map_(map) {
  mem_in.register_b_transport(this, &Crossbar::b_transport);
}

void Crossbar::end_of_elaboration() {
  if (mem_out.size() != map_.params().partitions)
    throw SimError("crossbar: bound to " + std::to_string(mem_out.size()) + " L2 slices, address map has " +
                   std::to_string(map_.params().partitions));
  req_ports_.resize(mem_out.size());
  reply_ports_.resize(mem_out.size());
  inject_ports_.resize(mem_in.size());
  eject_ports_.resize(mem_in.size());
}

// Latency plus serialization of the packet's flits, once both its ports are free.
sc_time Crossbar::traverse(OccupancyCalendar& out, OccupancyCalendar& in, uint32_t bytes, const sc_time& at) {
  const uint32_t flits = std::max(1u, (bytes + p_.flit_bytes - 1) / p_.flit_bytes);
  const sc_time serial = clock_.cycles(double(flits) / p_.flits_per_cycle);
  const sc_time start = std::max({at, out.free_at(), in.free_at()});
  out.book(start, serial);
  in.book(start, serial);
  return start + serial + clock_.cycles(p_.latency_cycles);
}

void Crossbar::b_transport(int src, tlm::tlm_generic_payload& gp, sc_time& delay) {
  ++requests_;
  const uint32_t part = map_.decode(gp.get_address()).partition;
  const sc_time now = sc_core::sc_time_stamp();
  const bool write = gp.is_write();
  const uint32_t payload = gp.get_data_length();
  // Requests carry data only for writes; replies only for reads (8 B header otherwise).
  sc_time t = traverse(inject_ports_[src], req_ports_[part], write ? payload + 8 : 8, now + delay);
  delay = t - now;
  mem_out[part]->b_transport(gp, delay);
  t = traverse(reply_ports_[part], eject_ports_[src], write ? 8 : payload + 8, now + delay);
  delay = t - now;
}

}  // namespace mpgpu
