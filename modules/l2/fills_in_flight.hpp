#pragma once
// The L2 slice's misses in flight, per set, kept in one record of adjacent cache lines per set
// (with hundreds of SMs the L2's sets are cold at each access, and each separate block read is a
// host cache miss; three per-set vectors took a third of the 320-SM run's last-level misses):
//  - each way's pending fill: a request merging into a line on its way finds it by the tag lookup;
//  - the set's latest `ways` fills still pending, earliest first in a ring: a miss needs a way not
//    awaiting a fill, and only the ways-th latest of them decides when one is free (any earlier
//    fill is done by the time that one is, so it is never asked for and is not kept). A new
//    miss's fill is mostly the latest: it goes in at the ring's end, and the earliest leaves from
//    its head, so a miss reads the two ends rather than shifting the ways' times;
//  - a 128-bit filter of the lines evicted while their fill was still on its way, and where their
//    list is (its storage, length, capacity, length at its last sweep): in the record's first
//    line, so an eviction writes only the list's end besides it (a congested 320-SM run evicts a
//    line in flight on nearly every miss; a per-set list header of its own was one more cold line
//    each time). The lines themselves are read only when the filter may hold the line asked for.
//    Fills done by then leave the list when all of it is read (a line not found, or the list
//    grown to twice what its last sweep kept, and at least twice the ways), not when they are
//    done: such an entry can no longer be taken (a take answers only with fills after `now`), and
//    a line has at most one entry (it is taken out before its line is allocated again), so the
//    answers are those of a list swept on every take. Sweeping at a doubling rather than at a
//    fixed length keeps it linear when a congested memory holds more lines in flight than that
//    (a 320-SM memory-bound run: about 30 per set, and a sweep on nearly every eviction).
// Times are sc_time raw values (the same order as the sc_time comparisons they replace).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace mpgpu {

class FillsInFlight {
 public:
  FillsInFlight(uint32_t sets, uint32_t ways);

  // The pending fill of way `w` of `set` (0: none).
  uint64_t& way_fill(uint32_t set, uint32_t w) { return record(set)[way_fills_at_ + w]; }

  // Earliest time >= at at which fewer than `ways` of the set's fills are pending, forgetting
  // fills done by `now` (no request arrives before now); *waited set when that is later than at.
  uint64_t way_free_at(uint32_t set, uint64_t at, uint64_t now, bool& waited);
  // A miss of `set` holds a way until `fill`.
  void hold_way(uint32_t set, uint64_t fill);

  // `line`, whose fill comes at `fill` (after `now`), lost its way to another miss.
  void evict(uint32_t set, uint64_t line, uint64_t fill, uint64_t now);
  // Takes `line` out of the set's evicted lines: true when its fill comes after `now` (*fill),
  // the answer a list dropping every fill as soon as it is done would give.
  bool take_evicted(uint32_t set, uint64_t line, uint64_t now, uint64_t& fill) {
    const uint64_t* r = record(set);
    const uint32_t b = filter_bit(line);
    if (!(r[kEvictedFilter + (b >> 6)] >> (b & 63) & 1)) return false;  // not in the list
    return scan_evicted(set, line, now, fill);
  }
  size_t held(uint32_t set) { return size_t(record(set)[kHeld]); }     // tests: fills kept (<= ways)
  size_t evicted_kept(uint32_t set) const { return size_t(record(set)[kEvictedCount] & kLow); }  // tests: done ones too

 private:
  // Record layout, in words: the filter; the evicted list's storage, its length (low half) and
  // capacity (high half), and its length at its last sweep; the held count and the ring's head;
  // the held fills (a ring of `ways`, earliest first from the head); the ways' fills. A hit reads
  // the first line and its way's; a miss the ends of the held fills too.
  static constexpr size_t kEvictedFilter = 0, kEvictedAt = 2, kEvictedCount = 3, kEvictedSwept = 4, kHeld = 5,
                          kHeldHead = 6, kHeldFills = 7;
  static constexpr uint64_t kLow = 0xffffffff;  // a record word's low half (the evicted list's length)
  // The ring's k-th slot from `head` (k <= ways: a one-way ring's next slot is its head).
  size_t slot(size_t head, size_t k) const { return head + k >= ways_ ? head + k - ways_ : head + k; }
  static uint32_t filter_bit(uint64_t line) { return uint32_t((line ^ (line >> 7) ^ (line >> 14)) & 127); }
  void add_to_filter(uint64_t* r, uint64_t line) const {
    const uint32_t b = filter_bit(line);
    r[kEvictedFilter + (b >> 6)] |= uint64_t{1} << (b & 63);
  }
  uint64_t* record(uint32_t set) { return words_.data() + base_ + size_t(set) * stride_; }
  const uint64_t* record(uint32_t set) const { return words_.data() + base_ + size_t(set) * stride_; }
  bool scan_evicted(uint32_t set, uint64_t line, uint64_t now, uint64_t& fill);
  // Drops the evicted lines whose fill is done by `now`; the filter is rebuilt from what stays.
  void sweep_evicted(uint32_t set, uint64_t now);

  struct EvictedFill {
    uint64_t line, fill;
  };
  EvictedFill* evicted(const uint64_t* r) const { return reinterpret_cast<EvictedFill*>(r[kEvictedAt]); }
  uint32_t ways_;
  size_t way_fills_at_, stride_;  // in words
  std::vector<uint64_t> words_;  // the records, from the first 64-byte boundary
  size_t base_ = 0;
  // Per set: the evicted list's storage (its address, length and capacity are in the record).
  std::vector<std::unique_ptr<EvictedFill[]>> evicted_store_;
};

}  // namespace mpgpu
