#pragma once
// Per-SM resources and organization, as elaborated from the platform's `sm` section.
#include <cstdint>
#include <string>
#include <vector>

namespace mpgpu {

struct SmParams {
  uint32_t count = 1;
  uint32_t warp_size = 32;
  uint32_t max_threads = 2048;
  uint32_t max_tbs = 16;
  uint32_t registers = 65536;           // 32-bit registers per SM
  uint32_t register_alloc_unit = 1;     // a TB's registers are rounded up to this
  std::vector<uint32_t> shared_mem_configs;  // carve-out options in bytes, ascending
  uint32_t shared_mem_default = 0;      // carve-out used unless a kernel needs more
  uint32_t warp_schedulers = 4;
  std::string warp_scheduler = "gto";
  // L1 data cache (used by the warp-level model; validated and reported here).
  uint32_t l1_sets = 32, l1_ways = 4, l1_line_bytes = 128, l1_mshrs = 64, l1_latency = 35;
  uint32_t shared_mem_latency = 26;
  // Context switch (SPEC 2): drain in-flight instructions, then a trap routine saves (or restores)
  // registers, shared memory and TB state, one line per cycle from the SM.
  uint32_t drain_cycles = 500;
  uint32_t trap_cycles = 100;
  uint32_t tb_state_bytes = 64;  // barrier state, reconvergence stack pointer, ...

  uint32_t largest_shared_mem() const { return shared_mem_configs.back(); }
  uint32_t register_file_bytes() const { return registers * 4; }
};

}  // namespace mpgpu
