#pragma once
// SPEC 5's per-SM hardware for intra-SM sharing: MIAS's profiling counters (cleared when a
// profiling window starts, read when it ends) and the TB-mix register the block scheduler
// broadcasts. Counter widths hold one whole window, and the controller checks every window value
// against them, so what `mpgpu report` sizes is what the model counts with.
#include <cstdint>

#include "extensions/field.hpp"

namespace mpgpu {

constexpr uint64_t kDefaultProfilingWindowCycles = 45000;  // SPEC 5 (Nasef)

struct SharingHwParams {
  uint64_t window_cycles = kDefaultProfilingWindowCycles;
  uint32_t issue_width = 4;    // warp schedulers: warp instructions per cycle at most
  uint32_t warp_size = 32;     // L1 misses per cycle at most: one per line of a 32-thread access
  uint32_t mshrs = 256;        // outstanding L1 misses at most
  uint32_t max_tbs = 32;       // TBs per SM
  uint32_t num_sms = 30;       // KSRT entries (a kernel's index)
  uint32_t kernels = 2;        // kernels sharing an SM (TB-mix entries)
};

// One SM's counters as read at some cycle, cumulative since the start (a window is the difference
// of two readings; the hardware clears them instead).
struct SmCounterReading {
  uint64_t cycle = 0, instructions = 0, l1_misses = 0, mem_stall_cycles = 0, outstanding = 0;
};

// One SM's counters: I, C, L1 misses, M (memory stall cycles), A (outstanding misses summed
// over the memory stall cycles).
inline FieldLayout profiling_counters_layout(const SharingHwParams& p) {
  const uint64_t w = p.window_cycles + 1;
  return {{"instructions", bits_for(w * p.issue_width)}, {"cycles", bits_for(w)},
          {"l1_misses", bits_for(w * p.warp_size)}, {"mem_stall_cycles", bits_for(w)},
          {"outstanding", bits_for(w * (p.mshrs + 1))}};
}

// One entry per kernel sharing the SM: its KSRT index and the most TBs it may hold.
inline FieldLayout tb_mix_layout(const SharingHwParams& p) {
  return {{"ksrt_index", bits_for(p.num_sms)}, {"max_tbs", bits_for(p.max_tbs + 1)}};
}

}  // namespace mpgpu
