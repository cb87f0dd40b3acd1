#pragma once
// How many TBs of a kernel fit one SM, and which resource limits it (TB admission of SPEC 1).
#include <cstdint>
#include <string>

#include "sm/sm_params.hpp"

namespace mpgpu {

struct TbResources {
  uint32_t threads = 0;
  uint32_t registers = 0;   // per TB, before rounding to the allocation unit
  uint32_t shared_mem = 0;  // bytes per TB
};

struct Occupancy {
  uint32_t tbs_per_sm = 0;        // 0: the TB never fits
  std::string limiting;           // "registers", "threads+registers", ...
  uint32_t shared_mem_config = 0; // carve-out the kernel runs with
  uint32_t registers_per_tb = 0;  // after rounding
  // Registers + shared memory of one SM at this occupancy, in bytes.
  uint64_t storage_bytes() const;
  uint32_t shared_mem_per_tb = 0;
};

// Carve-out a kernel runs with: the default, or the first larger option that holds one TB.
// Returns 0 when no option is large enough.
uint32_t shared_mem_config_for(const SmParams& sm, uint32_t shared_mem_per_tb);
// Threads a TB takes from the SM's thread (warp) slots: whole warps, as the hardware allocates
// them (a TB of 129 threads holds 5 warps).
uint32_t warp_rounded_threads(const SmParams& sm, uint32_t threads);
uint32_t rounded_registers(const SmParams& sm, uint32_t registers_per_tb);
Occupancy compute_occupancy(const SmParams& sm, const TbResources& tb);

}  // namespace mpgpu
