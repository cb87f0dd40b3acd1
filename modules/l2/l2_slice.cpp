#include "l2/l2_slice.hpp"

#include <algorithm>

#include "common/payload.hpp"

namespace mpgpu {

using sc_core::sc_time;

L2Slice::L2Slice(sc_core::sc_module_name name, const L2Params& p, ClockDomain clock, const AddressMap& map)
    : sc_module(name), mem_in("mem_in"), mem_out("mem_out"), p_(p), clock_(clock), map_(map),
      tags_(p.sets, p.ways), flights_(p.sets, p.ways) {
  latency_ = p.latency_clock_mhz > 0 ? ClockDomain(p.latency_clock_mhz).cycles(p.hit_latency_cycles)
                                     : clock.cycles(p.hit_latency_cycles);
  mem_in.register_b_transport(this, &L2Slice::b_transport);
}

void L2Slice::b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  const sc_time now = sim_now();
  const DecodedAddress a = map_.decode(gp.get_address());
  const auto* ext = gp.get_extension<gpu_mem_ext>();
  const AccessKind kind = ext ? ext->kind : (gp.is_write() ? AccessKind::store : AccessKind::load);
  const bool writes = gp.is_write() || kind == AccessKind::atomic;
  if (now != floor_at_) floor_at_ = now, tag_port_.forget_before(clock_.to_cycles(now));  // nothing arrives before now
  const uint64_t slot = tag_port_.earliest(clock_.to_cycles_ceil(now + delay), 1);
  tag_port_.book(slot, 1);
  const sc_time start = clock_.cycles(double(slot));
  const sc_time ready = start + latency_;
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  const uint32_t context = ext ? ext->context : 0;
  // A miss to this line is already on its way: the MSHR merges the request. Mostly the line is
  // resident and its way holds the fill time; a line whose way another miss took before its fill
  // came back waits among the evicted lines (merging re-allocates it, as looking it up always did).
  if (sc_time fill; take_evicted(a.set, a.line, now, fill) && fill > start) {
    ++merged_;
    size_t way;
    uint64_t replaced;
    tags_.access(a.set, a.line, writes, nullptr, 0, nullptr, &way, &replaced);
    retire_way(a.set, way, replaced, now);
    set_way_fill(a.set, way, fill);
    delay = std::max(fill, ready) - now;
    return;
  }
  uint64_t victim, replaced;
  uint32_t victim_owner;
  size_t way;
  if (tags_.access(a.set, a.line, writes, &victim, context, &victim_owner, &way, &replaced)) {
    if (const sc_time fill = way_fill(a.set, way); fill > start) {
      ++merged_;
      delay = std::max(fill, ready) - now;
      return;
    }
    set_way_fill(a.set, way, sc_core::SC_ZERO_TIME);  // filled by then: a hit, and no longer pending
    ++hits_;
    delay = ready - now;
    return;
  }
  ++misses_;
  retire_way(a.set, way, replaced, now);
  if (victim_owner != TagArray::kNoOwner) by_context_.displaced(context, victim_owner);
  if (victim != TagArray::kInvalid) write_back(victim, start, victim_owner);
  if (gp.is_write()) {
    if (p_.write_miss == L2Params::WriteMiss::allocate_no_fetch) {  // its bytes allocate without a fetch
      delay = ready - now;
      return;
    }
    // Fetch on write miss: the bytes go through to DRAM and the line is read; acknowledged at the fill.
    sc_time wd = ready - now;
    mem_out->b_transport(gp, wd);
    tags_.clean(a.set, a.line);
    write_fetch_gp_.set_command(tlm::TLM_READ_COMMAND);
    write_fetch_gp_.set_address(gp.get_address());
    write_fetch_gp_.set_data_ptr(gp.get_data_ptr());
    write_fetch_gp_.set_data_length(p_.line_bytes);
    delay = std::max(now + wd, fetch(write_fetch_gp_, a.set, way, ready, now)) - now;
    return;
  }
  delay = fetch(gp, a.set, way, ready, now) - now;
}

void L2Slice::retire_way(uint32_t set, size_t way, uint64_t replaced, const sc_time& now) {
  // The line that held the way may still be on its way: later requests for it still merge. Not
  // once its fill is done by now (every later request starts at or after now).
  uint64_t& fill = flights_.way_fill(set, local(set, way));
  if (replaced != TagArray::kInvalid && fill > now.value()) flights_.evict(set, replaced, fill, now.value());
  fill = 0;
}

bool L2Slice::take_evicted(uint32_t set, uint64_t line, const sc_time& now, sc_time& fill) {
  uint64_t f = 0;
  if (!flights_.take_evicted(set, line, now.value(), f)) return false;
  fill = clock_detail::from_value(f);
  return true;
}

void L2Slice::install(uint32_t set, uint64_t line) {
  size_t way;
  uint64_t replaced;
  if (!tags_.access(set, line, false, nullptr, 0, nullptr, &way, &replaced)) {
    const sc_time now = sim_now();
    retire_way(set, way, replaced, now);
    if (sc_time fill; take_evicted(set, line, now, fill)) set_way_fill(set, way, fill);  // still on its way: requests merge
  }
  tags_.clean(set, line);
}

sc_time L2Slice::fetch(tlm::tlm_generic_payload& gp, uint32_t set, size_t way, const sc_time& ready, const sc_time& now) {
  // The miss needs an MSHR and a way of its set not already reserved for another line in flight
  // (a set whose ways all await fills cannot take it: a reservation failure).
  sc_time send = ready;
  bool mshr_waited = false, set_waited = false;
  for (sc_time prev;;) {  // until both accept the same time
    prev = send;
    send = clock_detail::from_value(
        flights_.way_free_at(set, mshrs_.free_at(p_.mshrs, send, now, mshr_waited).value(), now.value(), set_waited));
    if (send == prev) break;
  }
  mshr_full_ += mshr_waited;  // once per miss, however many rounds it took
  set_full_ += set_waited;
  sc_time d = send - now;
  mem_out->b_transport(gp, d);
  const sc_time fill = now + d;
  mshrs_.hold(fill);
  flights_.hold_way(set, fill.value());
  mshr_busy_ += fill - send;
  set_way_fill(set, way, fill);
  return fill;
}

// Requests reach the slice out of time order (temporal decoupling), so an entry is free at `at`
// when fewer than `capacity` fills are still pending then, not when the last booking left one.
sc_time L2Slice::HeldUntil::free_at(size_t capacity, const sc_time& at, const sc_time& now, bool& waited) {
  fills_.release_until(now);  // no request arrives before now
  // Fills are sorted: `capacity` or more pending after `at` is the capacity-th latest fill being
  // after it, and that fill is when enough of them are done to leave one entry free.
  if (fills_.size() < capacity) return at;
  const sc_time& frees = fills_.latest(capacity - 1);
  if (frees <= at) return at;
  waited = true;
  return frees;
}

void L2Slice::write_back(uint64_t line, const sc_time& at, uint32_t owner) {
  ++writebacks_;
  tlm::tlm_generic_payload& wb = wb_.gp;  // reused: a payload allocates its extension array
  wb_.ext = gpu_mem_ext{};
  wb_.ext.kind = AccessKind::store;
  wb_.ext.context = owner;  // the DRAM traffic counts for the line's owner
  static uint8_t data[4096];
  wb.set_command(tlm::TLM_WRITE_COMMAND);
  wb.set_address(line * p_.line_bytes);
  wb.set_data_ptr(data);
  wb.set_data_length(p_.line_bytes);
  sc_time d = at - sim_now();
  mem_out->b_transport(wb, d);  // off the critical path: it only occupies the bank and bus
}

}  // namespace mpgpu
