#include "l2/l2_slice.hpp"

namespace mpgpu {

using sc_core::sc_time;

L2Slice::L2Slice(sc_core::sc_module_name name, const L2Params& p, ClockDomain clock, const AddressMap& map)
    : sc_module(name), mem_in("mem_in"), mem_out("mem_out"), p_(p), clock_(clock), map_(map),
      tags_(p.sets, p.ways) {
  mem_in.register_b_transport(this, &L2Slice::b_transport);
}

void L2Slice::b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  const sc_time now = sc_core::sc_time_stamp();
  const DecodedAddress a = map_.decode(gp.get_address());
  const sc_time start = tag_port_.book(now + delay, clock_.period());
  delay = start - now + clock_.cycles(p_.hit_latency_cycles);
  if (tags_.access(a.set, a.line)) {
    ++hits_;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  ++misses_;
  mem_out->b_transport(gp, delay);
}

}  // namespace mpgpu
