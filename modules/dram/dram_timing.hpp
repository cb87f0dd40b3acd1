#pragma once
// DRAM channel parameters (PLATFORMS.md) and the quantities both timing cores derive from them.
// Every time here is in DRAM command-clock cycles. Plain C++: no SystemC.
#include <algorithm>
#include <cstdint>

#include "common/divisor.hpp"

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
  uint32_t latency_cycles = 100;  // controller + PHY pipeline, added to every access (see MemoryController)
  double latency_clock_mhz = 0;   // clock latency_cycles counts in (0: the DRAM command clock)
  DramTiming timing;
  double peak_gbps(double dram_mhz) const {
    return double(channels) * bus_bytes * data_rate * dram_mhz * 1e6 / 1e9;
  }

  // Data-bus cycles of one burst; a burst shorter than a command cycle still takes one.
  uint32_t burst_cycles() const { return std::max(1u, (burst_length + data_rate - 1) / data_rate); }
  uint32_t burst_bytes() const { return bus_bytes * burst_length; }
  // Bursts (one column command each) that move `bytes`. `by_burst` divides by burst_bytes(): the
  // channel keeps one (a shift on every bundled platform), as it counts bursts on every request.
  uint32_t bursts_for(uint32_t bytes, const Divisor& by_burst) const {
    return std::max(1u, uint32_t(by_burst.div(bytes + burst_bytes() - 1)));
  }
  uint32_t bursts_for(uint32_t bytes) const { return bursts_for(bytes, Divisor(burst_bytes())); }
  // Column command -> earliest precharge of the same bank. A read must have left the sense
  // amplifiers (one burst, GPGPU-Sim's tRTP); a write must be written back (WL + burst + tWR).
  uint32_t read_to_precharge() const { return burst_cycles(); }
  uint32_t write_to_precharge() const { return timing.WL + burst_cycles() + timing.WR; }
};

}  // namespace mpgpu
