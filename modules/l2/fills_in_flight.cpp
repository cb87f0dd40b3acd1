#include "l2/fills_in_flight.hpp"

#include <algorithm>
#include <stdexcept>

namespace mpgpu {

FillsInFlight::FillsInFlight(uint32_t sets, uint32_t ways) : ways_(ways), evicted_(sets) {
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
  const EvictedList& l = evicted_[set];
  if (l.fills.size() >= 2 * std::max(l.kept, size_t(ways_))) sweep_evicted(set, now);
  evicted_[set].fills.push_back({line, fill});
  const uint32_t b = filter_bit(line);
  record(set)[kEvictedFilter + (b >> 6)] |= uint64_t{1} << (b & 63);
}

bool FillsInFlight::scan_evicted(uint32_t set, uint64_t line, uint64_t now, uint64_t& fill) {
  std::vector<EvictedFill>& list = evicted_[set].fills;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].line != line) continue;
    const uint64_t f = list[i].fill;
    list[i] = list.back();  // its filter bit stays until the list is next swept
    list.pop_back();
    if (f <= now) return false;  // done: as if it had left when it was done
    fill = f;
    return true;
  }
  // Not there (the filter's other lines): the whole list was read, so it is swept too.
  sweep_evicted(set, now);
  return false;
}

void FillsInFlight::sweep_evicted(uint32_t set, uint64_t now) {
  std::vector<EvictedFill>& list = evicted_[set].fills;
  for (size_t i = 0; i < list.size();) {
    if (list[i].fill <= now) {
      list[i] = list.back();
      list.pop_back();
    } else {
      ++i;
    }
  }
  evicted_[set].kept = list.size();
  uint64_t* r = record(set);
  r[kEvictedFilter] = r[kEvictedFilter + 1] = 0;
  for (const EvictedFill& e : list) {
    const uint32_t b = filter_bit(e.line);
    r[kEvictedFilter + (b >> 6)] |= uint64_t{1} << (b & 63);
  }
}

}  // namespace mpgpu
