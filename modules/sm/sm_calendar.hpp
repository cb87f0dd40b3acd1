#pragma once
// The SMs' wake-up calendar: one SystemC process (an SC_METHOD) runs every SM due at a time, in
// a rotating SM order. Each SM asks for its next wake-up (a TB's end, its pipeline's next issue
// cycle, a dispatch) and, as with an sc_event, the earliest request stands until it is served.
//
// Why one process for all SMs rather than one each:
// - Same-time order. The SMs book the shared memory system (crossbar ports, L2, DRAM) in the
//   order they run, so SMs due at the same time (every busy SM at each cycle or quantum boundary)
//   need a defined order. With a process per SM it was the SystemC kernel's timed-event heap's,
//   which any unrelated event (a block-scheduler timer) reshuffled: removing one such timer moved
//   a warp-level run by 0.8%. Now it is the SM order from a start that moves by one SM at every
//   time the calendar runs, as a round-robin arbiter's priority does: no SM is favoured for long.
// - Speed. A time at which k SMs are due costs one timed event and one process activation, not
//   k of each: at quantum 1 every busy SM wakes every cycle.
#include <systemc>

#include "common/clock.hpp"
#include "common/timed_wakeups.hpp"
#include "sm/run_ahead.hpp"

#include <cstdint>
#include <cstdlib>
#include <queue>
#include <vector>

namespace mpgpu {

class SmCalendar : public sc_core::sc_module {
 public:
  // What the calendar wakes: an SM's step (it asks for its next wake-up itself).
  class Client {
   public:
    virtual ~Client() = default;
    virtual void activate() = 0;
    // Run-ahead (enable_run_ahead): a lower bound on the first cycle at which the client might
    // do what others can see (reach the memory system, report); kNever when it has nothing to do
    // until woken. It may stop looking once the bound is below `enough` (the calendar then does
    // not run ahead). The default, 0: the calendar never runs ahead.
    virtual uint64_t private_until(uint64_t /*enough*/) { return 0; }
    // Runs the steps it would have run, due first at `first`, at every cycle before `until` (at
    // most private_until()), marking each; then asks for its next wake-up as a step does.
    virtual void run_ahead(const sc_core::sc_time& /*first*/, uint64_t /*until*/, CycleMarks& /*visited*/) {}
  };
  static constexpr uint64_t kNever = ~uint64_t{0};

  explicit SmCalendar(sc_core::sc_module_name name);
  SC_HAS_PROCESS(SmCalendar);

  // Adds a client, first due at the start of the simulation (as a process runs at initialization);
  // returns its index, its place in the SM order.
  uint32_t add(Client* c);
  // Client `i` runs at now + delay, unless it is already due by then.
  // Inline for the common request, made while the calendar runs for the time of its next batch
  // (at quantum 1 every busy SM asks for the next cycle once per cycle); the rest out of line.
  void wake(uint32_t i, const sc_core::sc_time& delay) {
    const uint64_t at = sim_now().value() + delay.value();
    if (due_[i] <= at) return;  // due by then already
    // file(i, at) for this case, written out: calling file() here inlines its queue push into
    // every SM's wake-up, which measured 15% slower on bench_speed's large trace.
    if (in_run_ && at == batch_at_) {  // into the batch; the calendar notifies itself
      due_[i] = at;
      again_ |= at == now_.value();
      batch_[i >> 6] |= uint64_t{1} << (i & 63);
      return;
    }
    wake_later(i, at, delay);
  }
  // clock.cycles(cycle), remembered for the last cycle asked: the busy SMs of a step mostly plan
  // the same next cycle, and each would convert it.
  const sc_core::sc_time& cycle_time(uint64_t cycle, const ClockDomain& clock) {
    if (cycle != memo_cycle_ || clock.period_ps() != memo_period_ps_) {
      memo_cycle_ = cycle, memo_period_ps_ = clock.period_ps();
      memo_time_ = clock.cycles(double(cycle));
    }
    return memo_time_;
  }
  // Lets the clients, at quantum 1 on `clock`, run cycles without the calendar while none of
  // them can do anything another block sees and no other process has anything pending before
  // (docs/architecture.md, Run-ahead); never at or past `end` (the run's measuring window).
  // Results are the same with and without.
  // With MPGPU_CHECK_RUN_AHEAD set, each try also asks the SystemC kernel for its next event and
  // stops the run if no other process recorded it (a timed wake-up missing from TimedWakeups);
  // the asking reorders same-time events, so results then differ slightly (tests only).
  void enable_run_ahead(const ClockDomain& clock, const sc_core::sc_time& end) {
    ahead_clock_ = clock;
    ahead_ = true;
    ahead_end_ = end;
    check_others_ = std::getenv("MPGPU_CHECK_RUN_AHEAD") != nullptr;
    if (others_) others_->start();
  }
  // Where the other processes record their timed wake-ups; without it the calendar never runs ahead.
  void watch_others(TimedWakeups* w) { others_ = w; }  // before enable_run_ahead
  // Client steps run ahead (a host statistic: how much run-ahead did).
  uint64_t steps_run_ahead() const { return steps_ahead_; }
  // Client steps the calendar ran (activate() calls; a host statistic: an SM's step reads its
  // state afresh, so steps per warp instruction are a run's fixed cost per instruction).
  uint64_t steps() const { return steps_; }

 private:
  static constexpr uint64_t kNone = ~uint64_t{0};
  static constexpr uint64_t kMinAhead = 8;        // fewer cycles ahead are not worth a try
  static constexpr uint64_t kMaxAhead = 1 << 14;  // cycles per try (the marks' size)
  static constexpr uint64_t kMaxBackoff = 256;    // cycles between tries that found no room
  struct Due {
    uint64_t at;  // sc_time value
    uint32_t client;
    bool operator>(const Due& o) const { return at > o.at; }
  };
  void run();
  // After the clients due now ran: every client runs ahead to the common horizon, if it is far.
  void try_run_ahead();
  void check_others(uint64_t recorded);  // MPGPU_CHECK_RUN_AHEAD
  void wake_later(uint32_t i, uint64_t at, const sc_core::sc_time& delay);  // wake()'s other cases
  void file(uint32_t i, uint64_t at) {
    due_[i] = at;
    again_ |= in_run_ && at == now_.value();
    if (batch_at_ == kNone) batch_at_ = at;
    if (at == batch_at_)
      batch_[i >> 6] |= uint64_t{1} << (i & 63);
    else
      later_.push({at, i});
  }
  std::vector<Client*> clients_;
  std::vector<uint64_t> due_;  // per client: the time it is due (kNone: not due)
  // The requests for one time, the next batch (mostly every busy SM's next cycle), as a bit per
  // client; other times wait in the queue. An entry whose client was since asked for earlier is
  // stale and skipped (due_ no longer matches).
  uint64_t batch_at_ = kNone;
  std::vector<uint64_t> batch_;
  std::priority_queue<Due, std::vector<Due>, std::greater<Due>> later_;
  std::vector<uint64_t> running_;  // the batch being run (all clear between runs)
  uint32_t step_start_ = 0;        // the rotating start: one on at every time clients ran
  bool in_run_ = false;
  bool again_ = false;  // a client was asked for now while the calendar ran
  sc_core::sc_time now_;  // while in_run_
  uint64_t memo_cycle_ = kNone;
  double memo_period_ps_ = 0;
  sc_core::sc_time memo_time_;
  bool ahead_ = false, check_others_ = false;
  TimedWakeups* others_ = nullptr;
  ClockDomain ahead_clock_;
  sc_core::sc_time ahead_end_;
  uint64_t next_try_ = 0, backoff_ = 1;  // a try that found no room waits backoff_ cycles
  uint64_t steps_ahead_ = 0, steps_ = 0;
  CycleMarks marks_;
  sc_core::sc_event event_;
  uint64_t notified_ = kNone;  // the time event_ is notified for (kNone: not notified)
};

}  // namespace mpgpu
