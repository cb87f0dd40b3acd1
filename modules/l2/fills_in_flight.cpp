#include "l2/fills_in_flight.hpp"

#include <algorithm>
#include <stdexcept>

namespace mpgpu {

FillsInFlight::FillsInFlight(uint32_t sets, uint32_t ways) : ways_(ways), evicted_store_(sets) {
  if (ways == 0) throw std::invalid_argument("fills in flight: ways must be at least 1");
  way_fills_at_ = kHeldFills + ways;
  stride_ = (way_fills_at_ + ways + 7) / 8 * 8;  // whole 64-byte lines
  words_.assign(size_t(sets) * stride_ + 8, 0);
  base_ = (64 - reinterpret_cast<uintptr_t>(words_.data()) % 64) % 64 / 8;
}

uint64_t FillsInFlight::way_free_at(uint32_t set, uint64_t at, uint64_t now, bool& waited) {
  uint64_t* r = record(set);
  const uint64_t* held = r + kHeldFills;
  uint64_t &n = r[kHeld], &head = r[kHeldHead];
  while (n > 0 && held[head] <= now) head = slot(head, 1), --n;  // earliest first: the done ones lead
  if (n < ways_) return at;
  // `ways` or more pending after `at` is the ways-th latest fill (the earliest kept) being after
  // it, and that fill is when enough of them are done to leave a way free.
  const uint64_t frees = held[head];
  if (frees <= at) return at;
  waited = true;
  return frees;
}

void FillsInFlight::hold_way(uint32_t set, uint64_t fill) {
  uint64_t* r = record(set);
  uint64_t* held = r + kHeldFills;
  uint64_t &n = r[kHeld], &head = r[kHeldHead];
  if (n == ways_) {
    if (fill <= held[head]) return;  // no later than the `ways` kept: never the one that decides
    head = slot(head, 1), --n;          // the earliest drops out
  }
  // Sorted insert from the latest end: a new miss's fill is mostly the latest, stored in place.
  size_t i = n, at = slot(head, i);
  for (size_t before; i > 0 && held[before = slot(head, i - 1)] > fill; --i, at = before) held[at] = held[before];
  held[at] = fill;
  ++n;
}

void FillsInFlight::evict(uint32_t set, uint64_t line, uint64_t fill, uint64_t now) {
  // Fills done by then stay until the list is read; a list doubled since its last sweep (and at
  // least twice the ways) is swept here first.
  uint64_t* r = record(set);
  if ((r[kEvictedCount] & kLow) >= 2 * std::max(r[kEvictedSwept], uint64_t{ways_})) sweep_evicted(set, now);
  uint64_t n = r[kEvictedCount] & kLow, capacity = r[kEvictedCount] >> 32;
  if (n == capacity) {  // grows by doubling, as a vector would
    capacity = std::max<uint64_t>(2 * capacity, 8);
    auto grown = std::make_unique<EvictedFill[]>(capacity);
    std::copy_n(evicted(r), n, grown.get());
    evicted_store_[set] = std::move(grown);
    r[kEvictedAt] = reinterpret_cast<uintptr_t>(evicted_store_[set].get());
  }
  evicted(r)[n] = {line, fill};
  r[kEvictedCount] = capacity << 32 | (n + 1);
  add_to_filter(r, line);
}

bool FillsInFlight::scan_evicted(uint32_t set, uint64_t line, uint64_t now, uint64_t& fill) {
  uint64_t* r = record(set);
  EvictedFill* list = evicted(r);
  const uint64_t n = r[kEvictedCount] & kLow;
  for (uint64_t i = 0; i < n; ++i) {
    if (list[i].line != line) continue;
    const uint64_t f = list[i].fill;
    list[i] = list[n - 1];  // its filter bit stays until the list is next swept
    --r[kEvictedCount];
    if (f <= now) return false;  // done: as if it had left when it was done
    fill = f;
    return true;
  }
  // Not there (the filter's other lines): the whole list was read, so it is swept too.
  sweep_evicted(set, now);
  return false;
}

void FillsInFlight::sweep_evicted(uint32_t set, uint64_t now) {
  uint64_t* r = record(set);
  EvictedFill* list = evicted(r);
  uint64_t n = r[kEvictedCount] & kLow;
  r[kEvictedFilter] = r[kEvictedFilter + 1] = 0;
  for (uint64_t i = 0; i < n;) {
    if (list[i].fill <= now) {
      list[i] = list[--n];
    } else {
      add_to_filter(r, list[i++].line);
    }
  }
  r[kEvictedCount] = (r[kEvictedCount] & ~kLow) | n;
  r[kEvictedSwept] = n;
}

}  // namespace mpgpu
