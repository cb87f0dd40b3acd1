// DRAM timing cores: the loosely-timed DramChannel and the cycle-by-cycle FrFcfsScheduler.
// Known answers from the timings written out in each test (cycles of the DRAM command clock).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "common/busy_intervals.hpp"
#include "dram/dram_channel.hpp"
#include "dram/dram_commands.hpp"
#include "dram/fr_fcfs.hpp"

using namespace mpgpu;

namespace {
// GDDR5 as in the GTX480 file: 4 B bus, BL8, 4 transfers per clock -> 32 B bursts of 2 cycles.
DramParams gddr5() {
  DramParams p;
  p.bus_bytes = 4;
  p.burst_length = 8;
  p.data_rate = 4;
  p.banks = 16;
  p.row_bytes = 2048;
  p.timing = {/*CCD*/ 2, /*RRD*/ 6, /*RCD*/ 12, /*RAS*/ 28, /*RP*/ 12, /*RC*/ 40, /*CL*/ 12, /*WL*/ 4, /*WR*/ 12};
  return p;
}
constexpr uint64_t kCCD = 2, kRRD = 6, kRCD = 12, kRAS = 28, kRP = 12, kCL = 12, kWL = 4, kWR = 12, kBurst = 2;

DramRequest rd(uint64_t at, uint32_t bank, uint64_t row, uint32_t bytes = 32) { return {at, bank, row, false, bytes}; }
DramRequest wr(uint64_t at, uint32_t bank, uint64_t row, uint32_t bytes = 32) { return {at, bank, row, true, bytes}; }

// Line-sized requests walking addresses upward: 16 lines fill a 2 KB row, then the next bank.
std::vector<DramRequest> sequential_stream(size_t n, uint64_t spacing) {
  std::vector<DramRequest> out;
  for (size_t i = 0; i < n; ++i) out.push_back(rd(i * spacing, uint32_t((i / 16) % 16), i / 256, 128));
  return out;
}

std::vector<DramRequest> random_stream(size_t n, uint64_t mean_gap, uint32_t banks, uint32_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<DramRequest> out;
  uint64_t t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += rng() % (2 * mean_gap + 1);
    out.push_back({t, uint32_t(rng() % banks), rng() % rows, rng() % 4 == 0, rng() % 2 ? 128u : 32u});
  }
  return out;
}

std::vector<uint64_t> serve_all(DramChannel& ch, const std::vector<DramRequest>& reqs) {
  std::vector<uint64_t> done;
  for (const DramRequest& r : reqs) done.push_back(ch.serve(r).completion);
  return done;
}
}  // namespace

// ---- Reservation table --------------------------------------------------------------------

TEST(BusyIntervals, FindsTheFirstGapThatFitsAndMergesNeighbours) {
  BusyIntervals b;
  b.book(10, 5);  // [10,15)
  b.book(20, 5);  // [20,25)
  EXPECT_EQ(b.earliest(0, 10), 0u);
  EXPECT_EQ(b.earliest(0, 11), 25u);   // neither [0,10) nor [15,20) holds 11
  EXPECT_EQ(b.earliest(12, 5), 15u);   // [15,20) fits exactly
  EXPECT_EQ(b.earliest(16, 5), 25u);
  EXPECT_EQ(b.earliest(7, 0), 7u);
  b.book(15, 5);                       // fills the gap: one interval [10,25)
  EXPECT_EQ(b.intervals(), 1u);
  EXPECT_EQ(b.earliest(9, 1), 9u);
  EXPECT_EQ(b.earliest(9, 2), 25u);
  b.book(30, 2);
  b.forget_before(25);
  EXPECT_EQ(b.intervals(), 1u);
  EXPECT_EQ(b.end(), 32u);
}

TEST(BusyIntervals, EarliestAgreesWithABruteForceBitmapUnderRandomBookings) {
  std::mt19937 rng(3);
  for (uint64_t len : {1, 2, 3, 5}) {
    BusyIntervals b;
    std::vector<char> busy(4000, 0);
    for (int i = 0; i < 600; ++i) {
      const uint64_t t = rng() % 3000, l = rng() % 2 ? len : 1 + rng() % 6;  // mostly one length
      uint64_t s = t;
      while (std::any_of(busy.begin() + long(s), busy.begin() + long(s + l), [](char c) { return c; })) ++s;
      ASSERT_EQ(b.earliest(t, l), s) << "len " << l << " from " << t;
      b.book(s, l);
      std::fill(busy.begin() + long(s), busy.begin() + long(s + l), 1);
    }
  }
}

// Long back-to-back runs (a context save's lines on one port) queried from inside, with the
// forget point moving: the remembered busy run must never hide a free cycle.
TEST(BusyIntervals, LongBusyRunsAndForgettingAgreeWithABruteForceBitmap) {
  std::mt19937 rng(5);
  BusyIntervals b;
  std::vector<char> busy(40000, 0);
  uint64_t floor = 0;
  for (int i = 0; i < 6000; ++i) {
    if (rng() % 50 == 0 && floor + 400 < 30000) {
      floor += rng() % 400;
      b.forget_before(floor);
      std::fill(busy.begin(), busy.begin() + long(floor), 0);
    }
    const uint64_t t = floor + rng() % 600, l = 1 + rng() % 5;
    uint64_t s = t;
    while (std::any_of(busy.begin() + long(s), busy.begin() + long(s + l), [](char c) { return c; })) ++s;
    ASSERT_EQ(b.free(t, l), s == t) << "len " << l << " at " << t << " step " << i;  // the DRAM fit's shortcut
    ASSERT_EQ(b.earliest(t, l), s) << "len " << l << " from " << t << " step " << i;
    b.book(s, l);
    std::fill(busy.begin() + long(s), busy.begin() + long(s + l), 1);
  }
}

// Lengths that cross word boundaries (the word-at-a-time search for up to 64 cycles, the gap
// walk beyond), on a table fragmented by short bookings and with a moving forget point.
TEST(BusyIntervals, EveryLengthUpToAndPast64AgreesWithABruteForceBitmap) {
  std::mt19937 rng(17);
  BusyIntervals b;
  std::vector<char> busy(200000, 0);  // past the latest booking
  uint64_t floor = 0;
  for (int i = 0; i < 8000; ++i) {
    if (rng() % 80 == 0) {
      floor += rng() % 300;
      b.forget_before(floor);
      std::fill(busy.begin(), busy.begin() + long(floor), 0);
    }
    // Mostly short bookings (fragments), some long searches through them.
    const uint64_t t = floor + rng() % 2000, l = rng() % 4 ? 1 + rng() % 4 : 1 + rng() % 80;
    uint64_t s = t;
    while (std::any_of(busy.begin() + long(s), busy.begin() + long(s + l), [](char c) { return c; })) ++s;
    ASSERT_EQ(b.earliest(t, l), s) << "len " << l << " from " << t << " step " << i;
    if (rng() % 3) {  // not every search books: later ones search the same fragments
      b.book(s, l);
      std::fill(busy.begin() + long(s), busy.begin() + long(s + l), 1);
    }
  }
}

// window(), window_pair() and free_starts() (the DRAM column fit ANDs them over three tables)
// against a brute-force bitmap: any start, across the bitmap's ends, the forget point and word
// boundaries.
namespace {
// A reservation table and its brute-force bitmap, booked and forgotten together.
struct MirroredTable {
  BusyIntervals table;
  std::vector<char> busy;
  uint64_t floor = 0;
  explicit MirroredTable(size_t cycles) : busy(cycles, 0) {}
  void forget_before(uint64_t f) {
    floor = f;
    table.forget_before(f);
    std::fill(busy.begin(), busy.begin() + long(f), 0);
  }
  void book(uint64_t s, uint64_t l) {
    table.book(s, l);
    std::fill(busy.begin() + long(s), busy.begin() + long(s + l), 1);
  }
  bool busy_at(uint64_t c) const { return busy[c] && c >= floor; }  // forgotten: free
  // The first slot of `len` from t free in both bitmaps, stepping one cycle at a time.
  static uint64_t first_free_in_both(const MirroredTable& a, const MirroredTable& b, uint64_t t, uint64_t len) {
    for (uint64_t s = t;; ++s) {
      uint64_t c = s;
      while (c < s + len && !a.busy_at(c) && !b.busy_at(c)) ++c;
      if (c == s + len) return s;
    }
  }
  // The bitmap's 64 cycles from `from` (forgotten ones free): what table.window(from) must say.
  uint64_t window(uint64_t from) const {
    uint64_t bits = 0;
    for (uint64_t k = 0; k < 64; ++k) bits |= uint64_t(busy[from + k] && from + k >= floor) << k;
    return bits;
  }
};
}  // namespace

TEST(BusyIntervals, WindowAndFreeStartsAgreeWithABruteForceBitmap) {
  std::mt19937 rng(29);
  MirroredTable m(100000);
  for (int i = 0; i < 4000; ++i) {
    if (rng() % 60 == 0) m.forget_before(m.floor + rng() % 200);
    const uint64_t l = 1 + rng() % 6;
    m.book(m.table.earliest(m.floor + rng() % 1500, l), l);
    const uint64_t at = m.floor > 100 && rng() % 4 == 0 ? m.floor - rng() % 100 : m.floor + rng() % 1700;
    const uint64_t want = m.window(at);
    ASSERT_EQ(m.table.window(at), want) << "from " << at << " step " << i;
    uint64_t lo = 0, hi = 0;
    m.table.window_pair(at, lo, hi);
    ASSERT_EQ(lo, want) << "pair from " << at << " step " << i;
    ASSERT_EQ(hi, m.window(at + 64)) << "pair from " << at << " step " << i;
    const uint64_t len = rng() % 9;  // 0 (always free) to 8
    uint64_t starts = 0;
    for (uint64_t k = 0; k < 64; ++k) starts |= uint64_t(m.table.earliest(at + k, len) == at + k) << k;
    ASSERT_EQ(m.table.free_starts(at, len), starts) << "len " << len << " from " << at << " step " << i;
  }
}

// earliest_in_both (a crossbar packet holding an output and an input port) is the first slot free
// in both brute-force bitmaps: short waits found by the word walk, backlogs longer than it (the
// alternating search it hands over to), lengths past 64, and forget points apart.
TEST(BusyIntervals, EarliestInBothIsTheFirstSlotFreeInBothBitmaps) {
  std::mt19937 rng(41);
  MirroredTable a(200000), b(200000);
  for (int i = 0; i < 6000; ++i) {
    if (rng() % 70 == 0) a.forget_before(a.floor + rng() % 300);
    if (rng() % 70 == 0) b.forget_before(b.floor + rng() % 300);
    MirroredTable& one = rng() % 2 ? a : b;
    if (rng() % 40 == 0) {  // a backlog: a run of short bookings with gaps too short to fit most packets
      uint64_t at = one.floor + rng() % 800;
      for (int k = 0; k < 60; ++k) {
        const uint64_t len = 1 + rng() % 5, s = one.table.earliest(at, len);
        one.book(s, len);
        at = s + len + rng() % 3;
      }
    }
    const uint64_t floor = std::max(a.floor, b.floor);
    const uint64_t t = floor > 50 && rng() % 5 == 0 ? floor - rng() % 50 : floor + rng() % 2500;
    const uint64_t l = rng() % 5 ? 1 + rng() % 6 : rng() % 90;
    const uint64_t want = MirroredTable::first_free_in_both(a, b, t, l);
    ASSERT_EQ(BusyIntervals::earliest_in_both(a.table, b.table, t, l), want) << "len " << l << " from " << t << " step " << i;
    if (l > 0 && rng() % 2) a.book(want, l), b.book(want, l);
  }
}

// book_in_both (a crossbar pair's packets) books the first slot free in both brute-force bitmaps
// while its memo lets searches skip what an earlier wait learnt: packets of several lengths
// queued behind backlogs, searches from before the forget points, and forget points moving past
// the memo's start.
TEST(BusyIntervals, BookInBothWithItsMemoBooksTheFirstSlotFreeInBoth) {
  std::mt19937 rng(43);
  MirroredTable a(400000), b(400000);
  BusyIntervals::JointMemo memo;
  uint64_t at = 0, skipped = 0;
  for (int i = 0; i < 20000; ++i) {
    if (rng() % 200 == 0) a.forget_before(std::max(a.floor, at > 100 ? at - rng() % 100 : 0));
    if (rng() % 200 == 0) b.forget_before(std::max(b.floor, at > 100 ? at - rng() % 100 : 0));
    if (rng() % 60 == 0) {  // another pair's traffic fills one port's slots ahead
      MirroredTable& one = rng() % 2 ? a : b;
      uint64_t c = std::max(one.floor, at) + rng() % 200;
      for (int k = 0; k < 40; ++k) {
        const uint64_t len = 1 + rng() % 4, s = one.table.earliest(c, len);
        one.book(s, len);
        c = s + len + rng() % 3;
      }
    }
    const uint64_t floor = std::max(a.floor, b.floor);
    const uint64_t t = rng() % 10 == 0 && floor > 20 ? floor - rng() % 20 : std::max(floor, at) + rng() % 3;
    const uint64_t len = rng() % 4 ? 4 : 1 + rng() % 8;  // mostly one size, as a line's packets
    const uint64_t want = MirroredTable::first_free_in_both(a, b, t, len);
    const bool jumps = len >= memo.len && memo.from <= t && t < memo.to;
    ASSERT_EQ(BusyIntervals::book_in_both(a.table, b.table, t, len, memo), want) << "len " << len << " from " << t << " step " << i;
    skipped += jumps && want > t;
    for (MirroredTable* m : {&a, &b}) std::fill(m->busy.begin() + long(want), m->busy.begin() + long(want + len), 1);
    at = std::max(at, t);
    ASSERT_LT(at + 2000, a.busy.size());
  }
  EXPECT_GT(skipped, 1000u);  // the memo was used, not only kept
  // A memo the forget points moved into: a search from before them finds the forgotten (free)
  // cycles, not the memo's end; from the forget points on the memo holds.
  BusyIntervals c, d;
  BusyIntervals::JointMemo m;
  c.book(0, 100);
  ASSERT_EQ(BusyIntervals::book_in_both(c, d, 0, 4, m), 100u);  // waited: no slot of 4 in [0, 104)
  c.forget_before(50), d.forget_before(50);
  EXPECT_EQ(BusyIntervals::book_in_both(c, d, 10, 4, m), 10u);
  EXPECT_EQ(BusyIntervals::book_in_both(c, d, 60, 4, m), 104u);
}

// book_strided (a request's bursts in one call) leaves the same table as booking each piece,
// including pieces before or across the forget point, spans within a word and longer ones, and
// tables with bookings already.
TEST(BusyIntervals, StridedBookingEqualsBookingEachPiece) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 800; ++trial) {
    BusyIntervals strided, pieces;
    const uint64_t floor = rng() % 200;
    strided.forget_before(floor), pieces.forget_before(floor);
    for (int b = 0; b < 3; ++b) {  // bookings already there (tables keep gaps)
      const uint64_t at = floor + rng() % 400, n = 1 + rng() % 5;
      if (strided.free(at, n)) strided.book(at, n), pieces.book(at, n);
    }
    const uint64_t s = rng() % 300, len = 1 + rng() % 4, stride = 1 + rng() % (trial % 2 ? 6 : 40), count = rng() % 10;
    strided.book_strided(s, len, count, stride);
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t a = s + k * stride;  // overlapping pieces (len > stride) book their union
      for (uint64_t c = a; c < a + len; ++c)
        if (pieces.free(c, 1)) pieces.book(c, 1);
    }
    ASSERT_EQ(strided.end() > floor ? strided.end() : 0, pieces.end() > floor ? pieces.end() : 0)
        << "trial " << trial;
    for (uint64_t c = floor; c < 800; ++c)
      ASSERT_EQ(strided.free(c, 1), pieces.free(c, 1)) << "trial " << trial << " cycle " << c;
  }
}

TEST(BusyIntervals, MemoryFollowsTheSpanAheadOfTheForgetPointNotTheRunLength) {
  BusyIntervals b;
  // A port used once every million cycles over a long run, forgotten up to "now" at each use
  // (as its owners do): the ring stays at its smallest size.
  for (uint64_t now = 0; now < (uint64_t{1} << 32); now += 1'000'000) {
    b.forget_before(now);
    ASSERT_EQ(b.earliest(now, 4), now);
    b.book(now, 4);
  }
  EXPECT_LE(b.words(), 16u);
  EXPECT_EQ(b.intervals(), 1u);
  // Dense use with gaps, out of order, wrapping around the ring many times.
  BusyIntervals d;
  for (uint64_t now = 0; now < 200'000; now += 10) {
    d.forget_before(now);
    d.book(d.earliest(now + 300, 3), 3);  // booked ahead
    d.book(d.earliest(now, 2), 2);        // into an earlier gap
  }
  EXPECT_LE(d.words(), 16u);
  d.book(d.end() + 5000, 1);  // a reply far ahead: the ring grows to the span, no more
  EXPECT_LE(d.words(), 256u);
  EXPECT_EQ(d.earliest(0, 1), 0u);  // the forgotten past counts as free
}

// A booking far past the last clears the gap in one step (push_back(n)): in two runs when the
// free words wrap around the ring, and after growing it. Ring words left by forgotten bookings
// must read free; every cycle is checked against a brute-force bitmap.
TEST(BusyIntervals, ABookingFarPastTheEndClearsTheGapAcrossTheRingsWrap) {
  MirroredTable m(6000);
  auto check = [&](const char* when) {
    for (uint64_t c = 0; c + 64 < m.busy.size(); ++c) {
      ASSERT_EQ(m.table.window(c), m.window(c)) << when << ", cycle " << c;
      uint64_t s = c;
      while (m.busy[s]) ++s;
      ASSERT_EQ(m.table.earliest(c, 1), s) << when << ", cycle " << c;
    }
  };
  for (uint64_t w = 0; w < 11; ++w) m.book(w * 64, 40);  // ring words 0-10, all with bits set
  ASSERT_EQ(m.table.words(), 16u);
  m.forget_before(8 * 64);  // words 8-10 remain: the ring's first free slot is 11
  m.book(20 * 64 + 5, 3);  // words 11-15 and then 0-4 of the ring again, which held old bookings
  ASSERT_EQ(m.table.words(), 16u);  // no growth: the gap wrapped around
  check("wrapped");
  m.book(70 * 64 + 9, 2);  // past the ring's size: grows, then clears
  ASSERT_GT(m.table.words(), 16u);
  check("grown");
}

// forget_lagging (a crossbar port's forgetting): with every search and booking from "now" on,
// a pair of ports forgotten only every few thousand cycles answers as a pair forgotten at every
// call (a search reads no cycle before its start), far bookings and backlogs included, and its
// memory stays bounded by the span ahead plus the step.
TEST(BusyIntervals, ForgettingLazilyGivesTheAnswersOfForgettingAtEveryCall) {
  std::mt19937 rng(61);
  BusyIntervals eager_a, eager_b, lazy_a, lazy_b;
  BusyIntervals::JointMemo eager_memo, lazy_memo;
  uint64_t now = 0;
  for (int i = 0; i < 40000; ++i) {
    now += rng() % 50;
    eager_a.forget_before(now), eager_b.forget_before(now);
    lazy_a.forget_lagging(now, 4096), lazy_b.forget_lagging(now, 4096);
    // Mostly packets from now; some far ahead (replies under congestion); bursts (backlogs).
    const uint64_t t = now + (rng() % 6 == 0 ? rng() % 20000 : rng() % 40);
    const uint64_t len = 1 + rng() % 5;
    const uint64_t want = BusyIntervals::book_in_both(eager_a, eager_b, t, len, eager_memo);
    ASSERT_EQ(BusyIntervals::book_in_both(lazy_a, lazy_b, t, len, lazy_memo), want) << "step " << i;
    const bool burst = rng() % 200 == 0;  // at times, another pair's burst on one port
    for (int k = 0; burst && k < 50; ++k) {
      const uint64_t s = eager_a.earliest(now + 100, 4);
      ASSERT_EQ(lazy_a.earliest(now + 100, 4), s) << "step " << i;
      eager_a.book(s, 4), lazy_a.book(s, 4);
    }
    ASSERT_EQ(lazy_a.free(now, 3), eager_a.free(now, 3)) << "step " << i;
    ASSERT_EQ(lazy_b.window(now), eager_b.window(now)) << "step " << i;
  }
  EXPECT_LE(lazy_a.words(), 2 * eager_a.words() + 128);  // bounded: the span ahead plus the step
  EXPECT_GT(now, 100'000u);
}

// ---- Loosely-timed channel: known answers -------------------------------------------------

TEST(DramChannel, LoneReadOnIdleChannelIsRcdPlusClPlusBursts) {
  DramChannel ch(gddr5());
  const DramAccess a = ch.serve(100, 3, 7, false, 32);
  EXPECT_EQ(a.completion, 100 + kRCD + kCL + kBurst);
  EXPECT_EQ(a.outcome, RowOutcome::miss);
  EXPECT_FALSE(a.row_hit);
  // A 128 B line is 4 bursts, tCCD = burst apart: back to back on the bus.
  DramChannel line(gddr5());
  EXPECT_EQ(line.serve(100, 3, 7, false, 128).completion, 100 + kRCD + kCL + 4 * kBurst);
}

TEST(DramChannel, RowHitCostsClPlusBurstAndConflictAddsExactlyRpPlusRcd) {
  DramChannel ch(gddr5());
  ch.serve(0, 0, 5, false, 32);  // opens row 5
  const DramAccess hit = ch.serve(1000, 0, 5, false, 32);
  EXPECT_TRUE(hit.row_hit);
  EXPECT_EQ(hit.completion - 1000, kCL + kBurst);
  // tRAS long satisfied: the conflict pays PRE -> tRP -> ACT -> tRCD on top of the hit.
  const DramAccess conflict = ch.serve(2000, 0, 6, false, 32);
  EXPECT_EQ(conflict.outcome, RowOutcome::conflict);
  EXPECT_EQ((conflict.completion - 2000) - (hit.completion - 1000), kRP + kRCD);
}

TEST(DramChannel, SecondReadToTheOpenRowWaitsOnlyForTheBank) {
  DramChannel ch(gddr5());
  EXPECT_EQ(ch.serve(0, 0, 5, false, 32).completion, kRCD + kCL + kBurst);  // CAS at 12
  // Arrives while the row is still opening: its CAS goes at tRCD + tCCD.
  const DramAccess hit = ch.serve(1, 0, 5, false, 32);
  EXPECT_TRUE(hit.row_hit);
  EXPECT_EQ(hit.completion, kRCD + kCCD + kCL + kBurst);
}

TEST(DramChannel, BackToBackRowHitsAreTccdApart) {
  DramParams p = gddr5();
  p.timing.CCD = 5;  // longer than a burst (2): tCCD, not the bus, spaces the column commands
  DramChannel ch(p);
  ch.serve(0, 0, 1, false, 32);  // ACT 0, CAS 12
  std::vector<uint64_t> done;
  for (int i = 0; i < 4; ++i) done.push_back(ch.serve(100, 0, 1, false, 32).completion);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(done[i], 100 + 5 * uint64_t(i) + kCL + kBurst);
}

TEST(DramChannel, ActivatesOfTwoBanksAreTrrdApart) {
  DramChannel ch(gddr5());
  std::vector<DramCommand> log;
  ch.record_commands(&log);
  EXPECT_EQ(ch.serve(0, 0, 1, false, 32).completion, kRCD + kCL + kBurst);
  EXPECT_EQ(ch.serve(0, 1, 1, false, 32).completion, kRRD + kRCD + kCL + kBurst);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0].kind, DramCommandKind::activate);
  EXPECT_EQ(log[2].kind, DramCommandKind::activate);
  EXPECT_EQ(log[2].cycle - log[0].cycle, kRRD);
}

TEST(DramChannel, TrasDelaysThePrechargeOfAYoungRow) {
  DramChannel ch(gddr5());
  std::vector<DramCommand> log;
  ch.record_commands(&log);
  ch.serve(0, 0, 1, false, 32);  // ACT 0, RD 12
  const DramAccess c = ch.serve(13, 0, 2, false, 32);
  EXPECT_EQ(log[2].kind, DramCommandKind::precharge);
  EXPECT_EQ(log[2].cycle, kRAS);  // not 13
  EXPECT_EQ(c.completion, kRAS + kRP + kRCD + kCL + kBurst);
}

TEST(DramChannel, TrcSpacesTwoActivatesOfOneBank) {
  DramParams p = gddr5();
  p.timing.RAS = 10;
  p.timing.RC = 50;  // > RAS + RP
  DramChannel ch(p);
  ch.serve(0, 0, 1, false, 32);                                 // ACT 0, RD 12, PRE allowed at 14
  EXPECT_EQ(ch.serve(14, 0, 2, false, 32).completion, 50 + kRCD + kCL + kBurst);  // PRE 14, ACT at tRC
}

TEST(DramChannel, WriteUsesWlAndWriteRecoveryHoldsThePrecharge) {
  DramParams p = gddr5();
  p.timing.RAS = 10;  // so that tWR, not tRAS, decides the precharge
  p.timing.RC = 22;
  DramChannel ch(p);
  const DramAccess w = ch.serve(0, 0, 1, true, 32);
  EXPECT_EQ(w.completion, kRCD + kWL + kBurst);  // WR at 12, data 16..18
  // Same row right after: a read CAS tCCD after the write, data after CL.
  EXPECT_EQ(ch.serve(13, 0, 1, false, 32).completion, kRCD + kCCD + kCL + kBurst);
  // Another row: PRE waits for the write's recovery, WR + WL + burst + tWR = 12 + 4 + 2 + 12 = 30
  // (the read at 14 allows it from 16).
  const DramAccess r = ch.serve(20, 0, 2, false, 32);
  EXPECT_EQ(r.completion, (kRCD + kWL + kBurst + kWR) + kRP + kRCD + kCL + kBurst);
}

TEST(DramChannel, RowHitStreamOverManyBanksMovesBusBytesTimesDataRatePerCycle) {
  const DramParams p = gddr5();
  const std::vector<DramRequest> reqs = sequential_stream(8192, 0);  // all queued at once: 1 MB
  DramChannel ch(p);
  const std::vector<uint64_t> done = serve_all(ch, reqs);
  const uint64_t end = *std::max_element(done.begin(), done.end());
  const double first_data = kRCD + kCL;  // the first burst leaves the array
  const double per_cycle = double(ch.bytes()) / (end - first_data);
  EXPECT_NEAR(per_cycle, p.bus_bytes * p.data_rate, 0.01 * p.bus_bytes * p.data_rate);
  EXPECT_EQ(ch.bus_busy_cycles(), 8192u * 4 * kBurst);
  EXPECT_GT(ch.row_hits(), 8192u * 15 / 16 - 1);  // one ACT per 16 lines
}

TEST(DramChannel, CountsReadsWritesBytesAndRowOutcomes) {
  DramChannel ch(gddr5(), /*reorder_row_hits=*/false);
  ch.serve(0, 0, 1, false, 128);   // miss
  ch.serve(100, 0, 1, true, 32);   // hit
  ch.serve(200, 0, 2, false, 64);  // conflict
  ch.serve(300, 1, 2, true, 32);   // miss (other bank)
  ch.serve(400, 1, 2, false, 32);  // hit
  EXPECT_EQ(ch.reads(), 3u);
  EXPECT_EQ(ch.writes(), 2u);
  EXPECT_EQ(ch.bytes(), 128u + 32 + 64 + 32 + 32);
  EXPECT_EQ(ch.row_hits(), 2u);
  EXPECT_EQ(ch.row_misses(), 2u);
  EXPECT_EQ(ch.row_conflicts(), 1u);
  EXPECT_EQ(ch.bus_busy_cycles(), (4u + 1 + 2 + 1 + 1) * kBurst);
  EXPECT_EQ(ch.reordered_hits(), 0u);
}

// ---- Reordering ---------------------------------------------------------------------------

// Open row A (ACT 0, RD 12); a miss to row B arrives at 13 and must wait for tRAS (PRE at 28);
// a hit to row A arrives at 14. First-ready: the hit takes the open row before the PRE.
TEST(DramChannel, LaterRowHitBackFillsBeforeABookedPrecharge) {
  DramChannel ch(gddr5());
  std::vector<DramCommand> log;
  ch.record_commands(&log);
  ch.serve(0, 0, /*A*/ 1, false, 32);
  const DramAccess miss = ch.serve(13, 0, /*B*/ 2, false, 32);
  const DramAccess hit = ch.serve(14, 0, /*A*/ 1, false, 32);
  EXPECT_EQ(miss.completion, kRAS + kRP + kRCD + kCL + kBurst);  // unchanged by the hit
  EXPECT_TRUE(hit.row_hit);
  EXPECT_TRUE(hit.reordered);
  EXPECT_EQ(hit.completion, 14 + kCL + kBurst);
  EXPECT_LT(hit.completion, miss.completion);
  EXPECT_EQ(ch.reordered_hits(), 1u);
  EXPECT_EQ(check_dram_protocol(gddr5(), log), "");
}

TEST(DramChannel, NoBackFillWhenTheHitCannotFinishBeforeThePrecharge) {
  DramChannel ch(gddr5());
  ch.serve(0, 0, 1, false, 32);
  const DramAccess miss = ch.serve(13, 0, 2, false, 32);  // PRE at 28
  // A write to row 1 at 14 would need the PRE after 14 + WL + burst + tWR = 32: too late.
  const DramAccess w = ch.serve(14, 0, 1, true, 32);
  EXPECT_EQ(w.outcome, RowOutcome::conflict);
  EXPECT_GT(w.completion, miss.completion);
}

TEST(DramChannel, FcfsModeServesEachBankInCallOrder) {
  DramChannel ch(gddr5(), /*reorder_row_hits=*/false);
  ch.serve(0, 0, 1, false, 32);
  const DramAccess miss = ch.serve(13, 0, 2, false, 32);
  const DramAccess late = ch.serve(14, 0, 1, false, 32);
  EXPECT_EQ(late.outcome, RowOutcome::conflict);
  EXPECT_GT(late.completion, miss.completion);
  EXPECT_EQ(ch.reordered_hits(), 0u);
}

TEST(DramChannel, YoungerRequestToAnotherBankUsesGapsBeforeOlderOnes) {
  DramChannel ch(gddr5());
  ch.serve(0, 0, 1, false, 32);                          // opens bank 0 row 1
  const DramAccess conflict = ch.serve(100, 0, 2, false, 32);  // data at 100 + 24 + 12
  ch.serve(0, 1, 1, false, 32);                          // bank 1 opened early on
  // Called later, arriving earlier, other bank: served in the gap, not behind the conflict.
  const DramAccess other = ch.serve(101, 1, 1, false, 32);
  EXPECT_EQ(other.completion, 101 + kCL + kBurst);
  EXPECT_LT(other.completion, conflict.completion);
}

TEST(DramChannel, ArrivalsOlderThanTheHorizonAreClampedNotDoubleBooked) {
  DramChannel ch(gddr5(), true, /*horizon=*/1000);
  std::vector<DramCommand> log;
  ch.record_commands(&log);
  for (uint64_t i = 0; i < 3000; ++i) ch.serve(i * 4, uint32_t(i % 16), i / 64, false, 32);
  const DramAccess stale = ch.serve(0, 5, 999, false, 32);  // far behind the latest arrival
  EXPECT_GE(stale.completion, 2999 * 4 - 1000 + kRCD + kCL + kBurst);
  EXPECT_EQ(check_dram_protocol(gddr5(), log), "");
}

// ---- Reference scheduler ------------------------------------------------------------------

TEST(FrFcfsScheduler, RowHitOvertakesAnOlderRowMiss) {
  // Row A open (read at 0); miss to row B at t = 13, hit to row A at t + 1.
  const std::vector<DramRequest> reqs = {rd(0, 0, 1), rd(13, 0, 2), rd(14, 0, 1)};
  FrFcfsScheduler fr(gddr5(), 16, DramSchedulePolicy::fr_fcfs);
  const std::vector<uint64_t> d = fr.run(reqs);
  EXPECT_LT(d[2], d[1]);
  EXPECT_EQ(d[2], 14 + kCL + kBurst);
  EXPECT_EQ(fr.outcomes()[2], RowOutcome::hit);
  EXPECT_EQ(check_dram_protocol(gddr5(), fr.commands()), "");

  FrFcfsScheduler fifo(gddr5(), 16, DramSchedulePolicy::fcfs);
  const std::vector<uint64_t> f = fifo.run(reqs);
  EXPECT_LT(f[1], f[2]);
  EXPECT_EQ(f[1], kRAS + kRP + kRCD + kCL + kBurst);
  EXPECT_EQ(fifo.outcomes()[2], RowOutcome::conflict);
  EXPECT_EQ(check_dram_protocol(gddr5(), fifo.commands()), "");
}

TEST(FrFcfsScheduler, HoldsThePrechargeForAQueuedHitTheLtCoreCannot) {
  // Row A open; miss to B at 13; a write hit to A at 14 cannot end before a PRE at 28 (tWR), so
  // the LT core, which already returned the miss's time, makes it a second conflict; the
  // reference delays the PRE instead.
  const std::vector<DramRequest> reqs = {rd(0, 0, 1), rd(13, 0, 2), wr(14, 0, 1)};
  FrFcfsScheduler fr(gddr5(), 16);
  const std::vector<uint64_t> d = fr.run(reqs);
  EXPECT_EQ(d[2], 14 + kWL + kBurst);
  EXPECT_EQ(d[1], (14 + kWL + kBurst + kWR) + kRP + kRCD + kCL + kBurst);  // PRE after write recovery
  DramChannel ch(gddr5());
  std::vector<uint64_t> lt = serve_all(ch, reqs);
  EXPECT_GT(lt[2], d[2]);
  EXPECT_LT(lt[1], d[1]);
}

TEST(FrFcfsScheduler, KnownAnswersMatchTheLtCore) {
  // Lone read, hit, conflict, write recovery, tRRD: same numbers as the DramChannel tests.
  const std::vector<DramRequest> reqs = {rd(100, 3, 7), rd(1000, 3, 7), rd(2000, 3, 8), wr(3000, 4, 1),
                                         rd(3000, 5, 1), rd(3100, 4, 2)};
  FrFcfsScheduler fr(gddr5(), 16);
  const std::vector<uint64_t> d = fr.run(reqs);
  EXPECT_EQ(d[0], 100 + kRCD + kCL + kBurst);
  EXPECT_EQ(d[1], 1000 + kCL + kBurst);
  EXPECT_EQ(d[2], 2000 + kRP + kRCD + kCL + kBurst);
  EXPECT_EQ(d[4], 3000 + kRRD + kRCD + kCL + kBurst);
  DramChannel ch(gddr5());
  EXPECT_EQ(serve_all(ch, reqs), d);
  EXPECT_EQ(fr.row_hits(), 1u);
  EXPECT_EQ(fr.row_misses(), 3u);
  EXPECT_EQ(fr.row_conflicts(), 2u);
}

TEST(FrFcfsScheduler, FullQueueHoldsLaterRequestsBack) {
  // Bank 0 row 1, bank 1 row 1, bank 0 row 1 again, all at 0.
  const std::vector<DramRequest> reqs = {rd(0, 0, 1), rd(0, 1, 1), rd(0, 0, 1)};
  // Room for all: ACT 0 at 0, ACT 1 at tRRD, RD 0 at tRCD, the bank-0 hit tCCD later, then bank 1.
  FrFcfsScheduler wide(gddr5(), 4);
  EXPECT_EQ(wide.run(reqs), (std::vector<uint64_t>{kRCD + kCL + kBurst, kRRD + kRCD + kCL + kBurst,
                                                   kRCD + kCCD + kCL + kBurst}));
  // One entry: a request enters the cycle after the one before issued its last column command.
  FrFcfsScheduler one(gddr5(), 1);
  const uint64_t act1 = kRCD + 1, rd1 = act1 + kRCD;
  EXPECT_EQ(one.run(reqs), (std::vector<uint64_t>{kRCD + kCL + kBurst, rd1 + kCL + kBurst, rd1 + kCCD + kCL + kBurst}));
}

TEST(FrFcfsScheduler, StreamOverManyBanksReachesPeakBandwidth) {
  const DramParams p = gddr5();
  FrFcfsScheduler fr(p, 64);
  const std::vector<uint64_t> d = fr.run(sequential_stream(8192, 0));
  const uint64_t end = *std::max_element(d.begin(), d.end());
  const double per_cycle = 8192.0 * 128 / (end - double(kRCD + kCL));
  EXPECT_NEAR(per_cycle, p.bus_bytes * p.data_rate, 0.01 * p.bus_bytes * p.data_rate);
}

// ---- Cross-checks -------------------------------------------------------------------------

TEST(DramCores, LtCoreEqualsTheReferenceOnInOrderStreams) {
  const DramParams p = gddr5();
  // One bank, requests spaced beyond any completion: hits, conflicts, writes in any order.
  std::vector<DramRequest> sparse = random_stream(300, 0, 1, 3, 7);
  for (size_t i = 0; i < sparse.size(); ++i) sparse[i].arrival = 200 * i;
  // Line stream over all banks, saturating, and at half the peak rate (8 cycles per line at peak).
  const std::vector<std::vector<DramRequest>> streams = {sparse, sequential_stream(2048, 0),
                                                         sequential_stream(2048, 16)};
  for (const auto& s : streams) {
    DramChannel lt(p);
    FrFcfsScheduler ref(p, 4096);
    EXPECT_EQ(serve_all(lt, s), ref.run(s));
    FrFcfsScheduler fifo(p, 4096, DramSchedulePolicy::fcfs);
    DramChannel lt_fifo(p, false);
    EXPECT_EQ(serve_all(lt_fifo, s), fifo.run(s));
  }
}

TEST(DramCores, BothCoresObeyEveryTimingOnRandomStreams) {
  const DramParams p = gddr5();
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const std::vector<DramRequest> reqs = random_stream(2000, 1 + seed % 10, 4 + seed % 13, 1 + seed % 4, seed);
    for (bool reorder : {true, false}) {
      DramChannel lt(p, reorder);
      std::vector<DramCommand> log;
      lt.record_commands(&log);
      const std::vector<uint64_t> done = serve_all(lt, reqs);
      ASSERT_EQ(check_dram_protocol(p, log), "") << "seed " << seed << " reorder " << reorder;
      for (const DramCommand& c : log) ASSERT_GE(c.cycle, reqs[c.request].arrival);
      for (size_t i = 0; i < reqs.size(); ++i)
        ASSERT_GE(done[i], reqs[i].arrival + (reqs[i].is_write ? kWL : kCL) + kBurst);
      EXPECT_EQ(lt.row_hits() + lt.row_misses() + lt.row_conflicts(), reqs.size());
    }
    for (auto policy : {DramSchedulePolicy::fr_fcfs, DramSchedulePolicy::fcfs}) {
      FrFcfsScheduler ref(p, 32, policy);
      const std::vector<uint64_t> done = ref.run(reqs);
      ASSERT_EQ(check_dram_protocol(p, ref.commands()), "") << "seed " << seed;
      for (const DramCommand& c : ref.commands()) ASSERT_GE(c.cycle, reqs[c.request].arrival);
      for (size_t i = 0; i < reqs.size(); ++i)
        ASSERT_GE(done[i], reqs[i].arrival + (reqs[i].is_write ? kWL : kCL) + kBurst);
    }
  }
}

// The column fit searches the command bus, tCCD window and data bus a word at a time; the
// alternating gap search it replaced must give the same first cycle on every booked state
// (mixed reads and writes fragment the data bus: a write's data comes WL after its command, a
// read's CL after).
TEST(DramCores, WordSearchColumnFitEqualsTheAlternatingGapSearch) {
  const DramParams p = gddr5();
  std::mt19937 rng(41);
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    DramChannel ch(p);
    for (const DramRequest& r : random_stream(1500, 1 + seed % 4, 8, 2 + seed % 3, seed)) {
      for (int k = 0; k < 4; ++k) {
        const uint64_t c = r.arrival + rng() % 600;
        const bool w = rng() % 2;
        ASSERT_EQ(ch.first_column_cycle(c, w), ch.first_column_cycle(c, w, true))
            << "seed " << seed << " from " << c << (w ? " write" : " read");
      }
      ch.serve(r);
    }
  }
}

TEST(DramCores, LtCoreStaysLegalWithSkewedArrivalsAndAShortHorizon) {
  // Callers with temporal decoupling hand in arrivals out of order by up to a quantum.
  const DramParams p = gddr5();
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    std::vector<DramRequest> reqs = random_stream(3000, 4, 16, 8, seed);
    std::mt19937 rng(seed);
    for (DramRequest& r : reqs) r.arrival += rng() % 700;  // some beyond the horizon
    DramChannel lt(p, true, /*horizon=*/500);
    std::vector<DramCommand> log;
    lt.record_commands(&log);
    uint64_t latest = 0;
    for (size_t i = 0; i < reqs.size(); ++i) {
      latest = std::max(latest, reqs[i].arrival);
      const DramAccess a = lt.serve(reqs[i]);
      const uint64_t from = std::max(reqs[i].arrival, latest > 500 ? latest - 500 : 0);  // clamped at the horizon
      ASSERT_GE(a.completion, from + (reqs[i].is_write ? kWL : kCL) + kBurst);
    }
    for (const DramCommand& c : log) ASSERT_GE(c.cycle, reqs[c.request].arrival);
    ASSERT_EQ(check_dram_protocol(p, log), "") << "seed " << seed;
  }
}

TEST(DramCores, LtCoreMatchesTheReferenceBelowSaturationAndFcfsAbove) {
  // Random banks (8), rows (4), reads and writes, 32 B and 128 B: 80 B per request on average.
  const DramParams p = gddr5();
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    for (uint64_t gap : {8, 3}) {  // 10 B/cycle = 60 % of the 16 B/cycle peak; 27 B/cycle = overload
      const std::vector<DramRequest> reqs = random_stream(4000, gap, 8, 4, seed);
      DramChannel lt(p);
      FrFcfsScheduler fr(p, 64), fifo(p, 64, DramSchedulePolicy::fcfs);
      std::vector<uint64_t> a = serve_all(lt, reqs), b = fr.run(reqs), c = fifo.run(reqs);
      const double end_lt = double(*std::max_element(a.begin(), a.end()));
      const double end_fr = double(*std::max_element(b.begin(), b.end()));
      const double end_fifo = double(*std::max_element(c.begin(), c.end()));
      if (gap == 8) {
        EXPECT_NEAR(end_lt / end_fr, 1.0, 0.01) << "seed " << seed;
      } else {
        // A deep queue lets real FR-FCFS turn conflicts into hits; the LT core, which cannot
        // hold a booked PRE, does about as well as FCFS.
        EXPECT_GT(end_lt, end_fr) << "seed " << seed;
        EXPECT_LT(end_lt, 1.1 * end_fifo) << "seed " << seed;
      }
    }
  }
}

TEST(DramProtocolCheck, CatchesEachKindOfViolation) {
  const DramParams p = gddr5();
  using K = DramCommandKind;
  auto bad = [&](std::vector<DramCommand> c) { return check_dram_protocol(p, c); };
  EXPECT_EQ(bad({{0, K::activate, 0, 1, 0}, {12, K::read, 0, 1, 0}, {28, K::precharge, 0, 1, 0}}), "");
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {11, K::read, 0, 1, 0}}).find("tRCD"), std::string::npos);
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {12, K::read, 0, 2, 0}}).find("row not open"), std::string::npos);
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {5, K::activate, 1, 1, 0}}).find("tRRD"), std::string::npos);
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {27, K::precharge, 0, 1, 0}}).find("tRAS"), std::string::npos);
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {28, K::precharge, 0, 1, 0}, {39, K::activate, 0, 2, 0}}).find("tRP"),
            std::string::npos);
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {6, K::activate, 1, 1, 0}, {18, K::read, 0, 1, 0}, {19, K::read, 1, 1, 0}})
                .find("tCCD"),
            std::string::npos);
  // RD at 18 and WR at 26 both put their data on the bus at 30..32.
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {6, K::activate, 1, 1, 0}, {18, K::read, 0, 1, 0}, {26, K::write, 1, 1, 0}})
                .find("data bus"),
            std::string::npos);
  EXPECT_NE(bad({{0, K::activate, 0, 1, 0}, {0, K::activate, 1, 1, 0}}).find("same cycle"), std::string::npos);
}
