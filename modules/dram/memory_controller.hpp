#pragma once
// Memory controller of one partition with its DRAM channel. This version: a fixed access latency
// plus the data bus, booked per burst, so bandwidth is bounded by the configured peak. Banks, row
// buffers and FR-FCFS reordering come with the warp-level memory model (issue 3); the timings are
// already validated and carried in DramParams.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "common/calendar.hpp"
#include "common/clock.hpp"

namespace mpgpu {

struct DramTiming {
  uint32_t CCD = 2, RRD = 6, RCD = 12, RAS = 28, RP = 12, RC = 40, CL = 12, WL = 4, WR = 12;
};

struct DramParams {
  uint32_t channels = 1;      // memory controllers
  uint32_t bus_bytes = 4;     // per channel
  uint32_t burst_length = 8;
  uint32_t data_rate = 4;     // transfers per DRAM command clock (GDDR5: 4)
  uint32_t banks = 16;
  uint32_t row_bytes = 2048;
  uint32_t latency_cycles = 100;  // DRAM clock cycles, fixed part of an access
  DramTiming timing;
  double peak_gbps(double dram_mhz) const {
    return double(channels) * bus_bytes * data_rate * dram_mhz * 1e6 / 1e9;
  }
};

class MemoryController : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<MemoryController> mem_in;  // from its L2 slices

  MemoryController(sc_core::sc_module_name name, const DramParams& p, ClockDomain clock);

  uint64_t bytes() const { return bytes_; }
  const OccupancyCalendar& bus() const { return bus_; }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  DramParams p_;
  ClockDomain clock_;
  OccupancyCalendar bus_;
  uint64_t bytes_ = 0;
};

}  // namespace mpgpu
