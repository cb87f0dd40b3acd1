// Known-answer tests of the warp-level timing mechanisms added for fidelity against Accel-Sim:
// operand-read and write-back stages, the instruction cache, warp exit on store acknowledgement,
// local memory cached in L1 under bypass_global_loads, and atomics (serialization depth and
// atomics_block_warp). SmPipeline is driven by a fake memory port; every expected number is
// worked out by hand in the comment next to it, and each test fails if its mechanism is removed.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "common/config_node.hpp"
#include "sm/pipeline.hpp"
#include "workload/kernel.hpp"
#include "workload/program.hpp"
#include "pipeline_rig.hpp"

using namespace mpgpu;
using namespace mpgpu::test;

// The baseline of pipeline_rig.hpp: 1 GTO scheduler, issue width 1, fetch_latency F = 2, every unit
// {count 1, latency 4, ii 1}; L1D 32 sets x 4 ways x 128 B, 64 MSHRs, hit latency 10; operand_read 0,
// writeback 0, perfect instruction cache; the port answers a.cycle + 100.

// ---------------------------------------------------------------------------------------------
// Operand read and write-back stages
// ---------------------------------------------------------------------------------------------

// result ready = issue + operand_read + unit latency + writeback; a dependent instruction issues then.
TEST(Timing, OperandReadAndWritebackLengthenADependentChain) {
  const std::string chain =
      "body:\n"
      "  - {op: sp, dst: r1}\n"
      "  - {op: sp, dst: r2, src: r1}\n";
  Rig staged(chain, 32, [](SmParams& p) {
    p.pipeline.operand_read = 3;
    p.pipeline.writeback = 1;
  });
  Rig plain(chain);
  staged.start();
  plain.start();
  staged.run();
  plain.run();
  // sp at 0: r1 ready 0 + 3 + 4 + 1 = 8; the dependent sp issues at 8, ready 8 + 3 + 4 + 1 = 16.
  ASSERT_EQ(staged.done.size(), 1u);
  EXPECT_EQ(staged.done[0].cycle, 16u);
  // Without the stages: 0 + 4 = 4, 4 + 4 = 8.
  ASSERT_EQ(plain.done.size(), 1u);
  EXPECT_EQ(plain.done[0].cycle, 8u);
}

// Memory: the ld/st unit takes the load at issue + operand_read; its destination is ready at the
// data's return + writeback.
TEST(Timing, OperandReadDelaysTheLoadAndWritebackItsResult) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n",
      32, [](SmParams& p) {
        p.pipeline.operand_read = 3;
        p.pipeline.writeback = 1;
      });
  r.start();
  r.run();
  // ld at 0: the unit takes it at 3, the miss leaves at its tag check 3, fill 103, r1 ready
  // 103 + 1 = 104; the sp issues at 104, ready 104 + 3 + 4 + 1 = 112.
  ASSERT_EQ(r.port.log.size(), 1u);
  EXPECT_EQ(r.port.log[0].cycle, 3u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 112u);
}

// ---------------------------------------------------------------------------------------------
// Instruction cache
// ---------------------------------------------------------------------------------------------

namespace {
// 4 sets x 2 ways x 128 B lines, 2 MSHRs, 2 cycles from a line's arrival to its first issue,
// 8 B per instruction: 16 instructions per line.
void icache_on(SmParams& p) {
  p.icache.sets = 4;
  p.icache.ways = 2;
  p.icache.line_bytes = 128;
  p.icache.mshrs = 2;
  p.icache.latency = 2;
  p.icache.instruction_bytes = 8;
}
}  // namespace

// 20 instructions = 160 B = 2 code lines (the kernel's code starts 16 MiB-aligned): the warp
// waits for each line's fill.
TEST(Timing, InstructionCacheMissesHoldTheWarpUntilTheFill) {
  Rig r(independent_sp(20), 32, icache_on);
  r.start();
  r.run();
  // Launch at 0: line 0 misses, sent at 0, fill 100, first issue at 100 + 2 = 102; instructions
  // 0..15 issue at 102..117. Moving to instruction 16 (byte 128, line 1) at 117: miss, sent at
  // 117, fill 217, issue at 219; instructions 16..19 at 219..222; the last commits 222 + 4 = 226.
  ASSERT_EQ(r.port.log.size(), 2u);
  EXPECT_EQ(r.accesses(AccessKind::instruction), 2u);
  EXPECT_EQ(r.port.log[0].cycle, 0u);
  EXPECT_EQ(r.port.log[1].cycle, 117u);
  EXPECT_EQ(r.port.log[0].bytes, 128u);
  EXPECT_EQ(r.port.log[1].addr, r.port.log[0].addr + 128);  // consecutive code lines
  EXPECT_EQ(r.port.log[0].addr % (uint64_t{1} << 24), 0u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 226u);
  EXPECT_EQ(r.st().icache_accesses, 2u);
  EXPECT_EQ(r.st().icache_misses, 2u);
}

// A second warp of the TB finds each line in flight or filled: it merges, no extra access.
TEST(Timing, SecondWarpOfTheTbMergesOnTheInstructionCache) {
  Rig r(independent_sp(20), 64, icache_on);  // 2 warps, one scheduler
  r.start();
  r.run();
  // Line 0: warp 0 misses at 0 (fill 100); warp 1 merges at 0: both may issue from 102. GTO:
  // warp 0 issues 0..15 at 102..117 and misses line 1 at 117 (fill 217, ready 219); warp 1
  // issues 0..15 at 118..133 and merges on line 1 at 133 (ready 219). From 219 the two warps'
  // last 4 instructions each issue at 219..226; the last commits 226 + 4 = 230.
  EXPECT_EQ(r.port.log.size(), 2u);
  EXPECT_EQ(r.accesses(AccessKind::instruction), 2u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 230u);
  EXPECT_EQ(r.st().icache_accesses, 4u);  // 2 lines x 2 warps
  EXPECT_EQ(r.st().icache_misses, 2u);
}

// Disabled (sets 0, the default): no instruction accesses, the warp issues from cycle 0.
TEST(Timing, PerfectInstructionCacheMakesNoAccesses) {
  Rig r(independent_sp(20));
  r.start();
  r.run();
  // Issues at 0..19, last commit 19 + 4 = 23.
  EXPECT_TRUE(r.port.log.empty());
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 23u);
  EXPECT_EQ(r.st().icache_accesses, 0u);
}

// ---------------------------------------------------------------------------------------------
// Stores: a warp ends when its stores are acknowledged
// ---------------------------------------------------------------------------------------------

TEST(Timing, TbFinishesAtTheLastStoreAcknowledgement) {
  Rig r(
      "body:\n"
      "  - {op: sp, dst: r1}\n"
      "  - {op: st.global, src: r1, addr: {base: 0x10000, gtid: 4}}\n",
      64);
  // Warp slot 0's stores are acknowledged 300 cycles after they leave, warp slot 1's after 200.
  r.port.script = [](const MemAccess& a, size_t) { return a.cycle + (a.warp == 0 ? 300 : 200); };
  r.start();
  r.run();
  // w0: sp 0 (r1 at 4); w1: sp 1 (r1 at 5); w0 st at 4 leaves at its tag check 4, ack 304;
  // w1 st at 5 (ld/st unit free again), leaves 5, ack 205. The TB ends at the later ack, 304
  // (without acknowledgements it would end at 5 + 1 = 6).
  ASSERT_EQ(r.port.log.size(), 2u);
  EXPECT_EQ(r.port.log[0].kind, AccessKind::store);
  EXPECT_EQ(r.port.log[0].cycle, 4u);
  EXPECT_EQ(r.port.log[1].cycle, 5u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 304u);
}

// ---------------------------------------------------------------------------------------------
// Local memory: cached in L1 even when global loads bypass it
// ---------------------------------------------------------------------------------------------

namespace {
// The program format has no ld.local: the loads are parsed as ld.global and made local here.
void make_loads_local(WarpProgram& p) {
  for (ProgInstr& i : p.instrs)
    if (i.op == MemOp::load) i.space = MemSpace::local;
}
const std::string kTwoLoadsOfOneOffset =
    "body:\n"
    "  - {op: ld.global, dst: r1, addr: {base: 16}}\n"
    "  - {op: sp, dst: r2, src: r1}\n"
    "  - {op: ld.global, dst: r3, addr: {base: 16}}\n"
    "  - {op: sp, dst: r4, src: r3}\n";
void bypass(SmParams& p) { p.l1d.bypass_global_loads = true; }
}  // namespace

TEST(Timing, LocalLoadsHitInL1UnderGlobalBypass) {
  Rig local(kTwoLoadsOfOneOffset, 32, bypass, make_loads_local);
  Rig global(kTwoLoadsOfOneOffset, 32, bypass);
  Rig uncached(kTwoLoadsOfOneOffset, 32, [](SmParams& p) {
    p.l1d.bypass_global_loads = true;
    p.l1d.cache_local = false;
  }, make_loads_local);
  for (Rig* r : {&local, &global, &uncached}) {
    r->start();
    r->run();
  }
  // Local: offset 16 of each of the 32 threads, interleaved by word, is one 128 B line of the
  // warp's local window (1 << 47) + (launch 7 << 39) + (warp 0 << 20), at 4 words x 128 B = 512.
  // ld 0 misses (leaves 0, fill 100); sp 100; ld 101 hits, ready 101 + 10 = 111; sp 111 -> 115.
  ASSERT_EQ(local.port.log.size(), 1u);
  EXPECT_EQ(local.port.log[0].addr, (uint64_t{1} << 47) + (uint64_t{7} << 39) + 512);
  EXPECT_EQ(local.port.log[0].bytes, 128u);
  EXPECT_EQ(local.st().l1_hits, 1u);
  EXPECT_EQ(local.st().l1_misses, 1u);
  ASSERT_EQ(local.done.size(), 1u);
  EXPECT_EQ(local.done[0].cycle, 115u);
  // Global under bypass: ld 0 (fill 100), sp 100, ld 101 misses again (fill 201); sp 201 -> 205.
  EXPECT_EQ(global.port.log.size(), 2u);
  EXPECT_EQ(global.st().l1_hits, 0u);
  ASSERT_EQ(global.done.size(), 1u);
  EXPECT_EQ(global.done[0].cycle, 205u);
  // cache_local false: local loads bypass too, the same 205.
  EXPECT_EQ(uncached.port.log.size(), 2u);
  EXPECT_EQ(uncached.st().l1_hits, 0u);
  ASSERT_EQ(uncached.done.size(), 1u);
  EXPECT_EQ(uncached.done[0].cycle, 205u);
}

// ---------------------------------------------------------------------------------------------
// Atomics
// ---------------------------------------------------------------------------------------------

// MemAccess::ops = the most lanes naming one 4-byte word of the line.
TEST(Timing, AtomicSerializationDepthIsTheMostLanesOnOneWord) {
  auto ops_of = [](const std::string& addr) -> std::vector<uint32_t> {
    Rig r("body:\n  - {op: atom.global, dst: r1, addr: " + addr + "}\n");
    r.start();
    r.run();
    std::vector<uint32_t> ops;
    for (const MemAccess& a : r.port.log) {
      EXPECT_EQ(a.kind, AccessKind::atomic);
      ops.push_back(a.ops);
    }
    return ops;
  };
  // All 32 lanes on one word: one line, 32 operations one after the other.
  EXPECT_EQ(ops_of("{base: 0x10000}"), std::vector<uint32_t>{32});
  // 32 distinct words of one line: updated together, 1.
  EXPECT_EQ(ops_of("{base: 0x10000, lane: 4}"), std::vector<uint32_t>{1});
  // Lane offsets 0, 4, 8, 12 repeating (wrap 16): 4 words with 8 lanes each -> 8.
  EXPECT_EQ(ops_of("{base: 0x10000, lane: 4, wrap: 16}"), std::vector<uint32_t>{8});
}

// atomics_block_warp: the warp issues nothing more until its atomic returns.
TEST(Timing, AtomicsBlockWarpHoldsTheNextIndependentInstruction) {
  const std::string prog =
      "body:\n"
      "  - {op: atom.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2}\n";
  Rig block(prog, 32, [](SmParams& p) { p.pipeline.atomics_block_warp = true; });
  Rig free(prog);
  block.start();
  free.start();
  // The atomic issues at 0, leaves at 0, returns at 0 + 100 = 100.
  // Blocking: the independent sp issues at 100 (not before), commits 104.
  EXPECT_EQ(block.issued_before(100), 1u);
  EXPECT_EQ(block.issued_before(101), 2u);
  // Not blocking: the sp issues at F = 2, commits 6; the TB still ends at the atomic's return 100.
  EXPECT_EQ(free.issued_before(2), 1u);
  EXPECT_EQ(free.issued_before(3), 2u);
  block.run();
  free.run();
  ASSERT_EQ(block.done.size(), 1u);
  EXPECT_EQ(block.done[0].cycle, 104u);
  ASSERT_EQ(free.done.size(), 1u);
  EXPECT_EQ(free.done[0].cycle, 100u);
}

// The clock's inline conversions give the kernel's own results bit for bit (to_seconds) and value
// for value (from_value), over small, large and random times; a cycle's time converts back to it.
TEST(Timing, ClockConversionsMatchTheKernel) {
  std::mt19937_64 rng(13);
  for (int i = 0; i < 200000; ++i) {
    const sc_dt::uint64 v = i < 1000 ? sc_dt::uint64(i) : rng() >> (rng() % 40);
    const sc_core::sc_time t = sc_core::sc_time::from_value(v);
    ASSERT_EQ(clock_detail::to_seconds(t), t.to_seconds()) << v;  // exact equality, not near
    ASSERT_EQ(clock_detail::from_value(v), t) << v;
  }
  for (double mhz : {1607.0, 1733.0, 700.0, 2500.0, 1000.0, 875.5}) {
    const ClockDomain clk(mhz);
    for (uint64_t c : {uint64_t{0}, uint64_t{1}, uint64_t{12345}, uint64_t{987654321}})
      EXPECT_EQ(clk.to_cycles_ceil(clk.cycles(double(c))), c) << mhz << " MHz, cycle " << c;
  }
  // cycles(n) is the time the kernel itself makes of n periods in ps (its rounding included).
  for (double mhz : {1607.0, 1733.0, 700.0, 2500.0, 1000.0, 875.5, 976.5625}) {
    const ClockDomain clk(mhz);
    for (int i = 0; i < 20000; ++i) {
      const double n = double(rng() >> (24 + rng() % 40));  // up to 2^40 cycles
      ASSERT_EQ(clk.cycles(n), sc_core::sc_time(n * clk.period_ps(), sc_core::SC_PS)) << mhz << " MHz, cycle " << n;
    }
  }
}

// to_cycles_ceil (a reciprocal guess settled on the edges) is the least c with cycles(c) >= t, and
// equals the division's answer, on every bundled platform clock and others, at random times up to
// hours and one unit either side of random edges. (At 1 MHz and below, a period of 10^6 ps or more, the
// division's 1e-6 tolerance puts a time one unit past an edge on that edge; no platform clocks
// that slowly, and only the definition is checked there.)
TEST(Timing, CycleCeilingIsTheFirstEdgeAtOrAfter) {
  std::mt19937_64 rng(29);
  for (double mhz : {1607.0, 2500.0, 1400.0, 700.0, 924.0, 706.0, 1300.0, 1365.0, 3500.0, 1000.0, 976.5625, 1200.0,
                     850.0, 1733.0, 875.5, 1.0, 1e6, 0.5, 0.001}) {
    const ClockDomain clk(mhz);
    auto check = [&](sc_dt::uint64 v) {
      const sc_core::sc_time t = sc_core::sc_time::from_value(v);
      const uint64_t c = clk.to_cycles_ceil(t);
      ASSERT_GE(clk.cycles(double(c)), t) << mhz << " MHz, value " << v;
      if (c > 0) {
        ASSERT_LT(clk.cycles(double(c - 1)), t) << mhz << " MHz, value " << v;
      }
      if (mhz > 1.0) {
        ASSERT_EQ(c, clk.to_cycles_ceil_by_division(t)) << mhz << " MHz, value " << v;
      }
    };
    for (int i = 0; i < 20000; ++i) {
      check(i < 2000 ? sc_dt::uint64(i) : rng() >> (rng() % 20 + 20));
      const sc_dt::uint64 e = clk.cycles(double(rng() >> 28)).value();
      for (sc_dt::uint64 near : {e - std::min<sc_dt::uint64>(e, 1), e, e + 1}) check(near);
    }
  }
}

