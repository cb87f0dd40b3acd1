#pragma once
// Reservation table of one channel resource (command bus, tCCD/tRRD windows, data bus) in
// cycles. Unlike the monotone OccupancyCalendar it keeps the gaps, so a request served later
// can still take a slot before requests served earlier: the loosely-timed DRAM core needs that
// for bank-level parallelism and row-hit back-filling.
#include <cstdint>
#include <iterator>
#include <map>

namespace mpgpu {

class BusyIntervals {
 public:
  // Earliest s >= t such that [s, s + len) overlaps nothing booked.
  uint64_t earliest(uint64_t t, uint64_t len) const {
    if (len == 0) return t;
    if (len != cursor_len_) cursor_len_ = len, no_fit_before_ = 0;
    const bool from_cursor = t <= no_fit_before_;
    uint64_t s = from_cursor ? no_fit_before_ : t;
    auto next = busy_.upper_bound(s);
    if (next != busy_.begin() && std::prev(next)->second > s) s = std::prev(next)->second;
    for (; next != busy_.end() && next->first < s + len; ++next) s = next->second;
    if (from_cursor) no_fit_before_ = s;
    return s;
  }

  // Books [s, s + len), which must be free; touching intervals merge to keep the table short.
  void book(uint64_t s, uint64_t len) {
    if (len == 0) return;
    uint64_t e = s + len;
    auto next = busy_.lower_bound(s);
    if (next != busy_.end() && next->first == e) {
      e = next->second;
      next = busy_.erase(next);
    }
    if (next != busy_.begin() && std::prev(next)->second == s) {
      std::prev(next)->second = e;
      return;
    }
    busy_.emplace_hint(next, s, e);
  }

  // Drops what ends at or before t: nothing is booked before t any more.
  void forget_before(uint64_t t) {
    while (!busy_.empty() && busy_.begin()->second <= t) busy_.erase(busy_.begin());
  }

  size_t intervals() const { return busy_.size(); }
  uint64_t end() const { return busy_.empty() ? 0 : busy_.rbegin()->second; }

 private:
  std::map<uint64_t, uint64_t> busy_;  // start -> end; disjoint, not touching
  // Every gap starting before no_fit_before_ is shorter than cursor_len_. Booking only shrinks
  // gaps, so this stays true and a saturated table is not rescanned from the start each time.
  mutable uint64_t cursor_len_ = 0, no_fit_before_ = 0;
};

}  // namespace mpgpu
