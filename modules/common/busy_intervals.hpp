#pragma once
// Reservation table of one resource (a DRAM command or data bus, a tCCD/tRRD window, a crossbar
// port, a tag port) in integer time units. Unlike the monotone OccupancyCalendar it keeps the
// gaps, so a request booked later can still take a slot before requests booked earlier: loosely
// timed callers arrive out of time order (a reply booked far ahead by a queued DRAM access must
// not hold up an earlier one), and the DRAM core back-fills for bank parallelism and row hits.
// Stored as sorted, disjoint, non-adjacent busy intervals: memory grows with the number of gaps
// still ahead of the forget point, never with the time span covered (a port booked once at the
// start and once a second later holds two intervals, where a bitmap would hold 10^9 bits).
// Cycles before the forget point count as free.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace mpgpu {

class BusyIntervals {
 public:
  // Earliest s >= t such that [s, s + len) overlaps nothing booked.
  uint64_t earliest(uint64_t t, uint64_t len) const {
    if (len == 0 || t >= end_) return t;  // past every booking: the common in-order case
    uint64_t s = t;
    for (size_t i = first_ending_after(t); i < iv_.size(); ++i) {
      if (iv_[i].start >= s + len) return s;  // the gap before interval i holds it
      s = std::max(s, iv_[i].end);
    }
    return s;
  }

  // Books [s, s + len), which must be free.
  void book(uint64_t s, uint64_t len) {
    if (len == 0) return;
    if (s < forgotten_) {  // the forgotten past counts as free: keep only what lies after it
      if (s + len <= forgotten_) return;
      len -= forgotten_ - s;
      s = forgotten_;
    }
    const uint64_t e = s + len;
    if (e > end_) end_ = e;
    // The common case: at or after the last interval (appended, or merged into it).
    if (head_ == iv_.size() || s >= iv_.back().end) {
      if (head_ < iv_.size() && iv_.back().end == s)
        iv_.back().end = e;
      else
        iv_.push_back({s, e});
      return;
    }
    // Out of order: the first interval ending at or after s; merge with touching neighbours.
    size_t i = first_ending_after(s == 0 ? 0 : s - 1);
    if (i < iv_.size() && iv_[i].end == s) {  // touches the interval before
      iv_[i].end = e;
      if (i + 1 < iv_.size() && iv_[i + 1].start == e) {
        iv_[i].end = iv_[i + 1].end;
        iv_.erase(iv_.begin() + long(i + 1));
      }
      return;
    }
    if (i < iv_.size() && iv_[i].start == e) {  // touches the interval after
      iv_[i].start = s;
      return;
    }
    iv_.insert(iv_.begin() + long(i), {s, e});
  }

  // Forgets bookings before t.
  void forget_before(uint64_t t) {
    if (t <= forgotten_) return;
    forgotten_ = t;
    while (head_ < iv_.size() && iv_[head_].end <= t) ++head_;
    if (head_ < iv_.size() && iv_[head_].start < t) iv_[head_].start = t;
    if (head_ > 32 && head_ * 2 > iv_.size()) {  // amortized: compact once the dead prefix dominates
      iv_.erase(iv_.begin(), iv_.begin() + long(head_));
      head_ = 0;
    }
  }

  // Maximal runs of busy cycles (tests, memory checks).
  size_t intervals() const { return iv_.size() - head_; }
  uint64_t end() const { return end_; }  // end of the latest booking

 private:
  struct Interval {
    uint64_t start, end;  // [start, end)
  };
  // Index of the first live interval whose end is after t (iv_.size() if none).
  size_t first_ending_after(uint64_t t) const {
    const auto it = std::upper_bound(iv_.begin() + long(head_), iv_.end(), t,
                                     [](uint64_t v, const Interval& x) { return v < x.end; });
    return size_t(it - iv_.begin());
  }

  std::vector<Interval> iv_;  // iv_[head_, size) are live, sorted, disjoint, never touching
  size_t head_ = 0;
  uint64_t end_ = 0;
  uint64_t forgotten_ = 0;  // bookings before this were dropped
};

}  // namespace mpgpu
