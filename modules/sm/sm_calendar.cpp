#include "sm/sm_calendar.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgpu {

SmCalendar::SmCalendar(sc_core::sc_module_name name) : sc_module(name) {
  SC_METHOD(run);  // runs at initialization: every client is first due at time 0
}

uint32_t SmCalendar::add(Client* c) {
  const uint32_t i = static_cast<uint32_t>(clients_.size());
  clients_.push_back(c);
  due_.push_back(kNone);
  batch_.resize((clients_.size() + 63) / 64, 0);
  running_.resize(batch_.size(), 0);
  file(i, 0);
  return i;
}

void SmCalendar::wake_later(uint32_t i, uint64_t at, const sc_core::sc_time& delay) {
  file(i, at);
  // While it runs, the calendar notifies itself when done; otherwise a pending notification no
  // later than `at` wakes it in time.
  if (in_run_ || (notified_ != kNone && notified_ <= at)) return;
  event_.notify(delay);
  notified_ = at;
}

void SmCalendar::run() {
  now_ = sim_now();
  const uint64_t now = now_.value();
  const uint32_t n = static_cast<uint32_t>(clients_.size());
  notified_ = kNone;
  in_run_ = true;
  do {  // again if a client was asked for now while the others ran
    again_ = false;
    bool any = false;
    if (batch_at_ == now) {
      running_.swap(batch_);  // batch_ is now the all-clear running_
      batch_at_ = kNone;
      any = true;
    }
    for (; !later_.empty() && later_.top().at <= now; later_.pop()) {
      const Due& d = later_.top();
      if (due_[d.client] != d.at) continue;  // asked for earlier since, and served
      running_[d.client >> 6] |= uint64_t{1} << (d.client & 63);
      any = true;
    }
    if (!any) continue;
    // From the rotating start to the last client, then from the first.
    const uint32_t start = step_start_;
    step_start_ = step_start_ + 1 == n ? 0 : step_start_ + 1;
    auto run_range = [&](uint32_t from, uint32_t to) {
      for (uint32_t w = from >> 6; w << 6 < to; ++w) {
        uint64_t m = running_[w];
        if (w == from >> 6) m &= ~uint64_t{0} << (from & 63);
        if ((w + 1) << 6 > to) m &= (uint64_t{1} << (to & 63)) - 1;
        running_[w] &= ~m;  // all clear again once both ranges ran
        for (; m; m &= m - 1) {
          const uint32_t i = (w << 6) + uint32_t(__builtin_ctzll(m));
          if (due_[i] != now) continue;  // asked for earlier since, and served
          due_[i] = kNone;
          ++steps_;
          clients_[i]->activate();
        }
      }
    };
    run_range(start, n);
    run_range(0, start);
  } while (again_);
  if (ahead_ && others_ && now >= next_try_) try_run_ahead();
  in_run_ = false;
  while (!later_.empty() && due_[later_.top().client] != later_.top().at) later_.pop();
  uint64_t next = batch_at_;
  if (!later_.empty()) next = std::min(next, later_.top().at);
  if (next != kNone) {
    event_.notify(clock_detail::from_value(next - now));
    notified_ = next;
  }
  next_trigger(event_);
}

void SmCalendar::check_others(uint64_t recorded) {
  // The kernel's own look at its queue (which reorders same-time events: check runs only).
  const sc_core::sc_time gap = sc_core::sc_time_to_pending_activity();
  if (gap == sc_core::sc_max_time() - now_) return;  // nothing pending
  const uint64_t next = now_.value() + gap.value();
  if (next < recorded)
    throw SimError(fmt::format("internal: run-ahead check: the SystemC kernel has an event at time value {} that no "
                               "process recorded (earliest recorded: {})",
                               next, recorded == TimedWakeups::kNone ? std::string("none") : std::to_string(recorded)));
}

void SmCalendar::try_run_ahead() {
  const uint64_t now = now_.value();
  const uint32_t n = static_cast<uint32_t>(clients_.size());
  auto give_up = [&] {
    next_try_ = now + ahead_clock_.cycles(double(backoff_)).value();
    backoff_ = std::min(backoff_ * 2, kMaxBackoff);
  };
  // Another process runs at this time (a report or dispatch made just now wakes it): its effects
  // may reach any SM, so no SM may move past it.
  if (sc_core::sc_pending_activity_at_current_time()) return give_up();
  const uint64_t c0 = ahead_clock_.to_cycles_ceil(now_);
  if (ahead_clock_.cycles(double(c0)).value() != now) return;  // between edges (another clock's time)
  // The horizon: cycles before it are run ahead. The next other process's wake-up, at cycle e,
  // must still find the calendar running cycle by cycle from e - 1 on, as without run-ahead.
  uint64_t until = std::min(c0 + kMaxAhead, ahead_clock_.to_cycles_ceil(ahead_end_));  // nothing at or past the end
  const uint64_t other = others_->next_after(now);
  if (check_others_) check_others(other);
  if (other != TimedWakeups::kNone) {
    const uint64_t e = ahead_clock_.to_cycles_ceil(clock_detail::from_value(other));
    until = std::min(until, e > 0 ? e - 1 : 0);
  }
  for (uint32_t i = 0; i < n && until > c0 + kMinAhead; ++i) {
    const uint64_t own = clients_[i]->private_until(c0 + kMinAhead + 1);
    if (own == kNever) {  // idle: a wake-up it still has (nothing to do then) is a time to run at
      if (due_[i] != kNone) until = std::min(until, ahead_clock_.to_cycles(clock_detail::from_value(due_[i])));
    } else {
      until = std::min(until, own);
    }
  }
  if (until <= c0 + kMinAhead) return give_up();
  backoff_ = 1;
  // Every client due before the horizon runs its steps up to it; order is free (none reaches
  // outside itself), the rotating start moves on by the times they would have been run at.
  const uint64_t end_value = ahead_clock_.cycles(double(until)).value();
  marks_.reset(c0 + 1, until);
  if (batch_at_ < end_value) {  // every request in it is before the horizon: filed anew below
    // The calendar would have run then even if each of its requests had since been replaced by an
    // earlier one (a client woken again now): that is a time it moves the start at too.
    marks_.mark(ahead_clock_.to_cycles_ceil(clock_detail::from_value(batch_at_)), false);
    batch_at_ = kNone;
    std::fill(batch_.begin(), batch_.end(), 0);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (due_[i] == kNone || due_[i] >= end_value) continue;
    const sc_core::sc_time first = clock_detail::from_value(due_[i]);
    due_[i] = kNone;  // its queue entry, if any, is stale from here
    clients_[i]->run_ahead(first, until, marks_);
  }
  steps_ahead_ += marks_.marked();
  step_start_ = uint32_t((step_start_ + marks_.count()) % n);
}

}  // namespace mpgpu
