#pragma once
// Shared fill unit (SPEC 1): page-table walkers serving L1/L2 TLB misses. This version: N walkers,
// each walk a fixed number of cycles, a miss waits for the first free walker. Page tables per
// context, faults and demand paging come with the preemptible-exception work.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <vector>

#include "common/calendar.hpp"
#include "common/clock.hpp"

namespace mpgpu {

struct FillUnitParams {
  uint32_t walkers = 64;
  uint32_t walk_cycles = 500;
  uint32_t l2_tlb_entries = 1024;
  uint32_t l2_tlb_ways = 8;
  uint32_t page_bytes = 4096;
};

class FillUnit : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<FillUnit> walk_in;  // from every SM

  FillUnit(sc_core::sc_module_name name, const FillUnitParams& p, ClockDomain clock);
  uint64_t walks() const { return walks_; }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  FillUnitParams p_;
  ClockDomain clock_;
  std::vector<OccupancyCalendar> walkers_;
  uint64_t walks_ = 0;
};

}  // namespace mpgpu
