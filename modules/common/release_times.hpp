#pragma once
// When each held entry of a small resource (an L1 or TLB's MSHRs in cycles, the L2's MSHRs and
// a set's ways as sc_time) is released, earliest first: a sorted vector whose released front is
// skipped, not a binary heap. Releases are booked mostly
// in time order (fills come back in about the order they were sent), so a booking lands at or
// near the end, and the releases due by a time leave from the front: no sift per operation.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpgpu {

template <class Time>
class ReleaseTimes {
 public:
  // Drops every release at or before t.
  void release_until(const Time& t) {
    while (head_ < times_.size() && times_[head_] <= t) ++head_;
    if (head_ == times_.size()) {
      times_.clear();
      head_ = 0;
    } else if (head_ > 64 && 2 * head_ > times_.size()) {  // amortized: the front goes in bulk
      times_.erase(times_.begin(), times_.begin() + std::ptrdiff_t(head_));
      head_ = 0;
    }
  }
  void add(const Time& t) {
    size_t i = times_.size();
    while (i > head_ && times_[i - 1] > t) --i;
    times_.insert(times_.begin() + std::ptrdiff_t(i), t);
  }
  size_t size() const { return times_.size() - head_; }
  bool empty() const { return size() == 0; }
  const Time& earliest() const { return times_[head_]; }  // not empty()
  const Time& latest(size_t k) const { return times_[times_.size() - 1 - k]; }  // k < size(): the (k+1)-th latest

 private:
  std::vector<Time> times_;  // sorted; [0, head_) released
  size_t head_ = 0;
};

}  // namespace mpgpu
