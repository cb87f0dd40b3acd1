// Functional cores: Left-Over FCFS order, the refusal record, metrics, address map, L2 tag array, TB-time sampling.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <random>
#include <map>
#include <queue>
#include <set>
#include <vector>

#include "block_scheduler/left_over.hpp"
#include "block_scheduler/refusals.hpp"
#include "common/address_map.hpp"
#include "common/metrics.hpp"
#include "common/release_times.hpp"
#include "l2/tag_array.hpp"
#include "workload/kernel.hpp"

using namespace mpgpu;

namespace {
// SMs that each hold `cap` TBs of any kernel; records every placement.
struct FakeSms {
  std::vector<int> free;
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> log;  // sm, kernel, tb
  explicit FakeSms(std::vector<int> caps) : free(std::move(caps)) {}
  bool operator()(uint32_t sm, uint32_t k, uint32_t tb) {
    if (free[sm] == 0) return false;
    --free[sm];
    log.emplace_back(sm, k, tb);
    return true;
  }
};
}  // namespace

TEST(LeftOverFcfs, IssuesRoundRobinOneTbPerSmPerPass) {
  LeftOverFcfs s(3);
  FakeSms sms({2, 2, 2});
  s.arrive(7, 5);
  EXPECT_EQ(s.schedule(std::ref(sms)), 5u);
  ASSERT_EQ(sms.log.size(), 5u);
  EXPECT_EQ(std::get<0>(sms.log[0]), 0u);
  EXPECT_EQ(std::get<0>(sms.log[1]), 1u);
  EXPECT_EQ(std::get<0>(sms.log[2]), 2u);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(std::get<2>(sms.log[i]), i);  // TBs in order
  EXPECT_TRUE(s.idle());
}

TEST(LeftOverFcfs, NextKernelOnlyGetsLeftOversAfterAllTbsIssued) {
  LeftOverFcfs s(2);
  FakeSms sms({3, 3});
  s.arrive(1, 4);  // kernel 1: 4 TBs, fits with 2 slots to spare
  s.arrive(2, 5);  // kernel 2 gets exactly the left-over 2 slots
  EXPECT_EQ(s.schedule(std::ref(sms)), 6u);
  int k1 = 0, k2 = 0;
  for (size_t i = 0; i < sms.log.size(); ++i) {
    const uint32_t k = std::get<1>(sms.log[i]);
    if (k == 1) {
      ++k1;
      EXPECT_EQ(k2, 0) << "kernel 2 issued before kernel 1 finished issuing";
    } else {
      ++k2;
    }
  }
  EXPECT_EQ(k1, 4);
  EXPECT_EQ(k2, 2);
  EXPECT_EQ(s.waiting_kernels(), 1u);
}

TEST(LeftOverFcfs, LaterKernelWaitsWhileEarlierHasTbsLeft) {
  LeftOverFcfs s(1);
  FakeSms sms({2});
  s.arrive(1, 3);
  s.arrive(2, 1);
  EXPECT_EQ(s.schedule(std::ref(sms)), 2u);
  sms.free[0] = 2;  // two TBs of kernel 1 finished
  EXPECT_EQ(s.schedule(std::ref(sms)), 2u);
  EXPECT_EQ(std::get<1>(sms.log[2]), 1u);  // the last TB of kernel 1 first
  EXPECT_EQ(std::get<1>(sms.log[3]), 2u);  // then kernel 2 in the left-over slot
  EXPECT_TRUE(s.idle());
}

// A round in which every SM refuses moves only the round-robin start; idle_round() moves it the
// same way without asking the SMs, so the next TBs go to the same SMs either way.
TEST(LeftOverFcfs, IdleRoundMovesTheRoundRobinStartAsARefusedRoundDoes) {
  for (uint32_t idle_rounds = 0; idle_rounds < 5; ++idle_rounds) {
    LeftOverFcfs asked(4), skipped(4);
    FakeSms a({1, 1, 1, 1}), b({1, 1, 1, 1});
    for (LeftOverFcfs* s : {&asked, &skipped}) s->arrive(3, 9);
    asked.schedule(std::ref(a)), skipped.schedule(std::ref(b));  // every SM full
    for (uint32_t i = 0; i < idle_rounds; ++i) {
      EXPECT_EQ(asked.schedule(std::ref(a)), 0u);
      skipped.idle_round();
    }
    a.free = b.free = {1, 1, 1, 1};
    asked.schedule(std::ref(a)), skipped.schedule(std::ref(b));
    EXPECT_EQ(a.log, b.log) << idle_rounds << " idle rounds";
  }
}

// Passes after a kernel's first ask only the SMs that took a TB in the pass before. With SMs of
// random room (refusals that last for the call, as the contract says), over random partition
// orders, kernels, side-by-side counts and calls with room freed between them, every TB goes
// where passes asking every SM put it (the reference below, the algorithm as SPEC 1 states it).
namespace {
struct ReferenceLeftOver {
  std::vector<uint32_t> sms;
  uint32_t next_sm = 0, side_by_side = 1;
  std::deque<PendingKernel> queue;
  template <typename F>
  void schedule(F&& try_dispatch) {
    const uint32_t n = uint32_t(sms.size());
    for (size_t at = 0; at < queue.size();) {
      PendingKernel& k = queue[at];
      for (bool progress = true; k.next_tb < k.grid && progress; next_sm = (next_sm + 1) % n) {
        progress = false;
        for (uint32_t i = 0; i < n && k.next_tb < k.grid; ++i)
          if (try_dispatch(sms[(next_sm + i) % n], k.id, k.next_tb)) ++k.next_tb, progress = true;
      }
      if (k.next_tb == k.grid) {
        queue.erase(queue.begin() + long(at));
        continue;
      }
      if (++at >= side_by_side) break;
    }
  }
};
}  // namespace

TEST(LeftOverFcfs, LaterPassesAskOnlyTheSmsThatTookAndIssueAsAskingAll) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t total = 1 + rng() % 16;
    std::vector<uint32_t> order;
    for (uint32_t sm = 0; sm < total; ++sm)
      if (rng() % 3) order.push_back(sm);
    if (order.empty()) order.push_back(0);
    std::shuffle(order.begin(), order.end(), rng);
    LeftOverFcfs fast(order), told(order);  // told: also given SMs known to refuse
    ReferenceLeftOver ref;
    ref.sms = order;
    const uint32_t sbs = 1 + rng() % 3;
    fast.set_side_by_side(sbs), told.set_side_by_side(sbs), ref.side_by_side = sbs;
    std::vector<int> caps(total);
    for (int& c : caps) c = int(rng() % 4);
    FakeSms a(caps), b(caps), c(caps);
    for (uint32_t id = 0; id < 4; ++id) {
      const uint32_t grid = 1 + rng() % 20;
      fast.arrive(id, grid), told.arrive(id, grid), ref.queue.push_back({id, grid});
    }
    for (int call = 0; call < 5; ++call) {
      fast.schedule(std::ref(a));
      ref.schedule(std::ref(b));
      // Some of the full SMs, as a launch's known refusers (SMs the partition does not hold too).
      uint64_t full = 0;
      for (uint32_t sm = 0; sm < total; ++sm)
        if (c.free[sm] == 0 && rng() % 4) full |= uint64_t{1} << sm;
      const uint32_t launch = uint32_t(rng() % 4);
      told.schedule(std::ref(c), [&](uint32_t id) { return id == launch ? full : 0; });
      ASSERT_EQ(a.log, b.log) << "trial " << trial << " call " << call;
      ASSERT_EQ(c.log, b.log) << "trial " << trial << " call " << call << " (told of refusals)";
      for (uint32_t sm = 0; sm < total; ++sm) {  // some TBs end: room comes back
        const int back = int(rng() % 3);
        a.free[sm] += back, b.free[sm] += back, c.free[sm] += back;
      }
    }
  }
}

// The refusal record keeps each SM's last refused launch; its mask holds exactly the SMs whose
// record is the most recently refused launch (SM ids from 64 on are only in the per-SM record).
TEST(Refusals, MaskFollowsTheLastRefusedLaunch) {
  Refusals r(70);
  EXPECT_EQ(r.refusing(5), 0u);
  r.refuse(1, 5), r.refuse(3, 5), r.refuse(65, 5);
  EXPECT_TRUE(r.refused(65, 5));
  EXPECT_EQ(r.refusing(5), 0b1010u);
  r.clear(1);
  EXPECT_FALSE(r.refused(1, 5));
  EXPECT_EQ(r.refusing(5), 0b1000u);
  r.refuse(2, 7);  // another launch: the mask starts over, SM 3's record stays
  EXPECT_EQ(r.refusing(5), 0u);
  EXPECT_EQ(r.refusing(7), 0b100u);
  EXPECT_TRUE(r.refused(3, 5));
  r.refuse(3, 7);
  EXPECT_EQ(r.refusing(7), 0b1100u);
  EXPECT_FALSE(r.refused(3, 5));
}

TEST(Metrics, HandComputed) {
  // NP = 0.5, 0.25, 1.0; NTT = 2, 4, 1.
  const auto m = compute_metrics({{10, 20}, {5, 20}, {7, 7}});
  EXPECT_DOUBLE_EQ(m.antt, 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.stp, 1.75);
  EXPECT_DOUBLE_EQ(m.fairness, 0.25);
  const auto alone = compute_metrics({{3, 3}});
  EXPECT_DOUBLE_EQ(alone.antt, 1.0);
  EXPECT_DOUBLE_EQ(alone.stp, 1.0);
  EXPECT_DOUBLE_EQ(alone.fairness, 1.0);
}

TEST(Metrics, RejectsNonPositiveTimes) { EXPECT_THROW(compute_metrics({{0, 1}}), std::invalid_argument); }

TEST(AddressMap, XorBitsKnownAnswer) {
  // b0 of SPEC 6 = X(10,12,16,20,23,26,29,30).
  const std::vector<std::vector<int>> b0 = {{10, 12, 16, 20, 23, 26, 29, 30}};
  EXPECT_EQ(AddressMap::xor_bits(0, b0), 0u);
  EXPECT_EQ(AddressMap::xor_bits(1ull << 10, b0), 1u);
  EXPECT_EQ(AddressMap::xor_bits((1ull << 10) | (1ull << 12), b0), 0u);
  EXPECT_EQ(AddressMap::xor_bits(1ull << 11, b0), 0u);
  const std::vector<std::vector<int>> two = {{10}, {11, 12}};
  EXPECT_EQ(AddressMap::xor_bits(1ull << 12, two), 2u);
}

TEST(AddressMap, XorDecodeEqualsTheEquationsBitByBit) {
  // decode() evaluates each equation as the parity of a bit mask; it must agree with the plain
  // XOR of the listed bits (SPEC 6's GTX 1080 b0..b2 and c3, plus an equation naming a bit twice
  // and a high bit) on any address.
  AddressMapParams p;
  p.kind = AddressMapParams::Kind::xor_hash;
  p.partitions = 8;
  p.l2_sets = 4;
  p.banks = 2;
  p.partition_bits = {{10, 12, 16, 20, 23, 26, 29, 30}, {11, 12, 13, 15, 17, 20, 21, 23, 25, 26, 30},
                      {12, 13, 18, 19, 22, 25, 26, 27, 30, 31}};
  p.set_bits = {{7, 8, 16, 17, 23, 26, 31}, {9, 14, 9, 39}};
  p.bank_bits = {{13, 15, 20, 24, 26, 29, 32}};
  const AddressMap m(p);
  uint64_t x = 12345;
  for (int i = 0; i < 10000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t a = x >> 24;
    const DecodedAddress d = m.decode(a);
    ASSERT_EQ(d.partition, AddressMap::xor_bits(a, p.partition_bits));
    ASSERT_EQ(d.set, AddressMap::xor_bits(a, p.set_bits));
    ASSERT_EQ(d.bank, AddressMap::xor_bits(a, p.bank_bits));
  }
}

TEST(AddressMap, InterleaveSpreadsChunksOverPartitions) {
  AddressMapParams p;
  p.partitions = 5;
  p.interleave_bytes = 256;
  p.l2_sets = 64;
  const AddressMap m(p);
  std::map<uint32_t, int> count;
  for (uint64_t a = 0; a < 256 * 50; a += 256) ++count[m.decode(a).partition];
  ASSERT_EQ(count.size(), 5u);
  for (auto& [part, n] : count) EXPECT_EQ(n, 10) << part;
  // Consecutive lines of one partition's chunks map to consecutive sets.
  EXPECT_EQ(m.decode(0).set, 0u);
  EXPECT_EQ(m.decode(128).set, 1u);
  EXPECT_EQ(m.decode(256 * 5).set, 2u);  // next chunk of partition 0
}

TEST(TagArray, LruEvictsLeastRecentlyUsed) {
  TagArray t(1, 2);
  EXPECT_FALSE(t.access(0, 1));
  EXPECT_FALSE(t.access(0, 2));
  EXPECT_TRUE(t.access(0, 1));   // 2 is now LRU
  EXPECT_FALSE(t.access(0, 3));  // evicts 2
  EXPECT_TRUE(t.contains(0, 1));
  EXPECT_FALSE(t.contains(0, 2));
  EXPECT_TRUE(t.access(0, 3));
}

// A record keeps owners in 16 bits and way numbers beside a dirty flag in 15: a context or a way
// count beyond them is refused, not wrapped, and the refused access changes nothing.
TEST(TagArray, RefusesOwnersAndWayCountsARecordCannotHold) {
  EXPECT_THROW(TagArray(1, 32768), std::invalid_argument);
  TagArray t(1, 2);
  uint32_t victim = 0;
  EXPECT_FALSE(t.access(0, 7, true, nullptr, 65535));
  EXPECT_THROW(t.access(0, 8, false, nullptr, 65536), std::out_of_range);
  EXPECT_FALSE(t.contains(0, 8));
  EXPECT_FALSE(t.access(0, 9, false, nullptr, 1));
  uint64_t evicted = 0;
  EXPECT_FALSE(t.access(0, 10, false, &evicted, 2, &victim));  // evicts 7: dirty, owner 65535
  EXPECT_EQ(evicted, 7u);
  EXPECT_EQ(victim, 65535u);
}

// The recency order of each set agrees with per-way time stamps (the reference: least recent
// stamp evicted, never-used ways lowest number first), with dirty write-backs and owners, over
// random reads and writes, set counts and way counts a 64-byte record fits unevenly. From the
// middle of each run on, a third of the lines lie at or past 2^32 - 1 (the first one widens the
// 4-byte tags to 8 bytes, with every set holding lines, dirty ones and owners).
TEST(TagArray, RecencyOrderAgreesWithTimeStamps) {
  struct RefWay {
    uint64_t tag = TagArray::kInvalid, stamp = 0;
    uint32_t owner = 0;
    bool dirty = false;
  };
  std::mt19937_64 rng(11);
  for (uint32_t ways : {1u, 2u, 5u, 16u, 33u}) {
    const uint32_t sets = 3;
    TagArray t(sets, ways);
    std::vector<RefWay> ref(size_t(sets) * ways);
    uint64_t clock = 0;
    bool wide_seen = false;
    for (int op = 0; op < 20000; ++op) {
      const uint32_t set = uint32_t(rng() % sets);
      uint64_t line = rng() % (ways + 3) * sets + set;  // a few more lines than ways per set
      // Past 4-byte tags: lines whose low 32 bits equal small lines', and the all-ones one.
      if (op >= 10000 && rng() % 3 == 0) line += rng() % 2 ? uint64_t{1} << 32 : 0xffffffffull - set;
      ASSERT_EQ(t.wide(), op > 10000 && wide_seen) << "ways " << ways << " op " << op;
      wide_seen = wide_seen || line >= 0xffffffffull;
      const bool write = rng() % 3 == 0;
      const uint32_t owner = uint32_t(rng() % 4) * 21845;  // up to 65535, the largest a record holds
      if (op % 97 == 0) {  // written through now and then
        t.clean(set, line);
        for (uint32_t w = 0; w < ways; ++w)
          if (ref[set * ways + w].tag == line) ref[set * ways + w].dirty = false;
        continue;
      }
      uint64_t evicted, replaced;
      uint32_t victim_owner;
      size_t way;
      const bool hit = t.access(set, line, write, &evicted, owner, &victim_owner, &way, &replaced);
      size_t want = set * ways;
      bool ref_hit = false;
      for (uint32_t w = 0; w < ways; ++w) {
        const RefWay& r = ref[set * ways + w];
        if (r.tag == line) {
          want = set * ways + w, ref_hit = true;
          break;
        }
        if (r.stamp < ref[want].stamp) want = set * ways + w;
      }
      ASSERT_EQ(hit, ref_hit) << "ways " << ways << " op " << op;
      ASSERT_EQ(way, want) << "ways " << ways << " op " << op;
      RefWay& r = ref[want];
      if (hit) {
        r.dirty = r.dirty || write;
      } else {
        const bool valid = r.tag != TagArray::kInvalid;
        ASSERT_EQ(replaced, r.tag);
        ASSERT_EQ(evicted, valid && r.dirty ? r.tag : TagArray::kInvalid);
        ASSERT_EQ(victim_owner, valid ? r.owner : TagArray::kNoOwner);
        r = {line, 0, owner, write};
      }
      r.stamp = ++clock;
      ASSERT_TRUE(t.contains(set, line));
    }
  }
}

// MSHR release times (L1D, TLBs, L2) kept sorted agree with a min-heap, and their k-th latest
// with a sorted copy: bookings mostly in time order with some out of it, releases up to moving
// times, enough to compact the released front.
TEST(ReleaseTimes, AgreesWithAMinHeap) {
  std::mt19937_64 rng(3);
  ReleaseTimes<uint64_t> t;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> ref;
  std::multiset<uint64_t> held;
  uint64_t now = 0;
  for (int op = 0; op < 100000; ++op) {
    if (rng() % 3) {
      const uint64_t at = now + (rng() % 8 ? 200 + rng() % 50 : rng() % 400);
      t.add(at), ref.push(at), held.insert(at);
    } else {
      now += rng() % 60;
      t.release_until(now);
      while (!ref.empty() && ref.top() <= now) ref.pop();
      held.erase(held.begin(), held.upper_bound(now));
    }
    ASSERT_EQ(t.size(), ref.size()) << "op " << op;
    if (!ref.empty()) {
      ASSERT_EQ(t.earliest(), ref.top()) << "op " << op;
      const size_t k = rng() % held.size();
      ASSERT_EQ(t.latest(k), *std::next(held.rbegin(), std::ptrdiff_t(k))) << "op " << op;
    }
  }
}

TEST(TbTime, SamplingIsDeterministicAndHasTheRightMean) {
  TbTimeDist d;
  d.kind = TbTimeDist::Kind::normal;
  d.mean_cycles = 1000;
  d.cv = 0.2;
  EXPECT_EQ(sample_tb_cycles(d, 1, 42, 7), sample_tb_cycles(d, 1, 42, 7));
  double sum = 0, sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double c = double(sample_tb_cycles(d, 1, 42, i));
    sum += c;
    sq += c * c;
  }
  const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
  EXPECT_NEAR(mean, 1000, 5);
  EXPECT_NEAR(sd, 200, 5);
  d.kind = TbTimeDist::Kind::fixed;
  EXPECT_EQ(sample_tb_cycles(d, 1, 42, 3), 1000u);
  d.kind = TbTimeDist::Kind::uniform;
  d.min_cycles = 10;
  d.max_cycles = 20;
  for (int i = 0; i < 100; ++i) {
    const auto c = sample_tb_cycles(d, 1, 42, i);
    EXPECT_GE(c, 10u);
    EXPECT_LE(c, 20u);
  }
}
