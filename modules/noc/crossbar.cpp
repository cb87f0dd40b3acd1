#include "noc/crossbar.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/payload.hpp"

namespace mpgpu {

using sc_core::sc_time;

Crossbar::Crossbar(sc_core::sc_module_name name, const CrossbarParams& p, ClockDomain clock,
                   const AddressMap& map)
    : sc_module(name), mem_in("mem_in"), mem_out("mem_out"), p_(p), flit_bytes_(p.flit_bytes), clock_(clock), map_(map),
      tick_(clock.mhz() * std::max(1u, p.flits_per_cycle)), latency_(clock.cycles(p.latency_cycles)) {
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
  req_busy_.assign(mem_out.size(), 0);
  reply_busy_.assign(mem_out.size(), 0);
  req_memo_.assign(mem_in.size() * mem_out.size(), BusyIntervals::JointMemo{});
  reply_memo_.assign(mem_in.size() * mem_out.size(), BusyIntervals::JointMemo{});
}

// Latency plus serialization of the packet's flits, in the first slot both its ports have free.
sc_time Crossbar::traverse(BusyIntervals& out, BusyIntervals& in, uint64_t& busy, BusyIntervals::JointMemo& memo,
                           uint32_t bytes, const sc_time& at) {
  const uint64_t flits = std::max<uint64_t>(1, flit_bytes_.div(uint64_t{bytes} + p_.flit_bytes - 1));
  const uint64_t s = BusyIntervals::book_in_both(out, in, tick_.to_cycles_ceil(at), flits, memo);
  busy += flits;
  return tick_.cycles(double(s + flits)) + latency_;
}

void Crossbar::b_transport(int src, tlm::tlm_generic_payload& gp, sc_time& delay) {
  ++requests_;
  const uint32_t part = map_.decode(gp.get_address()).partition;
  const sc_time now = sim_now();
  const bool write = gp.is_write();
  const uint32_t payload = gp.get_data_length();
  const auto* ext = gp.get_extension<gpu_mem_ext>();
  const bool atomic = ext && ext->kind == AccessKind::atomic;
  // Requests carry data for writes and atomics; replies for reads and atomics (8 B header otherwise).
  // Nothing arrives before now, and every packet is booked from now on: the ports in use forget
  // older bookings a few thousand ticks at a time (forget_lagging: the same answers).
  if (now != floor_at_) floor_at_ = now, floor_ = tick_.to_cycles(now);  // converted once per time step
  for (BusyIntervals* b : {&inject_ports_[src], &req_ports_[part], &reply_ports_[part], &eject_ports_[src]})
    b->forget_lagging(floor_, kForgetStep);
  const size_t pair = size_t(src) * req_ports_.size() + part;
  sc_time t = traverse(inject_ports_[src], req_ports_[part], req_busy_[part], req_memo_[pair], write || atomic ? payload + 8 : 8,
                       now + delay);
  delay = t - now;
  mem_out[part]->b_transport(gp, delay);
  t = traverse(reply_ports_[part], eject_ports_[src], reply_busy_[part], reply_memo_[pair], write ? 8 : payload + 8, now + delay);
  delay = t - now;
}

}  // namespace mpgpu
