#include "sm/sm_calendar.hpp"

#include <algorithm>

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
  now_ = sc_core::sc_time_stamp();
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
          clients_[i]->activate();
        }
      }
    };
    run_range(start, n);
    run_range(0, start);
  } while (again_);
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

}  // namespace mpgpu
