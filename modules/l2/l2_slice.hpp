#pragma once
// One L2 slice (one per memory partition): physically tagged, set-associative, LRU, write-back,
// one tag lookup per cycle and a hit latency. Read misses take an MSHR (merging misses to a line
// already on its way) and fetch the line from the partition's memory controller; stores allocate
// without fetching (byte-masked lines, as GPU L2s do) or fetch and write through (write_miss),
// and dirty victims are written back. An atomic is one read-modify-write per transaction; the SM
// sends one transaction per lane naming the same word, so same-address atomics serialize here.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <vector>

#include "common/address_map.hpp"
#include "common/busy_intervals.hpp"
#include "common/clock.hpp"
#include "common/context_counters.hpp"
#include "common/payload.hpp"
#include "common/release_times.hpp"
#include "l2/fills_in_flight.hpp"
#include "l2/tag_array.hpp"

namespace mpgpu {

struct L2Params {
  uint32_t slices = 1;
  uint32_t sets = 64;  // per slice
  uint32_t ways = 16;
  uint32_t line_bytes = 128;
  uint32_t hit_latency_cycles = 120;
  double latency_clock_mhz = 0;  // clock hit_latency_cycles counts in (0: the L2's own)
  uint32_t mshrs = 32;
  // A store that misses: allocate its bytes without fetching (byte-masked lines, written back on
  // eviction), or fetch the line from DRAM and write the bytes through (GPGPU-Sim's write-allocate
  // on its write-back L2); the store is acknowledged once its line is filled.
  enum class WriteMiss { allocate_no_fetch, fetch_write_through } write_miss = WriteMiss::allocate_no_fetch;
  uint64_t bytes_total() const { return uint64_t{slices} * sets * ways * line_bytes; }
};

class L2Slice : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<L2Slice> mem_in;      // from the crossbar
  tlm_utils::simple_initiator_socket<L2Slice> mem_out;  // to the memory controller

  L2Slice(sc_core::sc_module_name name, const L2Params& p, ClockDomain clock, const AddressMap& map);

  // Functional fill (no time): the line becomes resident and clean, as a copy engine leaves it.
  void install(uint32_t set, uint64_t line);
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t merged() const { return merged_; }
  uint64_t writebacks() const { return writebacks_; }
  uint64_t mshr_full_waits() const { return mshr_full_; }
  uint64_t set_full_waits() const { return set_full_; }  // reservation failures: every way awaiting a fill
  sc_core::sc_time mshr_busy() const { return mshr_busy_; }  // sum of MSHR hold times
  // Lines of one context evicted by another's misses (SPEC 6 interference).
  const ContextCounters& by_context() const { return by_context_; }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  L2Params p_;
  ClockDomain clock_;
  const AddressMap& map_;
  TagArray tags_;
  // Per set: each way's pending fill (merged requests find it with the tag lookup, with no table
  // of their own), the fills holding its ways, the lines whose way another miss took while their
  // fill was still on its way.
  FillsInFlight flights_;
  sc_core::sc_time way_fill(uint32_t set, size_t way) { return clock_detail::from_value(flights_.way_fill(set, local(set, way))); }
  void set_way_fill(uint32_t set, size_t way, const sc_core::sc_time& t) { flights_.way_fill(set, local(set, way)) = t.value(); }
  uint32_t local(uint32_t set, size_t way) const { return uint32_t(way - size_t(set) * p_.ways); }  // tags_' way index in its set
  // A miss took `way` of `set` from `replaced`: its pending fill, if any, goes to the evicted lines.
  void retire_way(uint32_t set, size_t way, uint64_t replaced, const sc_core::sc_time& now);
  // Takes `line` out of the set's evicted lines (true: found, *fill its fill time); drops fills done by now.
  bool take_evicted(uint32_t set, uint64_t line, const sc_core::sc_time& now, sc_core::sc_time& fill);
  void write_back(uint64_t line, const sc_core::sc_time& at, uint32_t owner);
  ContextCounters by_context_;
  // Sends `gp` to DRAM after an MSHR and a way of `set` are free (from `ready`); returns the fill,
  // also recorded for the line's way `way`.
  sc_core::sc_time fetch(tlm::tlm_generic_payload& gp, uint32_t set, size_t way, const sc_core::sc_time& ready,
                         const sc_core::sc_time& now);
  sc_core::sc_time latency_;  // hit latency
  MemPayload wb_;  // write-backs
  tlm::tlm_generic_payload write_fetch_gp_;
  BusyIntervals tag_port_;  // one tag lookup per cycle, in L2 cycles; keeps gaps for out-of-order arrivals
  sc_core::sc_time floor_at_ = sc_core::SC_ZERO_TIME;  // the time tag_port_ was last forgotten up to
  // Fill times of the entries of a resource (MSHRs, a set's ways) still held, sorted.
  class HeldUntil {
   public:
    // Earliest time >= at with fewer than `capacity` entries held, forgetting fills done by `now`.
    sc_core::sc_time free_at(size_t capacity, const sc_core::sc_time& at, const sc_core::sc_time& now, bool& waited);
    void hold(const sc_core::sc_time& fill) { fills_.add(fill); }

   private:
    ReleaseTimes<sc_core::sc_time> fills_;
  };
  HeldUntil mshrs_;
  sc_core::sc_time mshr_busy_;
  uint64_t hits_ = 0, misses_ = 0, merged_ = 0, writebacks_ = 0, mshr_full_ = 0, set_full_ = 0;
};

}  // namespace mpgpu
