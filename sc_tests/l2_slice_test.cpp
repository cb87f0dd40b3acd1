// The L2 slice's misses, merges and hits with a fixed-latency memory behind it: a request to a
// line whose fill is on its way merges into it (also once another miss took the line's way),
// and one that starts after the fill hits. Its per-set fills in flight against plain lists.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "common/address_map.hpp"
#include "common/clock.hpp"
#include "common/release_times.hpp"
#include "l2/fills_in_flight.hpp"
#include "l2/l2_slice.hpp"
#include "test_initiator.hpp"

using namespace mpgpu;

namespace {

// Answers every request 1000 ns after it arrives and records the addresses read.
struct SlowMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<SlowMemory> in;
  std::vector<uint64_t> reads;
  explicit SlowMemory(sc_core::sc_module_name n) : sc_module(n), in("in") {
    in.register_b_transport(this, &SlowMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (gp.is_read()) reads.push_back(gp.get_address());
    delay += sc_core::sc_time(1000, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// One slice at 1 GHz (1 cycle = 1 ns), 10-cycle hits, one set of `ways` ways, 128 B lines.
struct L2Rig {
  AddressMap map;
  std::unique_ptr<L2Slice> l2;
  std::unique_ptr<SlowMemory> mem;
  std::unique_ptr<test::TestInitiator> src;

  explicit L2Rig(uint32_t ways) : map([] {
      AddressMapParams a;
      a.l2_sets = 1;
      return a;
    }()) {
    L2Params p;
    p.sets = 1;
    p.ways = ways;
    p.hit_latency_cycles = 10;
    p.mshrs = 8;
    l2 = std::make_unique<L2Slice>("l2", p, ClockDomain(1000), map);
    mem = std::make_unique<SlowMemory>("mem");
    src = std::make_unique<test::TestInitiator>("src");
    l2->mem_out.bind(mem->in);
    src->out.bind(l2->mem_in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end elaboration: sockets bound
  }
  // Reads the line at `addr`, arriving at `at` ns; returns when the data is back (ns).
  uint64_t read(uint64_t addr, uint64_t at) {
    tlm::tlm_generic_payload gp;
    uint8_t data[128];
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(128);
    sc_core::sc_time delay(double(at), sc_core::SC_NS);
    src->out->b_transport(gp, delay);
    return uint64_t(to_ns(delay) + 0.5);
  }
};

}  // namespace

// Miss at 0: tag lookup, hit latency, then memory: back at 10 + 1000. A read of the line at 500
// merges (back at the same fill); one at 2000 hits (2000 + 10).
TEST(L2Slice, ARequestMergesIntoAFillOnItsWayAndHitsAfterIt) {
  L2Rig r(4);
  EXPECT_EQ(r.read(0x1000, 0), 1010u);
  EXPECT_EQ(r.read(0x1000, 500), 1010u);
  EXPECT_EQ(r.read(0x1000, 2000), 2010u);
  EXPECT_EQ(r.mem->reads.size(), 1u);
  EXPECT_EQ(r.l2->misses(), 1u);
  EXPECT_EQ(r.l2->merged(), 1u);
  EXPECT_EQ(r.l2->hits(), 1u);
}

// One way: line B's miss takes the way of line A in the tags while A's fill is still on its way
// (B is sent once A's fill frees the way: back at 1010 + 1000). A read of A before its fill still
// merges into it (no second read of A) and takes the way back; B likewise merges into its own.
// After both fills, B holds the way: B hits, A misses and is read again.
TEST(L2Slice, ALineWhoseWayWasTakenBeforeItsFillStillMerges) {
  L2Rig r(1);
  EXPECT_EQ(r.read(0x1000, 0), 1010u);    // A: miss
  EXPECT_EQ(r.read(0x2000, 100), 2010u);  // B: miss, evicts A (pending), waits for the way
  EXPECT_EQ(r.read(0x1000, 200), 1010u);  // A: merges into its fill, evicts B (pending)
  EXPECT_EQ(r.read(0x2000, 300), 2010u);  // B: merges into its fill
  EXPECT_EQ(r.mem->reads, (std::vector<uint64_t>{0x1000, 0x2000}));
  EXPECT_EQ(r.l2->misses(), 2u);
  EXPECT_EQ(r.l2->merged(), 2u);
  EXPECT_EQ(r.read(0x2000, 3000), 3010u);
  EXPECT_EQ(r.read(0x1000, 3100), 3100u + 10 + 1000);
  EXPECT_EQ(r.mem->reads.size(), 3u);
  EXPECT_EQ(r.l2->hits(), 1u);
}

// The evicted lines' list is swept once it has doubled since its last sweep (at least twice the
// ways), not at a fixed length: 100 lines evicted with fills far ahead all stay (sweeps at 4, 8,
// ..., 64 keep them, the next is due at 128); once they are done, 28 more evictions fill it to
// 128, and the sweep there leaves only those 28. Sweeping at 2 x ways (the old rule) would have
// swept on each of the 100; sweeping at 4x would have let it grow to 256.
TEST(FillsInFlight, EvictedListsAreSweptAtADoubling) {
  FillsInFlight f(1, 2);
  for (uint64_t i = 0; i < 100; ++i) f.evict(0, i, 1'000'000 + i, 10 + i);
  EXPECT_EQ(f.evicted_kept(0), 100u);
  const uint64_t now = 2'000'000;  // every one of them done
  std::vector<size_t> kept;
  for (uint64_t i = 0; i < 30; ++i) {
    f.evict(0, 1000 + i, now + 500, now);
    kept.push_back(f.evicted_kept(0));
  }
  EXPECT_EQ(kept[27], 128u);  // not swept while it doubles
  EXPECT_EQ(kept[28], 29u);   // swept at 128: the 28 pending stay, then the new one
  EXPECT_EQ(kept[29], 30u);
  uint64_t fill = 0;
  EXPECT_FALSE(f.take_evicted(0, 5, now, fill));  // done: as if gone
  EXPECT_TRUE(f.take_evicted(0, 1003, now, fill));
  EXPECT_EQ(fill, now + 500);
}

// The per-set fills in flight against the lists they replaced: every fill kept until done (the
// way check reads the ways-th latest), every evicted line scanned and expired on each take.
// Random holds, evictions, takes and way checks, with time moving on, over several way counts;
// also congested (many lines, evicted fills far ahead: more evicted lines pending per set than
// twice the ways), where the kept list must still stay within twice the most ever pending.
TEST(FillsInFlight, AgreesWithUnboundedListsScannedOnEveryTake) {
  struct RefEvicted {
    uint64_t line, fill;
  };
  std::mt19937_64 rng(5);
  for (const bool congested : {false, true})
  for (uint32_t ways : {1u, 2u, 4u, 16u, 33u}) {
    const uint32_t sets = 3;
    const uint64_t lines = congested ? 2000 : 24, evicted_horizon = congested ? 3000 : 300;
    size_t most_pending = 0, longest_kept = 0;
    FillsInFlight f(sets, ways);
    std::vector<ReleaseTimes<uint64_t>> held(sets);
    std::vector<std::vector<RefEvicted>> evicted(sets);
    uint64_t now = 100, waits = 0, taken = 0;
    for (int op = 0; op < 40000; ++op) {
      now += rng() % 3;
      const uint32_t set = uint32_t(rng() % sets);
      const uint64_t line = rng() % lines;
      auto ref_take = [&](uint64_t& fill) {  // the old scan: drops fills done by now, takes the line
        bool found = false;
        auto& list = evicted[set];
        for (size_t i = 0; i < list.size();) {
          const bool match = list[i].line == line;
          if (match) fill = list[i].fill, found = true;
          if (match || list[i].fill <= now) list[i] = list.back(), list.pop_back();
          else ++i;
        }
        return found && fill > now;
      };
      switch (rng() % 3) {
        case 0: {  // a miss: the way check, then a hold
          const uint64_t at = now + rng() % 40;
          held[set].release_until(now);
          bool ref_waited = false, waited = false;
          uint64_t ref = at;
          if (held[set].size() >= ways && held[set].latest(ways - 1) > at) ref = held[set].latest(ways - 1), ref_waited = true;
          ASSERT_EQ(f.way_free_at(set, at, now, waited), ref) << "ways " << ways << " op " << op;
          ASSERT_EQ(waited, ref_waited);
          waits += waited;
          const uint64_t fill = ref + 1 + rng() % (12 * ways + 60);  // enough in flight to fill the ways
          held[set].add(fill);
          f.hold_way(set, fill);
          ASSERT_LE(f.held(set), ways);
          break;
        }
        case 1: {  // a line loses its way in flight (taken out first, as the slice does)
          uint64_t a = 0, b = 0;
          ASSERT_EQ(f.take_evicted(set, line, now, a), ref_take(b));
          const uint64_t fill = now + 1 + rng() % evicted_horizon;
          evicted[set].push_back({line, fill});
          f.evict(set, line, fill, now);
          size_t pending = 0;
          for (const RefEvicted& e : evicted[set]) pending += e.fill > now;
          most_pending = std::max(most_pending, pending);
          longest_kept = std::max(longest_kept, f.evicted_kept(set));
          ASSERT_LE(f.evicted_kept(set), 2 * std::max<size_t>(ways, most_pending)) << "ways " << ways << " op " << op;
          break;
        }
        default: {  // a request looks for its line among the evicted ones
          uint64_t a = 0, b = 0;
          const bool ref = ref_take(b);
          ASSERT_EQ(f.take_evicted(set, line, now, a), ref) << "ways " << ways << " op " << op;
          if (ref) {
            ASSERT_EQ(a, b);
            ++taken;
          }
          break;
        }
      }
    }
    EXPECT_GT(waits, 100u) << ways;  // the way check did hold misses back
    EXPECT_GT(taken, congested ? 10u : 100u) << ways;  // and evicted lines were found in flight
    // Congested: lists longer than twice the ways were kept (the doubling rule was exercised).
    if (congested && ways <= 16) {
      EXPECT_GT(longest_kept, 2u * ways + 8) << ways;
    }
  }
}
