#pragma once
// Memory controller of one partition with its DRAM channel: the SystemC shell around the
// loosely-timed DramChannel (banks, row buffers, DRAM timings, data bus, row-hit reordering;
// dram_channel.hpp says exactly what it can reorder). b_transport never waits: it books the
// request's DRAM commands and returns with delay = the time its last data beat leaves the bus.
//
// Time of an access = latency_cycles (fixed controller + PHY pipeline, GPGPU-Sim's DRAM latency
// queue: the request reaches the command scheduler that much after it reaches the controller)
// + the DRAM's own time (e.g. a lone read on an idle channel: tRCD + CL + its bursts).
// Bank and row come from the platform's AddressMap. Sub-partitions (two L2 slices on one
// channel) decode bank and row within their own slice, so equal (bank, row) of the two slices
// share a row buffer, as their interleaved chunks share a DRAM row.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/address_map.hpp"
#include "common/clock.hpp"
#include "common/context_counters.hpp"
#include "dram/dram_channel.hpp"
#include "dram/dram_timing.hpp"

namespace mpgpu {

// Data-bus use seen from SystemC (same accessors as OccupancyCalendar).
struct DramBusUsage {
  sc_core::sc_time free_at_, busy_total_;
  const sc_core::sc_time& free_at() const { return free_at_; }        // end of the latest burst
  const sc_core::sc_time& busy_total() const { return busy_total_; }  // sum of burst times
};

class MemoryController : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<MemoryController> mem_in;  // from its L2 slices

  MemoryController(sc_core::sc_module_name name, const DramParams& p, ClockDomain clock, const AddressMap& map);

  uint64_t bytes() const { return channel_.bytes(); }
  uint64_t reads() const { return channel_.reads(); }
  uint64_t writes() const { return channel_.writes(); }
  uint64_t row_hits() const { return channel_.row_hits(); }
  uint64_t row_misses() const { return channel_.row_misses(); }
  uint64_t row_conflicts() const { return channel_.row_conflicts(); }
  uint64_t reordered_hits() const { return channel_.reordered_hits(); }
  DramBusUsage bus() const {
    return {clock_.cycles(double(channel_.bus_free_at())), clock_.cycles(double(channel_.bus_busy_cycles()))};
  }
  const DramChannel& channel() const { return channel_; }
  // Bytes per context, and open rows of one context closed by another's request (SPEC 6).
  const ContextCounters& by_context() const { return by_context_; }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  sc_core::sc_time own_clock_latency_;  // latency_cycles in latency_clock_mhz, when that is set

  DramParams p_;
  ClockDomain clock_;
  const AddressMap& map_;  // shared with the crossbar and L2: its last decode is usually this request's
  DramChannel channel_;
  ContextCounters by_context_;
};

}  // namespace mpgpu
