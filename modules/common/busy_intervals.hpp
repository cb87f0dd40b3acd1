#pragma once
// Reservation table of one resource (a DRAM command or data bus, a tCCD/tRRD window, a crossbar
// port) in integer time units. Unlike the monotone OccupancyCalendar it keeps the gaps, so a
// request booked later can still take a slot before requests booked earlier: loosely timed
// callers arrive out of time order (a reply booked far ahead by a queued DRAM access must not
// hold up an earlier one), and the DRAM core back-fills for bank parallelism and row hits.
// Stored as a bitmap of busy cycles from a moving base (one bit per cycle, 64 per word): the
// booked schedule is short and dense, so searching words beats walking a tree of intervals.
// Cycles before the base (forgotten) count as free.
#include <algorithm>
#include <cstdint>
#include <deque>

namespace mpgpu {

class BusyIntervals {
 public:
  // Earliest s >= t such that [s, s + len) overlaps nothing booked.
  uint64_t earliest(uint64_t t, uint64_t len) const {
    if (len == 0 || t >= end_) return t;  // past every booking: the common in-order case
    uint64_t s = t;
    for (;;) {
      s = next_free(s);
      const uint64_t b = next_busy(s, s + len);
      if (b == s + len) return s;
      s = b;
    }
  }

  // Books [s, s + len), which must be free.
  void book(uint64_t s, uint64_t len) {
    if (len == 0) return;
    if (words_.empty()) base_ = std::max(s, forgotten_) & ~uint64_t{63};
    if (s < forgotten_) {  // the forgotten past counts as free: keep only what lies after it
      if (s + len <= forgotten_) return;
      len -= forgotten_ - s;
      s = forgotten_;
    }
    while (s < base_) {  // an earlier gap: grow the bitmap at the front
      words_.push_front(0);
      base_ -= 64;
    }
    const uint64_t e = s + len;
    while (base_ + 64 * words_.size() < e) words_.push_back(0);
    for (uint64_t c = s; c < e;) {
      const uint64_t w = (c - base_) >> 6, off = (c - base_) & 63;
      const uint64_t n = std::min<uint64_t>(64 - off, e - c);
      const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << off;
      words_[w] |= mask;
      c += n;
    }
    if (e > end_) end_ = e;
  }

  // Forgets bookings that ended by t (whole words before t).
  void forget_before(uint64_t t) {
    if (t > forgotten_) forgotten_ = t;
    while (!words_.empty() && base_ + 64 <= t) {
      words_.pop_front();
      base_ += 64;
    }
    if (!words_.empty() && t > base_) words_.front() &= ~((uint64_t{1} << (t - base_)) - 1);
  }

  // Maximal runs of busy cycles (for tests).
  size_t intervals() const {
    size_t runs = 0;
    bool prev = false;
    for (uint64_t c = base_; c < base_ + 64 * words_.size(); ++c) {
      const bool b = busy(c);
      runs += b && !prev;
      prev = b;
    }
    return runs;
  }
  uint64_t end() const { return end_; }  // end of the latest booking

 private:
  bool busy(uint64_t c) const {
    if (c < base_) return false;
    const uint64_t w = (c - base_) >> 6;
    return w < words_.size() && ((words_[w] >> ((c - base_) & 63)) & 1);
  }
  // First busy cycle in [from, limit), or limit.
  uint64_t next_busy(uint64_t from, uint64_t limit) const {
    uint64_t c = from < base_ ? base_ : from;
    while (c < limit) {
      const uint64_t w = (c - base_) >> 6;
      if (w >= words_.size()) return limit;
      const uint64_t bits = words_[w] >> ((c - base_) & 63);
      if (bits) {
        const uint64_t hit = c + __builtin_ctzll(bits);
        return hit < limit ? hit : limit;
      }
      c = base_ + ((w + 1) << 6);
    }
    return limit;
  }
  // First free cycle at or after `from`.
  uint64_t next_free(uint64_t from) const {
    uint64_t c = from;
    while (c >= base_) {
      const uint64_t w = (c - base_) >> 6;
      if (w >= words_.size()) return c;
      const uint64_t bits = ~words_[w] >> ((c - base_) & 63);
      if (bits) return c + __builtin_ctzll(bits);
      c = base_ + ((w + 1) << 6);
    }
    return c;
  }

  std::deque<uint64_t> words_;
  uint64_t base_ = 0;  // cycle of words_[0] bit 0, a multiple of 64
  uint64_t end_ = 0;
  uint64_t forgotten_ = 0;  // bookings before this were dropped
};

}  // namespace mpgpu
