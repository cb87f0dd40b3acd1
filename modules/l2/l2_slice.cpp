#include "l2/l2_slice.hpp"

#include <algorithm>

#include "common/payload.hpp"

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
  const auto* ext = gp.get_extension<gpu_mem_ext>();
  const AccessKind kind = ext ? ext->kind : (gp.is_write() ? AccessKind::store : AccessKind::load);
  const bool writes = gp.is_write() || kind == AccessKind::atomic;
  if (++calls_ % 4096 == 0) tag_port_.forget_before(clock_.to_cycles(now));  // nothing arrives before now
  const uint64_t slot = tag_port_.earliest(clock_.to_cycles_ceil(now + delay), 1);
  tag_port_.book(slot, 1);
  const sc_time start = clock_.cycles(double(slot));
  const sc_time ready = start + clock_.cycles(p_.hit_latency_cycles);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  // A miss to this line is already on its way: the MSHR merges the request.
  if (auto it = pending_.find(a.line); it != pending_.end()) {
    if (it->second > start) {
      ++merged_;
      tags_.access(a.set, a.line, writes, nullptr);
      delay = std::max(it->second, ready) - now;
      return;
    }
    pending_.erase(it);
  }
  uint64_t victim;
  if (tags_.access(a.set, a.line, writes, &victim)) {
    ++hits_;
    delay = ready - now;
    return;
  }
  ++misses_;
  if (victim != TagArray::kInvalid) write_back(victim, start);
  if (gp.is_write()) {  // a store allocates its bytes without fetching the rest of the line
    delay = ready - now;
    return;
  }
  const sc_time send = mshr_free_at(ready, now);
  sc_time d = send - now;
  mem_out->b_transport(gp, d);
  const sc_time fill = now + d;
  mshr_fills_.push_back(fill);
  mshr_busy_ += fill - send;
  pending_[a.line] = fill;
  if (pending_.size() > sweep_at_) {  // drop fills that are done; amortized O(1) per miss
    for (auto it = pending_.begin(); it != pending_.end();) it = it->second <= start ? pending_.erase(it) : std::next(it);
    sweep_at_ = std::max<size_t>(2 * pending_.size(), 4 * size_t(p_.mshrs) + 64);
  }
  delay = fill - now;
}

// Requests reach the slice out of time order (temporal decoupling), so an MSHR is free at `at`
// when fewer than `mshrs` fills are still pending then; fills done by `now` are dropped, since no
// request arrives before the present.
sc_time L2Slice::mshr_free_at(const sc_time& at, const sc_time& now) {
  mshr_fills_.erase(std::remove_if(mshr_fills_.begin(), mshr_fills_.end(), [&](const sc_time& f) { return f <= now; }),
                    mshr_fills_.end());
  pending_after_.clear();
  for (const sc_time& f : mshr_fills_)
    if (f > at) pending_after_.push_back(f);
  if (pending_after_.size() < p_.mshrs) return at;
  ++mshr_full_;
  // Wait until enough of them have filled to leave one MSHR free.
  const size_t k = pending_after_.size() - p_.mshrs;
  std::nth_element(pending_after_.begin(), pending_after_.begin() + k, pending_after_.end());
  return pending_after_[k];
}

void L2Slice::write_back(uint64_t line, const sc_time& at) {
  ++writebacks_;
  tlm::tlm_generic_payload wb;
  gpu_mem_ext ext;
  ext.kind = AccessKind::store;
  static uint8_t data[4096];
  wb.set_command(tlm::TLM_WRITE_COMMAND);
  wb.set_address(line * p_.line_bytes);
  wb.set_data_ptr(data);
  wb.set_data_length(p_.line_bytes);
  wb.set_extension(&ext);
  sc_time d = at - sc_core::sc_time_stamp();
  mem_out->b_transport(wb, d);  // off the critical path: it only occupies the bank and bus
  wb.clear_extension(&ext);
}

}  // namespace mpgpu
