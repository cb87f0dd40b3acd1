#pragma once
// Loosely-timed DRAM channel: banks with row buffers (open-page policy), the DRAM timings, the
// command bus and the data bus. serve() books one request's commands at once and returns when
// its last data beat leaves the bus; nothing booked earlier ever moves, so a time handed back
// to the caller stays true. Cycle unit: DRAM command clock.
//
// Per request, per bank:
//   row hit      -> RD/WR (data after CL / WL)
//   bank closed  -> ACT, tRCD, RD/WR                                  (row miss)
//   other row    -> PRE (after tRAS since ACT, the read/write-to-precharge of the row's column
//                   commands, incl. tWR), tRP, ACT (tRC, tRRD), tRCD, RD/WR   (row conflict)
// A request of N bytes is ceil(N / (bus_bytes x burst_length)) bursts, one column command each,
// tCCD apart, each holding the data bus burst_length / data_rate cycles. Channel resources
// (one command per cycle, tCCD, tRRD, data bus) are reservation tables that keep their gaps.
//
// Reordering (the LT form of FR-FCFS). The core schedules in call order, which is arrival
// order up to the temporal-decoupling skew between callers. Within that:
//  * It CAN let a younger request use any slot still free on the channel: a request to another
//    bank takes command, tCCD, tRRD and data-bus gaps before commands booked for older requests
//    (bank-level parallelism, as every controller has).
//  * It CAN serve a younger row hit ahead of an older, already-scheduled row conflict
//    ("first-ready"): each bank remembers its recent row activations as windows
//    [ACT + tRCD, PRE - read/write-to-precharge]. A request whose row is the open row, or the row
//    of an activation that a booked PRE will close, issues its column commands inside that
//    window if the channel has room there. The booked PRE was placed as early as it could go
//    (tRAS, the row's earlier column commands, the conflicting request's own arrival, a busy
//    command bus), so a hit that fits before it changes no returned time. The bank's 4 newest
//    activations are tried; the earliest completion wins. Counted in reordered_hits(). Off
//    with reorder_row_hits = false (strict FCFS per bank).
//  * It CANNOT postpone a booked PRE/ACT to make room for a hit, even when a real FR-FCFS
//    scheduler would (hit queued before the PRE issued, but too late to finish its column
//    command before it): that would change a completion already returned. Such a hit opens its
//    row again after the conflicting request (a second conflict). FrFcfsScheduler, which sees
//    the whole queue, is the reference for this.
//  * It CANNOT reorder requests of one bank that miss every scheduled window: they run in
//    call order. A request called with an arrival earlier than another already served is not
//    moved ahead of it, beyond the gap filling above.
// Measured against FrFcfsScheduler (dram_test): equal on in-order streams (lone accesses,
// line streams over the banks); within 1 % on random streams below saturation; under overload
// with a deep queue, where real FR-FCFS turns most conflicts into hits, about as good as FCFS
// (random 8-bank, 4-row streams at 170 % of peak: ~20 % longer than FR-FCFS with 64 entries,
// within 10 % of its FCFS mode).
// Not modelled: tFAW, write-to-read and read-to-write bus turnaround (tWTR, tRTW), refresh.
// Bookings older than `horizon` cycles before the latest arrival are forgotten; a request
// arriving before that point is treated as arriving at it (bounded memory, never a double
// booking).
#include <cstdint>
#include <vector>

#include "common/busy_intervals.hpp"
#include "common/divisor.hpp"
#include "dram/dram_commands.hpp"
#include "dram/dram_timing.hpp"

namespace mpgpu {

struct DramAccess {
  uint64_t completion;  // cycle after the last data beat of the request
  bool row_hit;
  RowOutcome outcome;
  bool reordered;       // a row hit served ahead of an already-booked PRE of its bank
  uint32_t displaced_owner;  // conflict: the context whose open row was closed
};

class DramChannel {
 public:
  explicit DramChannel(const DramParams& p, bool reorder_row_hits = true, uint64_t horizon = 1u << 16);

  // `owner`: the context of the request (recorded with the row it opens).
  DramAccess serve(uint64_t arrival, uint32_t bank, uint64_t row, bool is_write, uint32_t bytes, uint32_t owner = 0);
  DramAccess serve(const DramRequest& r) { return serve(r.arrival, r.bank, r.row, r.is_write, r.bytes); }

  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t row_hits() const { return hits_; }
  uint64_t row_misses() const { return misses_; }        // bank had no open row
  uint64_t row_conflicts() const { return conflicts_; }  // another row was open
  uint64_t reordered_hits() const { return reordered_; }
  uint64_t bus_busy_cycles() const { return bus_busy_; }
  uint64_t bus_free_at() const { return data_bus_.end(); }  // end of the latest booked burst
  const DramParams& params() const { return p_; }

  // The first cycle from c (no earlier than the backfill window before the tail, as serve()
  // searches) at which a read's (or write's) column command fits on the channel as booked now:
  // the word-at-a-time search serve() uses, or (by_rounds) the alternating gap search of the
  // three tables that it replaced (tests compare the two).
  uint64_t first_column_cycle(uint64_t c, bool is_write, bool by_rounds = false) const;

  // Tests: every command booked from now on is appended here (in booking order).
  void record_commands(std::vector<DramCommand>* log) { log_ = log; }

 private:
  // One activation of a row: its column commands fit in [act + tRCD, pre - to-precharge].
  struct RowWindow {
    uint64_t row, act;
    uint64_t pre = kOpen;     // booked PRE, kOpen while the row stays open
    uint64_t pre_ready;       // earliest PRE allowed by tRAS and the booked column commands
    uint32_t owner = 0;       // context whose request opened it
  };
  static constexpr size_t kBackFillWindows = 4;  // newest activations of a bank tried for a hit
  // A bank's newest activations, in place: serve() reads no older one (it tries the newest
  // kBackFillWindows for a hit, and the newest is the open row), so a new one replaces the oldest
  // once there are that many. A bank's state is then one run of lines, not a deque's chunks.
  class RecentWindows {
   public:
    bool empty() const { return count_ == 0; }
    size_t size() const { return count_; }
    RowWindow& newest(size_t k) { return w_[(head_ + count_ - 1 - k) % kBackFillWindows]; }  // k < size()
    RowWindow& back() { return newest(0); }
    const RowWindow& front() const { return w_[head_]; }
    void pop_front() { head_ = (head_ + 1) % kBackFillWindows, --count_; }
    void push_back(const RowWindow& w) {
      if (count_ == kBackFillWindows) pop_front();
      w_[(head_ + count_++) % kBackFillWindows] = w;
    }

   private:
    RowWindow w_[kBackFillWindows];
    size_t head_ = 0, count_ = 0;
  };
  struct Bank {
    RecentWindows windows;     // oldest first; the last one may be open
    uint64_t fcfs_floor = 0;   // reorder off: after the bank's previous request
  };
  static constexpr uint64_t kOpen = UINT64_MAX;
  static constexpr int kMaxFitRounds = 64;        // fit_column_by_rounds: gap search across tables, then the tail
  static constexpr uint64_t kBackfillWindow = 512;  // cycles before the tail searched for gaps

  // Column-command cycles of one request: a line is a few bursts, in buffers the channel reuses
  // (fits_), so that a push is an inline store.
  using ColumnCycles = std::vector<uint64_t>;
  // Column commands of one request into `cas` (cleared): earliest cycles >= lower, each <= latest;
  // false (cas left partial) if none fit. `tail`: column_tail(lat) of the tables as booked now,
  // taken once per request (nothing is booked while its row windows are tried).
  bool fit_columns(uint64_t lower, uint64_t latest, uint32_t bursts, bool is_write, uint64_t tail,
                   ColumnCycles& cas) const;
  // From here on all three tables are free for a column command whose data follows it by `lat`
  // (a search that keeps bouncing between gaps of different tables goes there).
  uint64_t column_tail(uint64_t lat) const;
  // A word of column_starts() kept between the bursts of one request (bit i of ok: a column
  // command fits at base + i), as the tables are not booked in between.
  struct StartsWord {
    uint64_t base = 0, ok = 0;
    bool read = false;
  };
  // One column command from cycle c: the first cycle from c that the command bus, the tCCD
  // window and the data bus (from c + lat, `burst` cycles) all accept; > latest when none does by
  // then (tCCD and burst at most 64; fit_column_by_rounds otherwise). `word`: the request's word
  // of fitting starts, read again only when c leaves it.
  [[gnu::always_inline]] inline uint64_t fit_column(uint64_t c, uint64_t latest, uint64_t lat, uint64_t burst,
                                                    uint64_t tail, StartsWord& word) const;  // inline: once per burst
  // tCCD and a burst fit in a word: fit_column's word search applies (fit_column_by_rounds otherwise).
  bool fits_by_words(uint64_t burst) const { return p_.timing.CCD <= 64 && burst <= 64; }
  // Bit i: the command bus, the tCCD window and the data bus (from c + i + lat, `burst` cycles)
  // all accept a column command at c + i (ccd, burst <= 64): their free starts ANDed.
  uint64_t column_starts(uint64_t c, uint64_t lat, uint64_t burst) const;
  uint64_t fit_column_by_rounds(uint64_t c, uint64_t latest, uint64_t lat, uint64_t burst, uint64_t tail) const;
  uint64_t fit_command(uint64_t lower, uint64_t window, const BusyIntervals* spacing) const;
  void book_columns(const ColumnCycles& cas, Bank& bank, RowWindow& w, uint32_t index, bool is_write);
  void log(uint64_t cycle, DramCommandKind k, uint32_t bank, uint64_t row, uint32_t index) {
    if (log_) log_->push_back({cycle, k, bank, row, index});  // tests only: a test per command otherwise
  }
  void forget_old();

  DramParams p_;
  // Derived once: serve() needs them per request, and each is a division of parameters.
  uint64_t burst_ = p_.burst_cycles();
  uint64_t to_precharge_[2] = {p_.read_to_precharge(), p_.write_to_precharge()};  // [is_write]
  Divisor burst_bytes_{p_.burst_bytes()};
  bool reorder_;
  uint64_t horizon_;
  std::vector<Bank> banks_;
  BusyIntervals command_bus_, column_spacing_, act_spacing_, data_bus_;  // tCCD and tRRD windows
  uint64_t latest_arrival_ = 0, floor_ = 0, forgot_at_ = 0;
  uint64_t served_ = 0;
  uint64_t reads_ = 0, writes_ = 0, bytes_ = 0, hits_ = 0, misses_ = 0, conflicts_ = 0, reordered_ = 0;
  uint64_t bus_busy_ = 0;
  std::vector<DramCommand>* log_ = nullptr;
  ColumnCycles fits_[2];  // serve(): the best row window's column cycles so far and the one being tried
};

}  // namespace mpgpu
