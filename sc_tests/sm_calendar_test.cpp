// The SMs' wake-up calendar (sm/sm_calendar.hpp): clients due at the same time run in SM order
// from a start that moves by one at every time the calendar runs; the earliest request stands.
#include <gtest/gtest.h>

#include <functional>
#include <utility>
#include <vector>

#include "sm/sm_calendar.hpp"

namespace mpgpu {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

struct Log {
  std::vector<std::pair<double, uint32_t>> runs;  // (ns, client)
};

struct Probe : SmCalendar::Client {
  uint32_t id = 0;
  Log* log = nullptr;
  std::function<void()> on_run;
  void activate() override {
    log->runs.push_back({sc_core::sc_time_stamp() / sc_time(1, SC_NS), id});  // exact: a ratio of integers
    if (on_run) on_run();
  }
};

TEST(SmCalendar, SameTimeClientsRunInRotatingOrder) {
  SmCalendar cal("cal");
  Log log;
  std::vector<Probe> p(5);
  for (uint32_t i = 0; i < 5; ++i) {
    p[i].log = &log;
    p[i].id = cal.add(&p[i]);
    p[i].on_run = [&cal, &p, i] {
      if (sc_core::sc_time_stamp() < sc_time(20, SC_NS)) cal.wake(p[i].id, sc_time(10, SC_NS));
    };
  }
  sc_core::sc_start(sc_time(100, SC_NS));
  const std::vector<std::pair<double, uint32_t>> want = {
      {0, 0},  {0, 1},  {0, 2},  {0, 3},  {0, 4},    // start 0
      {10, 1}, {10, 2}, {10, 3}, {10, 4}, {10, 0},   // start 1
      {20, 2}, {20, 3}, {20, 4}, {20, 0}, {20, 1}};  // start 2
  EXPECT_EQ(log.runs, want);
  EXPECT_EQ(cal.steps(), want.size());
}

// Two clients, a (index 0) and b (index 1), of one calendar.
struct TwoProbes {
  SmCalendar cal{"cal"};
  Log log;
  Probe a, b;
  TwoProbes() {
    a.log = b.log = &log;
    a.id = cal.add(&a);
    b.id = cal.add(&b);
  }
};

TEST(SmCalendar, TheEarliestRequestStands) {
  TwoProbes t;
  SmCalendar& cal = t.cal;
  Probe &a = t.a, &b = t.b;
  bool first = true;
  a.on_run = [&] {
    if (first) cal.wake(a.id, sc_time(50, SC_NS));
    first = false;
  };
  b.on_run = [&] {  // runs after a at time 0: moves a's wake-up earlier, then asks for later
    if (sc_core::sc_time_stamp() > sc_core::SC_ZERO_TIME) return;
    cal.wake(a.id, sc_time(20, SC_NS));
    cal.wake(a.id, sc_time(100, SC_NS));
    cal.wake(b.id, sc_time(30, SC_NS));
  };
  sc_core::sc_start(sc_time(200, SC_NS));
  // a at 20 ns only (its 50 ns request was replaced by the earlier one, as with an sc_event).
  const std::vector<std::pair<double, uint32_t>> want = {{0, 0}, {0, 1}, {20, 0}, {30, 1}};
  EXPECT_EQ(t.log.runs, want);
  EXPECT_EQ(cal.steps(), want.size());  // the replaced requests ran no step
}

TEST(SmCalendar, AClientAskedForNowRunsAgainInTheSameStep) {
  TwoProbes t;
  SmCalendar& cal = t.cal;
  Probe &a = t.a, &b = t.b;
  int b_runs = 0;
  b.on_run = [&] {
    if (b_runs++ == 0) cal.wake(a.id, sc_core::SC_ZERO_TIME);  // a already ran at this time
  };
  sc_core::sc_start(sc_time(10, SC_NS));
  const std::vector<std::pair<double, uint32_t>> want = {{0, 0}, {0, 1}, {0, 0}};
  EXPECT_EQ(t.log.runs, want);
}

}  // namespace
}  // namespace mpgpu
