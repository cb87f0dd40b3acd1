#pragma once
// The SM's L1 data cache as a functional core: set-associative tags with LRU, lines that become
// valid at their fill time, and MSHRs that merge misses to a line already being fetched. Times
// are SM core cycles; the loosely timed model knows each fill time when the miss is sent.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/divisor.hpp"
#include "common/release_times.hpp"
#include "sm/occupancy_integral.hpp"

namespace mpgpu {

struct L1dParams {
  uint32_t sets = 32, ways = 4, line_bytes = 128, mshrs = 64, latency = 35;
  enum class WritePolicy { write_evict, write_through } write_policy = WritePolicy::write_evict;
  bool bypass_global_loads = false;  // Kepler/Pascal: global loads skip L1 (still MSHR-limited)
  bool cache_local = true;           // local-memory loads (spills, LDL) use L1 even when global loads bypass it
};

class L1dCache {
 public:
  explicit L1dCache(const L1dParams& p);

  enum class Outcome { hit, merged, miss };
  struct Lookup {
    Outcome outcome;
    uint64_t ready;  // hit: at; merged: the pending fill's time
  };
  // Looks `line` up at cycle `at` (a hit refreshes LRU).
  Lookup lookup(uint64_t line, uint64_t at);
  // Earliest cycle >= at when an MSHR is free for a new miss.
  uint64_t mshr_free_at(uint64_t at);
  // Records a miss sent at `at` whose fill arrives at `fill`: holds an MSHR until then and, unless
  // `allocate` is false (bypass), installs the line valid from `fill`.
  void miss(uint64_t line, uint64_t at, uint64_t fill, bool allocate);
  // A store: write-evict drops the line, write-through keeps it (the data goes on to L2 either way).
  void store(uint64_t line);

  const L1dParams& params() const { return p_; }
  uint64_t hits() const { return hits_; }
  uint64_t merged() const { return merged_; }
  uint64_t misses() const { return misses_; }
  uint64_t mshr_busy_cycles() const { return mshr_busy_; }  // sum of MSHR hold times
  uint64_t mshr_full_waits() const { return mshr_full_; }
  // MIAS's counter A (SPEC 5) needs the outstanding misses integrated over time: kept only when
  // asked for (two heap operations per miss).
  void track_outstanding() { track_ = true; }
  bool tracks_outstanding() const { return track_; }
  uint64_t outstanding_integral(uint64_t t) { return outstanding_.integral_to(t); }

 private:
  struct Way {
    uint64_t line = ~uint64_t{0};
    uint64_t fill = 0;      // valid from this cycle
    uint64_t last_use = 0;  // LRU stamp
  };
  Way* find(uint64_t line);
  uint32_t set_of(uint64_t line) const { return static_cast<uint32_t>(set_count_.mod(line)); }

  L1dParams p_;
  // Ways of each set, grown on first use up to p_.ways: memory follows the lines touched, not
  // the configured capacity (a 4096-set x 512-way L1 allocated up front took 50 MB per SM).
  std::vector<std::vector<Way>> sets_;
  Divisor set_count_;  // no division per lookup when a power of two
  // Ways holding a line. None (global loads bypass the L1 and nothing else was cached): a
  // lookup or a store's eviction has nothing to look at, and skips the set (at 320 SMs reading
  // it missed the cache on every store).
  uint64_t resident_ = 0;
  ReleaseTimes<uint64_t> mshr_release_;  // when each MSHR in use is freed
  uint64_t stamp_ = 0;
  bool track_ = false;
  OccupancyIntegral outstanding_;
  uint64_t hits_ = 0, merged_ = 0, misses_ = 0, mshr_busy_ = 0, mshr_full_ = 0;
};

}  // namespace mpgpu
