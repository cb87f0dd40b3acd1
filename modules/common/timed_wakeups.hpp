#pragma once
// The times the processes other than the SM calendar (the host's threads, the block scheduler)
// asked the SystemC kernel to wake them at: a lower bound on their next activity, for the SMs'
// run-ahead (sm/sm_calendar.hpp). The kernel can say the same (sc_time_to_pending_activity), but
// asking it drops cancelled notifications from its event heap early, which reorders events due at
// one time and so changed results. A time stays until it passes, even when its notification was
// replaced by an earlier one: the bound is then early, never late.
#include <systemc>

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace mpgpu {

class TimedWakeups {
 public:
  static constexpr uint64_t kNone = ~uint64_t{0};
  // Recording starts when run-ahead is enabled (nothing reads the times otherwise).
  void start() { on_ = true; }
  // A timed notification or wait made now, `delay` ahead.
  void after(const sc_core::sc_time& delay) {
    if (on_) at_.push(sc_core::sc_time_stamp().value() + delay.value());
  }
  // The earliest time recorded after `now` (sc_time values; kNone: none). Times up to now have
  // either fired (their process is runnable now or has run) or were replaced.
  uint64_t next_after(uint64_t now) {
    while (!at_.empty() && at_.top() <= now) at_.pop();
    return at_.empty() ? kNone : at_.top();
  }

 private:
  bool on_ = false;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> at_;
};

}  // namespace mpgpu
