#pragma once
// The integral over time of how many intervals [start, end) are open: the MSHR file's
// outstanding-miss count summed cycle by cycle, which MIAS's "A" counter accumulates over memory
// stall cycles (SPEC 5). The loosely timed L1 knows each miss's send and fill cycles up front,
// so an interval is added whole; the integral is read at non-decreasing times. Part of an
// interval added before the last read time counts from that time on (the counter cannot go back).
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace mpgpu {

class OccupancyIntegral {
 public:
  void add(uint64_t start, uint64_t end) {
    if (start < at_) start = at_;
    if (end <= start) return;
    events_.push({start, +1});
    events_.push({end, -1});
  }
  // The integral from cycle 0 to `t` (t no earlier than the previous call's).
  uint64_t integral_to(uint64_t t) {
    if (t < at_) t = at_;
    while (!events_.empty() && events_.top().first <= t) {
      const auto [when, delta] = events_.top();
      events_.pop();
      integral_ += open_ * (when - at_);
      at_ = when;
      open_ += delta;
    }
    integral_ += open_ * (t - at_);
    at_ = t;
    return integral_;
  }
  uint64_t open() const { return open_; }  // as of the last read

 private:
  using Event = std::pair<uint64_t, int64_t>;  // (cycle, +1 opens / -1 closes)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t at_ = 0, integral_ = 0;
  uint64_t open_ = 0;
};

}  // namespace mpgpu
