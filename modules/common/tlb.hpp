#pragma once
// A translation look-aside buffer as a functional core (the SM's L1 TLB, the fill unit's L2 TLB):
// set-associative entries tagged by (context, virtual page) with LRU, entries valid from their
// fill time, and MSHRs that merge misses to a page already being translated. Times are cycles of
// the owner's clock; the loosely timed model knows each fill time when the miss is sent.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/divisor.hpp"
#include "common/release_times.hpp"

namespace mpgpu {

struct TlbParams {
  uint32_t entries = 32, ways = 8;
  uint32_t latency = 1;  // cycles of a lookup
  uint32_t mshrs = 32;   // outstanding misses to distinct pages
  uint32_t sets() const { return entries / ways; }
};

struct TlbStats {
  uint64_t accesses = 0, hits = 0, misses = 0, merged = 0;
  uint64_t mshr_full_waits = 0;
};

class Tlb {
 public:
  explicit Tlb(const TlbParams& p);

  enum class Outcome { hit, merged, miss };
  struct Lookup {
    Outcome outcome;
    uint64_t ready;  // hit: the lookup's end; merged: the pending translation's end
    uint64_t frame;  // hit, merged: the physical page
  };
  // Looks (context, vpn) up at cycle `at`; a hit refreshes LRU. Counts the access.
  Lookup lookup(uint32_t context, uint64_t vpn, uint64_t at);
  // Earliest cycle >= at when an MSHR is free for a new miss.
  uint64_t mshr_free_at(uint64_t at);
  // Records a miss sent at `at` and translated at `ready` to `frame`: holds an MSHR until then and
  // installs the entry valid from `ready`.
  void fill(uint32_t context, uint64_t vpn, uint64_t frame, uint64_t at, uint64_t ready);

  const TlbParams& params() const { return p_; }
  const TlbStats& stats() const { return stats_; }

 private:
  struct Entry {
    uint64_t key = ~uint64_t{0};
    uint64_t frame = 0;
    uint64_t ready = 0;     // valid from this cycle
    uint64_t last_use = 0;  // LRU stamp
  };
  // Contexts get the top 16 bits: virtual page numbers of a 57-bit space fit below.
  static uint64_t key_of(uint32_t context, uint64_t vpn) { return uint64_t{context} << 48 | vpn; }
  Entry* set_of(uint64_t key) { return &entries_[size_t(set_count_.mod(key)) * p_.ways]; }

  TlbParams p_;
  uint32_t sets_;
  Divisor set_count_;  // no division per lookup when a power of two
  std::vector<Entry> entries_;
  ReleaseTimes<uint64_t> mshr_release_;  // when each MSHR in use is freed
  uint64_t stamp_ = 0;
  TlbStats stats_;
};

}  // namespace mpgpu
