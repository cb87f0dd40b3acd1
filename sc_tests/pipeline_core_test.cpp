// Known-answer tests of the warp-level SM pipeline's plain-C++ cores (SPEC 1, "SM pipeline"):
// SmPipeline driven by a fake memory port, the L1D tag/MSHR core, the coalescer and shared-memory
// bank conflicts, and the YAML warp-program reader. Every expected number is worked out by hand
// from the parameters in the comment next to it.
#include <random>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/config_node.hpp"
#include "common/error.hpp"
#include "sm/coalescer.hpp"
#include "sm/l1d_cache.hpp"
#include "sm/pipeline.hpp"
#include "workload/kernel.hpp"
#include "workload/program.hpp"
#include "pipeline_rig.hpp"

using namespace mpgpu;
using namespace mpgpu::test;

namespace {


}  // namespace

// ---------------------------------------------------------------------------------------------
// Issue, scoreboard, functional units
// ---------------------------------------------------------------------------------------------

// A RAW chain serializes on the unit latency; the TB finishes at the last result's commit.
TEST(PipelineCore, DependentChainFinishesAtStartPlusNTimesLatency) {
  Rig r("body:\n"
        "  - {op: sp, dst: r1, src: r1}\n"
        "  - {op: sp, dst: r1, src: r1}\n"
        "  - {op: sp, dst: r1, src: r1}\n"
        "  - {op: sp, dst: r1, src: r1}\n"
        "  - {op: sp, dst: r1, src: r1}\n");
  r.start(0, 0, 100);
  r.run();
  // N = 5, L = 4, start 100: issues at 100, 104, 108, 112, 116; last commit 116 + 4 = 120 = 100 + 5*4.
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].slot, 0u);
  EXPECT_EQ(r.done[0].cycle, 120u);
  EXPECT_EQ(r.st().warp_instructions, 5u);
  EXPECT_EQ(r.st().thread_instructions, 5u * 32);
  // Cycles 100..116 were live (17); 5 issued, the 3 bubbles after each of the 4 first issues wait
  // on an arithmetic result: 4 * 3 = 12.
  EXPECT_EQ(r.st().issue_cycles, 5u);
  EXPECT_EQ(r.st().stall_raw_compute, 12u);
  EXPECT_EQ(r.stall_sum(), 17u);
}

// The same chain on r20: a warp of 21 registers keeps its scoreboard out of line (beyond the
// warp's inline 16); the dependences and the finish are the same. A warp of 21 registers then
// and one of 2 after it reuse one warp slot, each with its own scoreboard.
TEST(PipelineCore, DependentChainOnAHighRegisterFinishesAlike) {
  auto chain = [](const std::string& reg) {
    std::string y = "body:\n";
    for (int i = 0; i < 5; ++i) y += "  - {op: sp, dst: " + reg + ", src: " + reg + "}\n";
    return y;
  };
  Rig r(chain("r20"));
  r.start(0, 0, 100);
  r.run();
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 120u);  // 100 + 5 * 4, as on r1
  EXPECT_EQ(r.st().stall_raw_compute, 12u);
  // A kernel of 2 registers next, in the warp slot the first one left: from 200, done at 220.
  KernelDesc small = r.desc;
  small.program = std::make_shared<WarpProgram>(*program(chain("r1")));
  KernelLaunch next = r.launch;
  next.id = 8;
  next.kernel = &small;
  ASSERT_TRUE(r.pipe->launch_tb(0, &next, 0, 200));
  r.run();
  ASSERT_EQ(r.done.size(), 2u);
  EXPECT_EQ(r.done[1].cycle, 220u);
  EXPECT_EQ(r.st().stall_raw_compute, 24u);
}

// Independent instructions on a unit with ii 1 issue back to back, one per cycle.
TEST(PipelineCore, IndependentOpsIssueOnePerCycle) {
  Rig r(independent_sp(6));
  r.start();
  // Issues at 0..5: three issued before cycle 3.
  EXPECT_EQ(r.issued_before(3), 3u);
  r.run();
  // Last issue at 5, commit 5 + 4 = 9.
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 9u);
  EXPECT_EQ(r.st().stall_compute_pipe + r.st().stall_raw_compute, 0u);
}

// The initiation interval keeps a unit instance busy: ii 3 spaces independent issues 3 apart.
TEST(PipelineCore, InitiationIntervalSpacesIssues) {
  Rig r(independent_sp(4), 32, [](SmParams& p) { p.pipeline.units[kSp] = {1, 4, 3}; });
  r.start();
  r.run();
  // Issues at 0, 3, 6, 9; finish 9 + 4 = 13.
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 13u);
  // Cycles 1,2,4,5,7,8: ready but the sp unit is busy -> compute-pipe stalls = 6.
  EXPECT_EQ(r.st().stall_compute_pipe, 6u);
  EXPECT_EQ(r.st().issue_cycles, 4u);
}

// Two instances of a unit with ii 2 accept one instruction per cycle (double the rate of one).
TEST(PipelineCore, TwoUnitInstancesDoubleTheRate) {
  Rig one(independent_sp(6), 32, [](SmParams& p) { p.pipeline.units[kSp] = {1, 4, 2}; });
  Rig two(independent_sp(6), 32, [](SmParams& p) { p.pipeline.units[kSp] = {2, 4, 2}; });
  one.start();
  two.start();
  one.run();
  two.run();
  // One instance: issues at 0,2,4,6,8,10 -> finish 10 + 4 = 14.
  ASSERT_EQ(one.done.size(), 1u);
  EXPECT_EQ(one.done[0].cycle, 14u);
  // Two instances: 0,1,2,3,4,5 (alternating instances) -> finish 5 + 4 = 9.
  ASSERT_EQ(two.done.size(), 1u);
  EXPECT_EQ(two.done[0].cycle, 9u);
}

// issue_width 2 lets one scheduler issue from two warps in the same cycle (with 2 sp instances).
TEST(PipelineCore, IssueWidthTwoIssuesTwoWarpsPerCycle) {
  auto tweak = [](uint32_t width) {
    return [width](SmParams& p) {
      p.pipeline.issue_width = width;
      p.pipeline.units[kSp] = {2, 4, 1};
    };
  };
  Rig w2(independent_sp(4), 64, tweak(2));  // 64 threads: 2 warps, both on scheduler 0
  Rig w1(independent_sp(4), 64, tweak(1));
  w2.start();
  w1.start();
  // Width 2: both warps issue at 0..3 -> 4 instructions before cycle 2. Width 1: 2.
  EXPECT_EQ(w2.issued_before(2), 4u);
  EXPECT_EQ(w1.issued_before(2), 2u);
  w2.run();
  w1.run();
  // Width 2: last issues at 3 -> finish 3 + 4 = 7. Width 1 (GTO: warp 0 at 0..3, warp 1 at 4..7): 7 + 4 = 11.
  ASSERT_EQ(w2.done.size(), 1u);
  EXPECT_EQ(w2.done[0].cycle, 7u);
  ASSERT_EQ(w1.done.size(), 1u);
  EXPECT_EQ(w1.done[0].cycle, 11u);
  // Issue cycles count scheduler cycles with an issue, not instructions.
  EXPECT_EQ(w2.st().issue_cycles, 4u);
  EXPECT_EQ(w2.st().warp_instructions, 8u);
}

// Two schedulers (sub-cores) each issue one instruction per cycle, with their own units.
TEST(PipelineCore, TwoSchedulersIssueInParallel) {
  Rig r(independent_sp(4), 64, [](SmParams& p) { p.warp_schedulers = 2; });
  r.start();  // warp slot 0 -> scheduler 0, slot 1 -> scheduler 1
  EXPECT_EQ(r.issued_before(2), 4u);  // cycles 0 and 1, two schedulers
  r.run();
  // Both warps issue at 0..3 on their own sp unit -> finish 3 + 4 = 7.
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 7u);
  EXPECT_EQ(r.st().issue_cycles, 8u);  // 4 cycles x 2 schedulers
}

// SPEC 1: "2 instructions/cycle from 1-2 warps": with issue width 2 one warp may dual-issue two
// independent instructions.
TEST(PipelineCore, SingleWarpDualIssuesWithWidthTwo) {
  Rig r(independent_sp(4), 32, [](SmParams& p) {
    p.pipeline.issue_width = 2;
    p.pipeline.units[kSp] = {2, 4, 1};
  });
  r.start();
  r.run();
  // Spec: pairs at cycles 0 and 1 -> last commit 1 + 4 = 5 (the model gives 3 + 4 = 7).
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 5u);
}

// ---------------------------------------------------------------------------------------------
// Fetch: control flow re-enables fetch at commit, memory instructions at issue
// ---------------------------------------------------------------------------------------------

// A loop back-edge is a branch: k*(body+1) instructions, and each back-edge stalls fetch until
// its commit + fetch_latency.
TEST(PipelineCore, LoopBackEdgeIsABranchThatDisablesFetchUntilCommit) {
  Rig r(
      "body:\n"
      "  - loop: 3\n"
      "    body:\n"
      "      - {op: sp, dst: r1}\n",
      32, [](SmParams& p) { p.pipeline.units[kSp] = {1, 1, 1}; });
  EXPECT_EQ(r.desc.program->instructions_per_warp(), 6u);  // 3 * (1 + 1)
  r.start();
  r.run();
  // sp lat 1, branch lat Lb = 3, F = 2. Iteration period = 1 + Lb + F = 6:
  //   sp 0, br 1 (commit 4, fetch 6), sp 6, br 7 (fetch 12), sp 12, br 13 (commit 16).
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 16u);  // the last back-edge's commit
  EXPECT_EQ(r.st().warp_instructions, 6u);
  EXPECT_EQ(r.st().thread_instructions, 6u * 32);
  // Live cycles 0..13 (14): 6 issues, 2 x 4 fetch bubbles (cycles 2-5, 8-11) are idle/control.
  EXPECT_EQ(r.st().issue_cycles, 6u);
  EXPECT_EQ(r.st().stall_idle_control, 8u);
  EXPECT_EQ(r.stall_sum(), 14u);
  EXPECT_EQ(r.pipe->cycle(), 14u);
}

// An explicit branch costs the same: the next instruction issues at branch latency + fetch_latency.
TEST(PipelineCore, BranchRefetchesAfterCommitPlusFetchLatency) {
  Rig r(
      "body:\n"
      "  - {op: branch}\n"
      "  - {op: sp, dst: r1}\n");
  r.start();
  // Branch at 0 commits at 3, fetch at 3 + 2 = 5: nothing more issued before 5, the sp at 5.
  EXPECT_EQ(r.issued_before(5), 1u);
  EXPECT_EQ(r.issued_before(6), 2u);
  r.run();
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 9u);  // sp at 5 + 4
}

// After a memory instruction fetch resumes fetch_latency after its issue (not after its data).
TEST(PipelineCore, FetchResumesFetchLatencyAfterMemoryIssue) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2}\n",
      32, [](SmParams& p) { p.pipeline.fetch_latency = 3; });
  r.start();
  // ld at 0 -> fetch at 0 + 3: the independent sp issues at 3, long before the load returns (100).
  EXPECT_EQ(r.issued_before(3), 1u);
  EXPECT_EQ(r.issued_before(4), 2u);
  r.run();
  // The TB waits for the load: the miss leaves at its tag check (0), done = 0 + 100 (port) = 100
  // > sp commit 3 + 4 = 7.
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 100u);
}

// ---------------------------------------------------------------------------------------------
// ld/st unit: L1D, MSHRs, coalescing
// ---------------------------------------------------------------------------------------------

// A lone global load misses L1: it leaves at its tag check (the L1 hit latency is not paid on a
// miss), so its destination is ready at issue + port latency.
TEST(PipelineCore, LoneGlobalLoadMissLatency) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n");
  r.start(3, 5, 0);
  r.run();
  // Request leaves at 0 (tag check at issue), fill at 0 + 100 = 100; the sp issues at 100, commits 104.
  ASSERT_EQ(r.port.log.size(), 1u);
  const MemAccess& a = r.port.log[0];
  EXPECT_EQ(a.addr, 0x10000u);
  EXPECT_EQ(a.bytes, 128u);
  EXPECT_EQ(a.kind, AccessKind::load);
  EXPECT_EQ(a.cycle, 0u);
  EXPECT_EQ(a.launch, &r.launch);
  EXPECT_EQ(a.tb, 5u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].slot, 3u);
  EXPECT_EQ(r.done[0].cycle, 104u);
  EXPECT_EQ(r.st().global_loads, 1u);
  EXPECT_EQ(r.st().memory_requests, 1u);
  EXPECT_EQ(r.st().l1_misses, 1u);
  EXPECT_EQ(r.st().l1_hits, 0u);
  // Per-kernel stats are keyed by launch id.
  ASSERT_EQ(r.pipe->kernel_stats().count(7u), 1u);
  EXPECT_EQ(r.pipe->kernel_stats().at(7u).l1_misses, 1u);
  EXPECT_EQ(r.pipe->kernel_stats().at(7u).warp_instructions, 2u);
}

// WAW: an instruction writing a register a load has yet to write (and not reading it) waits for
// the load's data, as a reader would.
TEST(PipelineCore, WriteAfterAPendingLoadWaitsForItsData) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r1, src: r2}\n");
  r.start();
  r.run();
  // Fill at 0 + 100 = 100: the sp issues at 100, commits 104 (without the check it would issue
  // early and the TB end with the load's data at 100).
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 104u);
  EXPECT_EQ(r.st().stall_raw_memory, 99u);  // cycles 1..99: the sp waits on memory
}

// The destinations whose WAW check is not already a source's RAW check, as bits of dst[].
TEST(PipelineCore, WawOnlyMarksTheDestinationsNotRead) {
  const uint16_t dst[] = {1, 2, 3, kNoReg};
  const uint16_t src[] = {2, 7, kNoReg, kNoReg};
  EXPECT_EQ(waw_only(dst, 3, src, 2), 0b101);  // r1 and r3; r2 is read
  EXPECT_EQ(waw_only(dst, 3, src, 0), 0b111);
  EXPECT_EQ(waw_only(dst, 0, src, 2), 0);
  EXPECT_EQ(waw_only(src, 1, dst, 3), 0);  // r2 among r1..r3
}

// A second load of the same line after the fill hits in L1 and costs the L1 latency only.
TEST(PipelineCore, LoadAfterFillHitsInL1) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n"
      "  - {op: ld.global, dst: r3, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r4, src: r3}\n");
  r.start();
  r.run();
  // ld 0 (leaves 0, fill 100); sp 100; ld 101: hit, ready 101 + 10 = 111; sp 111 -> commit 115.
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 115u);
  EXPECT_EQ(r.port.log.size(), 1u);
  EXPECT_EQ(r.st().l1_misses, 1u);
  EXPECT_EQ(r.st().l1_hits, 1u);
  EXPECT_EQ(r.pipe->l1d().hits(), 1u);
}

// Two loads of one line in flight merge in the MSHR: one port access, both ready at the fill.
TEST(PipelineCore, InFlightLoadsToOneLineMerge) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: ld.global, dst: r2, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r3, src: [r1, r2]}\n");
  r.start();
  r.run();
  // ld 0: leaves 0, fill 100. ld 2 (F = 2): merged, ready at the pending fill 100 (no L1 hit
  // latency on top). sp 100 -> 104.
  EXPECT_EQ(r.port.log.size(), 1u);
  EXPECT_EQ(r.st().l1_merged, 1u);
  EXPECT_EQ(r.st().l1_misses, 1u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 104u);
}

// With one MSHR a second miss (another line) waits until the first fill frees it.
TEST(PipelineCore, OneMshrSerializesMissesToDifferentLines) {
  const std::string prog =
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: ld.global, dst: r2, addr: {base: 0x20000, lane: 4}}\n"
      "  - {op: sp, dst: r3, src: [r1, r2]}\n";
  Rig one(prog, 32, [](SmParams& p) { p.l1d.mshrs = 1; });
  Rig two(prog, 32, [](SmParams& p) { p.l1d.mshrs = 2; });
  one.start();
  two.start();
  one.run();
  two.run();
  // mshrs 1: ld A at 0 (send 0, leaves 0, fill 100); ld B at 2 waits for the MSHR until 100,
  // leaves 100, fill 200; sp at 200 -> 204.
  ASSERT_EQ(one.port.log.size(), 2u);
  EXPECT_EQ(one.port.log[1].cycle, 100u);
  ASSERT_EQ(one.done.size(), 1u);
  EXPECT_EQ(one.done[0].cycle, 204u);
  EXPECT_EQ(one.pipe->l1d().mshr_full_waits(), 1u);
  // mshrs 2: ld B leaves at 2, fill 102; sp at 102 -> 106.
  ASSERT_EQ(two.port.log.size(), 2u);
  EXPECT_EQ(two.port.log[1].cycle, 2u);
  ASSERT_EQ(two.done.size(), 1u);
  EXPECT_EQ(two.done[0].cycle, 106u);
}

// The MSHR limit holds across the lines of one instruction: with 2 MSHRs both held until 200,
// a third and fourth miss cannot leave before 200.
TEST(PipelineCore, MshrLimitHoldsForLaterLinesOfAStalledInstruction) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x100000, lane: 8}}\n"  // 2 lines
      "  - {op: ld.global, dst: r2, addr: {base: 0x200000, lane: 8}}\n",  // 2 lines
      32, [](SmParams& p) { p.l1d.mshrs = 2; });
  r.port.script = [](const MemAccess& a, size_t i) { return i < 2 ? uint64_t{200} : a.cycle + 100; };
  r.start();
  r.run();
  // ld1 at 0: lines leave at their tag checks 0, 1, both fill at 200 (two MSHRs held until 200).
  // ld2 at 2: line 3 waits for an MSHR until 200 -> leaves 200; line 4 also needs an MSHR: the
  // other one frees at 200 too, so it leaves at >= 200 (its tag check is the cycle after, 201).
  ASSERT_EQ(r.port.log.size(), 4u);
  EXPECT_EQ(r.port.log[2].cycle, 200u);
  EXPECT_GE(r.port.log[3].cycle, 200u);
}

// bypass_global_loads: global loads never allocate, so a reload misses again.
TEST(PipelineCore, BypassGlobalLoadsNeverHit) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n"
      "  - {op: ld.global, dst: r3, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r4, src: r3}\n",
      32, [](SmParams& p) { p.l1d.bypass_global_loads = true; });
  r.start();
  r.run();
  // ld 0 (leaves 0, fill 100), sp 100, ld 101 misses again: leaves 101, fill 201; sp 201 -> 205.
  ASSERT_EQ(r.port.log.size(), 2u);
  EXPECT_EQ(r.port.log[1].cycle, 101u);
  EXPECT_EQ(r.st().l1_hits, 0u);
  EXPECT_EQ(r.st().l1_misses, 2u);
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 205u);
}

// A store write-evicts the L1 line (write-through keeps it); the store goes to the port either way.
TEST(PipelineCore, StoreWriteEvictsL1Line) {
  const std::string prog =
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n"
      "  - {op: st.global, src: r2, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: ld.global, dst: r3, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r4, src: r3}\n";
  Rig evict(prog);
  Rig through(prog, 32, [](SmParams& p) { p.l1d.write_policy = L1dParams::WritePolicy::write_through; });
  evict.start();
  through.start();
  evict.run();
  through.run();
  // ld 0 (leaves 0, fill 100); sp 100 (commit 104); st 104 (waits r2; leaves at its tag check
  // 104, 128 B; acknowledged at 104 + 100 = 204); ld 106 (F = 2).
  // write-evict: ld misses, leaves 106, fill 206; sp 206 -> 210 (after the store's ack 204).
  ASSERT_EQ(evict.port.log.size(), 3u);
  EXPECT_EQ(evict.port.log[1].kind, AccessKind::store);
  EXPECT_EQ(evict.port.log[1].cycle, 104u);
  EXPECT_EQ(evict.port.log[1].bytes, 128u);
  EXPECT_EQ(evict.port.log[2].kind, AccessKind::load);
  EXPECT_EQ(evict.port.log[2].cycle, 106u);
  ASSERT_EQ(evict.done.size(), 1u);
  EXPECT_EQ(evict.done[0].cycle, 210u);
  EXPECT_EQ(evict.st().global_stores, 1u);
  // write-through: ld hits at 106, ready 116; sp 116 -> 120; but the warp ends only once its
  // store is acknowledged: the TB finishes at the ack, 204.
  ASSERT_EQ(through.port.log.size(), 2u);
  EXPECT_EQ(through.st().l1_hits, 1u);
  ASSERT_EQ(through.done.size(), 1u);
  EXPECT_EQ(through.done[0].cycle, 204u);
}

// Coalescing: 32 lanes x 4 B consecutive = 1 line; a 128 B stride = 32 lines, and the ld/st unit
// is busy one cycle per line (the next memory instruction waits).
TEST(PipelineCore, CoalescingAndLdstBusyOneCyclePerLine) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x100000, lane: 128}}\n"
      "  - {op: ld.global, dst: r2, addr: {base: 0x200000, lane: 4}}\n");
  r.start();
  r.run();
  // 32 + 1 requests. Strided lines are looked up at 0..31 and (misses) leave at 0..31.
  ASSERT_EQ(r.port.log.size(), 33u);
  for (uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(r.port.log[i].addr, 0x100000u + 128 * i);
    EXPECT_EQ(r.port.log[i].cycle, 0u + i);
  }
  // The coalesced load issues when the ld/st unit frees, at 0 + 32, and leaves at 32.
  EXPECT_EQ(r.port.log[32].addr, 0x200000u);
  EXPECT_EQ(r.port.log[32].cycle, 32u);
  EXPECT_EQ(r.st().memory_requests, 33u);
  EXPECT_EQ(r.st().global_loads, 2u);
  // Stalls before cycle 32: cycle 1 waits for fetch (F = 2): idle/control; cycles 2..31 the
  // ld/st unit is busy: memory pipe = 30.
  EXPECT_EQ(r.st().stall_idle_control, 1u);
  EXPECT_EQ(r.st().stall_memory_pipe, 30u);
  // Done = last strided fill 31 + 100 = 131 (the second load fills at 132).
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 132u);
}

// Address expressions see the loop iteration and the TB id.
TEST(PipelineCore, LoopIterationAndTbEnterAddresses) {
  Rig r(
      "body:\n"
      "  - loop: 3\n"
      "    body:\n"
      "      - {op: ld.global, dst: r1, addr: {base: 0x100000, lane: 4, iter: 4096, tb: 0x10000}}\n");
  r.start(0, 2, 0);
  r.run();
  // TB 2: base + 2 * 0x10000 + iter * 0x1000, iter 0, 1, 2.
  ASSERT_EQ(r.port.log.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(r.port.log[i].addr, 0x120000u + 0x1000u * i);
}

// Shared memory: latency = shared_mem_latency + passes - 1; conflict-free and broadcast = 1 pass,
// 32 lanes on one bank (different words) = 32 passes.
TEST(PipelineCore, SharedMemoryBankConflictPasses) {
  auto run = [](const std::string& addr, uint64_t& finish, uint64_t& passes) {
    Rig r("body:\n"
          "  - {op: ld.shared, dst: r1, addr: " + addr + "}\n"
          "  - {op: sp, dst: r2, src: r1}\n");
    r.start();
    r.run();
    ASSERT_EQ(r.done.size(), 1u);
    finish = r.done[0].cycle;
    passes = r.st().shared_conflict_passes;
    EXPECT_EQ(r.st().shared_accesses, 1u);
    EXPECT_TRUE(r.port.log.empty());
  };
  uint64_t f = 0, n = 0;
  run("{base: 0, lane: 4}", f, n);  // 32 banks, one word each
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(f, 24u);  // ready 0 + 20 + 1 - 1 = 20; sp 20 -> 24
  run("{base: 0, lane: 128}", f, n);  // every lane on bank 0, 32 words
  EXPECT_EQ(n, 32u);
  EXPECT_EQ(f, 55u);  // ready 0 + 20 + 32 - 1 = 51; sp 51 -> 55
  run("{base: 64, lane: 0}", f, n);  // one word: broadcast
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(f, 24u);
}

// ---------------------------------------------------------------------------------------------
// Barrier, stalls, schedulers
// ---------------------------------------------------------------------------------------------

// A barrier holds the early warp until the last arrives; both refetch barrier_latency later.
TEST(PipelineCore, BarrierWaitsForLastWarp) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x100000, gtid: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n"
      "  - {op: bar}\n"
      "  - {op: sp, dst: r3, src: r2}\n",
      64, [](SmParams& p) { p.pipeline.barrier_latency = 5; });
  // Warp slot 0 gets 100 cycles of memory latency, warp slot 1 gets 300.
  r.port.script = [](const MemAccess& a, size_t) { return a.cycle + (a.warp == 0 ? 100 : 300); };
  r.start();
  // w0: ld 0 (leaves 0, fill 100), sp 100, bar 101 (waits). w1: ld 1 (leaves 1, fill 301), sp 301,
  // bar 302: last arrival -> both refetch at 302 + 5 = 307. Nothing issues from 303 to 306.
  EXPECT_EQ(r.issued_before(307), 6u);
  r.run();
  // GTO, width 1: w1 (greedy) sp at 307 (commit 311), w0 sp at 308 (commit 312).
  ASSERT_EQ(r.done.size(), 1u);
  EXPECT_EQ(r.done[0].cycle, 312u);
  EXPECT_EQ(r.st().warp_instructions, 8u);
  // Live cycles 0..308 = 309: issues at 0,1,100,101,301,302,307,308 = 8; waiting on loads
  // (2..99, 102..300) = 98 + 199 = 297; after the release 303..306 = 4 idle/control.
  EXPECT_EQ(r.st().issue_cycles, 8u);
  EXPECT_EQ(r.st().stall_raw_memory, 297u);
  EXPECT_EQ(r.st().stall_idle_control, 4u);
  EXPECT_EQ(r.stall_sum(), 309u);
}

// Waiting on a load counts raw_memory; waiting on an arithmetic result counts raw_compute.
TEST(PipelineCore, StallReasonsRawMemoryVsRawCompute) {
  Rig mem(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: r1}\n");
  Rig alu(
      "body:\n"
      "  - {op: sp, dst: r1}\n"
      "  - {op: sp, dst: r2, src: r1}\n",
      32, [](SmParams& p) { p.pipeline.units[kSp] = {1, 6, 1}; });
  mem.start();
  alu.start();
  mem.run();
  alu.run();
  // Load: leaves at 0, fill 100; issues at 0 and 100; cycles 1..99 wait for the load -> 99 raw_memory.
  EXPECT_EQ(mem.st().issue_cycles, 2u);
  EXPECT_EQ(mem.st().stall_raw_memory, 99u);
  EXPECT_EQ(mem.st().stall_raw_compute, 0u);
  EXPECT_EQ(mem.stall_sum(), 101u);
  // ALU: latency 6, issues at 0 and 6; cycles 1..5 -> 5 raw_compute.
  EXPECT_EQ(alu.st().issue_cycles, 2u);
  EXPECT_EQ(alu.st().stall_raw_compute, 5u);
  EXPECT_EQ(alu.st().stall_raw_memory, 0u);
  EXPECT_EQ(alu.stall_sum(), 7u);
}

// Invariant: issue cycles + all stall counters = live cycles x schedulers (an empty scheduler
// counts idle/control), on a mixed program with loads, shared memory, a loop and a barrier.
TEST(PipelineCore, StallAccountingCoversEverySchedulerCycle) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x100000, gtid: 4}}\n"
      "  - loop: 3\n"
      "    body:\n"
      "      - {op: fma, dst: r2, src: [r1, r2]}\n"
      "      - {op: ld.shared, dst: r3, addr: {base: 0, lane: 8}}\n"
      "      - {op: sp, dst: r4, src: [r2, r3]}\n"
      "  - {op: bar}\n"
      "  - {op: st.global, src: r4, addr: {base: 0x200000, gtid: 4}}\n",
      96, [](SmParams& p) { p.warp_schedulers = 2; });
  r.port.script = [](const MemAccess& a, size_t) { return a.cycle + 50 + 40 * a.warp; };
  r.start();
  r.run();
  ASSERT_EQ(r.done.size(), 1u);
  // 1 + 3 * (3 + 1) + 2 = 15 instructions per warp, 3 warps.
  EXPECT_EQ(r.desc.program->instructions_per_warp(), 15u);
  EXPECT_EQ(r.st().warp_instructions, 45u);
  // Simulation started at 0 and ended one cycle after the last issue.
  EXPECT_EQ(r.stall_sum(), r.pipe->cycle() * 2);
  // Scheduler-level issue cycles agree with the per-kernel count (one kernel).
  EXPECT_EQ(r.pipe->kernel_stats().at(7u).issue_cycles, r.st().issue_cycles);
  EXPECT_EQ(r.st().shared_conflict_passes, 3u * 3 * 2);  // lane * 8: 2-way conflicts
}

// GTO runs the greedy warp to completion; LRR alternates, so the first TB finishes later.
TEST(PipelineCore, GtoVersusLrrOrder) {
  auto run = [](const std::string& kind, std::vector<FinishedTb>& done) {
    Rig r(independent_sp(4), 32, [&](SmParams& p) { p.warp_scheduler = kind; });
    r.start(0, 0, 0);  // warp slot 0
    r.start(1, 1, 0);  // warp slot 1, same scheduler
    r.run();
    done = r.done;
  };
  std::vector<FinishedTb> gto, lrr;
  run("gto", gto);
  run("lrr", lrr);
  // GTO: TB0 issues at 0..3 (done 3 + 4 = 7), TB1 at 4..7 (done 11).
  ASSERT_EQ(gto.size(), 2u);
  EXPECT_EQ(gto[0].slot, 0u);
  EXPECT_EQ(gto[0].cycle, 7u);
  EXPECT_EQ(gto[1].slot, 1u);
  EXPECT_EQ(gto[1].cycle, 11u);
  // LRR: TB0 at 0,2,4,6 (done 10), TB1 at 1,3,5,7 (done 11).
  ASSERT_EQ(lrr.size(), 2u);
  EXPECT_EQ(lrr[0].slot, 0u);
  EXPECT_EQ(lrr[0].cycle, 10u);
  EXPECT_EQ(lrr[1].slot, 1u);
  EXPECT_EQ(lrr[1].cycle, 11u);
}

// GTO keeps its greedy warp while that warp is ready (the issue stage's short path) and falls back
// to the oldest ready warp when it stalls, which becomes the greedy warp.
TEST(PipelineCore, GtoGreedyWarpIssuesUntilItStallsThenTheOldestReadyOne) {
  Rig r("body:\n"
        "  - {op: sp, dst: r1, src: r0}\n"
        "  - {op: sp, dst: r2, src: r0}\n"
        "  - {op: sp, dst: r3, src: [r1, r2]}\n");
  r.start(0, 0, 0);  // warp slot 0 (older)
  r.start(1, 1, 0);  // warp slot 1, same scheduler
  r.run();
  // Latency 4. w0 issues at 0, 1; its third waits for r2 (5). w1 issues at 2, 3 (greedy from 2);
  // at 4 neither is ready; w0 at 5 (done 9); at 6 none; w1 at 7 (r2 from 3: done 11).
  ASSERT_EQ(r.done.size(), 2u);
  EXPECT_EQ(r.done[0].slot, 0u);
  EXPECT_EQ(r.done[0].cycle, 9u);
  EXPECT_EQ(r.done[1].slot, 1u);
  EXPECT_EQ(r.done[1].cycle, 11u);
  // Cycles 0..7: six issue, the two others wait on an arithmetic result.
  EXPECT_EQ(r.st().issue_cycles, 6u);
  EXPECT_EQ(r.st().stall_raw_compute, 2u);
  EXPECT_EQ(r.stall_sum(), 8u);
}

// A TB of 48 threads has a full warp and a 16-lane warp: 48 thread instructions per instruction.
TEST(PipelineCore, PartialLastWarpHasOnlyItsThreadsActive) {
  Rig r("body:\n  - {op: sp, dst: r1}\n", 48);
  r.start();
  r.run();
  EXPECT_EQ(r.st().warps, 2u);
  EXPECT_EQ(r.st().warp_instructions, 2u);
  EXPECT_EQ(r.st().thread_instructions, 48u);  // 32 + 16 (the model counts 64)
}

// ---------------------------------------------------------------------------------------------
// WarpProgram
// ---------------------------------------------------------------------------------------------

// Nested loops: every back-edge runs once per iteration of its loop.
TEST(WarpProgram, InstructionsPerWarpNestedLoops) {
  const std::string yaml =
      "body:\n"
      "  - {op: sp, dst: r1}\n"
      "  - loop: 3\n"
      "    body:\n"
      "      - {op: sp, dst: r2}\n"
      "      - loop: 4\n"
      "        body:\n"
      "          - {op: sp, dst: r3}\n"
      "          - {op: fma, dst: r4}\n"
      "      - {op: sp, dst: r5}\n"
      "  - {op: sp, dst: r6}\n";
  const auto p = program(yaml);
  // 1 + 3 * (1 + 4 * (2 + 1) + 1 + 1) + 1 = 1 + 3 * 15 + 1 = 47; 8 static instructions.
  EXPECT_EQ(p->instrs.size(), 8u);
  EXPECT_EQ(p->instructions_per_warp(), 47u);
  EXPECT_EQ(p->max_register, 7u);
  // Loops ending together and sibling loops: 2 * (3 * (1 + 1) + 1) = 14; 2 * 2 + 3 * 2 = 10.
  EXPECT_EQ(program("body:\n  - loop: 2\n    body:\n      - loop: 3\n        body:\n          - {op: nop}\n")
                ->instructions_per_warp(),
            14u);
  EXPECT_EQ(program("body:\n  - loop: 2\n    body: [{op: nop}]\n  - loop: 3\n    body: [{op: nop}]\n")
                ->instructions_per_warp(),
            10u);
  // The pipeline executes exactly that many.
  Rig r(yaml);
  r.start();
  r.run();
  EXPECT_EQ(r.st().warp_instructions, 47u);
}

// Parse errors are ConfigErrors that name "file:line:col", the key path and the problem.
TEST(WarpProgram, ParseErrorsNamePosition) {
  auto error_of = [](const std::string& yaml) -> std::string {
    try {
      program(yaml);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  // Unknown op: the value "fmul" at line 3, column 10.
  const std::string op = error_of("body:\n  - {op: sp, dst: r1}\n  - {op: fmul, dst: r2}\n");
  EXPECT_NE(op.find("prog.yaml:3:10:"), std::string::npos) << op;
  EXPECT_NE(op.find("fmul"), std::string::npos) << op;
  EXPECT_NE(op.find("body[1].op"), std::string::npos) << op;
  // Register out of range: "r300" at line 2, column 19.
  const std::string reg = error_of("body:\n  - {op: sp, dst: r300}\n");
  EXPECT_NE(reg.find("prog.yaml:2:19:"), std::string::npos) << reg;
  EXPECT_NE(reg.find("r300"), std::string::npos) << reg;
  // A load without dst: the instruction's map at line 3, column 5.
  const std::string ld = error_of("body:\n  - {op: sp, dst: r1}\n  - {op: ld.global, addr: {base: 0}}\n");
  EXPECT_NE(ld.find("prog.yaml:3:5:"), std::string::npos) << ld;
  EXPECT_NE(ld.find("dst"), std::string::npos) << ld;
  // Width 3: the width value at line 4, column 12.
  const std::string w = error_of(
      "body:\n"
      "  - op: ld.global\n"
      "    dst: r1\n"
      "    width: 3\n"
      "    addr: {base: 0}\n");
  EXPECT_NE(w.find("prog.yaml:4:12:"), std::string::npos) << w;
  EXPECT_NE(w.find("width"), std::string::npos) << w;
}

// lane_address: affine in tid/gtid/lane/warp/tb/iter, with wrap taken as a non-negative modulo.
TEST(WarpProgram, LaneAddressAffineAndWrap) {
  AddressExpr e;
  e.base = 1000;
  e.gtid = 4;
  const LaneCoords c{2, 1, 64, 32, 0, 0};  // TB 2, warp 1, 64 threads per TB
  // gtid of lane 5 = 2 * 64 + 1 * 32 + 5 = 165 -> 1000 + 660.
  EXPECT_EQ(lane_address(e, c, 5), 1660u);
  AddressExpr w;
  w.base = 1000;
  w.lane = -4;
  w.wrap = 64;
  // lane 1: -4 mod 64 = 60 -> 1060; lane 16: -64 mod 64 = 0 -> 1000.
  EXPECT_EQ(lane_address(w, c, 1), 1060u);
  EXPECT_EQ(lane_address(w, c, 16), 1000u);
}

// tb_xor: the address is XORed with the mask of every set bit of the TB index (TB 5 = bits 0, 2);
// index bits beyond the list leave it alone. Read from a program as `tb_xor: [..]`.
TEST(WarpProgram, LaneAddressTbXorSwizzle) {
  AddressExpr e;
  e.base = 0x100000000;
  e.tid = 128;
  e.tb_xor[0] = 0x1000;
  e.tb_xor[1] = 0x20000;
  e.tb_xor[2] = 0x480;
  e.tb_xor_bits = 3;
  const LaneCoords tb5{5, 0, 32, 32, 0, 0}, tb8{8, 0, 32, 32, 0, 0};
  EXPECT_EQ(lane_address(e, tb5, 1), (0x100000000u + 128) ^ 0x1000 ^ 0x480);
  EXPECT_EQ(lane_address(e, tb8, 1), 0x100000000u + 128);
  const auto p = program("body:\n  - {op: ld.global, dst: r1, addr: {base: 0x1000, tb_xor: [0x80, 0x100000]}}\n");
  ASSERT_EQ(p->addresses.size(), 1u);
  EXPECT_EQ(lane_address(p->addresses[0], LaneCoords{3, 0, 32, 32, 0, 0}, 0), 0x1000u ^ 0x80 ^ 0x100000);
}

// lane_addresses (a warp's lanes at once, stepping an affine address) equals lane_address lane by
// lane for random expressions: negative and huge coefficients (wrapping modulo 2^64), swizzles,
// wraps and random kinds, at several alignments and lane counts. When it says the lanes are
// contiguous they are (each the previous plus the width), and it says so for the plain
// contiguous expressions (a third of the trials).
TEST(WarpProgram, LaneAddressesEqualLaneByLane) {
  int claimed = 0;
  std::mt19937_64 rng(7);
  auto coef = [&] { return int64_t(rng() % 3 == 0 ? rng() : rng() % 513) - (rng() % 2 ? 256 : 0); };
  for (int trial = 0; trial < 2000; ++trial) {
    AddressExpr e;
    e.kind = trial % 7 == 0 ? AddressExpr::Kind::random : AddressExpr::Kind::affine;
    e.base = rng() % 4 == 0 ? rng() : rng() % (1u << 30);
    e.tid = coef(), e.gtid = coef(), e.lane = coef(), e.warp = coef(), e.tb = coef(), e.iter = coef();
    e.wrap = trial % 5 == 0 ? 1 + rng() % 4096 : 0;
    e.tb_xor_bits = uint8_t(rng() % 4);
    for (uint32_t k = 0; k < e.tb_xor_bits; ++k) e.tb_xor[k] = rng() % (1u << 20);
    e.range = 1 + rng() % 100000, e.seed = rng();
    const LaneCoords c{uint32_t(rng() % 1000), uint32_t(rng() % 8), 256, 32, uint32_t(rng() % 50), uint32_t(rng() % 64)};
    const uint32_t n = uint32_t(rng() % 33);
    const uint64_t align = ~uint64_t((1u << (rng() % 4)) - 1);
    const uint64_t width = ~align + 1;
    const bool plain = trial % 3 == 1 && e.kind == AddressExpr::Kind::affine && !e.wrap;
    if (plain) {  // stride = width (split over tid, gtid and lane), aligned base, no swizzle
      e.tid = int64_t(rng() % 3), e.lane = int64_t(rng() % 2);
      e.gtid = int64_t(width) - e.tid - e.lane;
      e.tb_xor_bits = 0;
      e.base &= align;
      e.warp *= int64_t(width), e.tb *= int64_t(width), e.iter *= int64_t(width);
    }
    uint64_t got[32];
    const bool contiguous = lane_addresses(e, c, n, align, got);
    for (uint32_t l = 0; l < n; ++l) ASSERT_EQ(got[l], lane_address(e, c, l) & align) << "trial " << trial << " lane " << l;
    if (contiguous) {
      for (uint32_t l = 1; l < n; ++l) ASSERT_EQ(got[l], got[l - 1] + width) << "trial " << trial << " lane " << l;
    }
    if (plain && n > 0) {
      EXPECT_TRUE(contiguous) << "trial " << trial;
    }
    // range_only: the same answer; when contiguous the two ends as above, otherwise every lane.
    uint64_t ends[32];
    ASSERT_EQ(lane_addresses(e, c, n, align, ends, true), contiguous) << "trial " << trial;
    if (contiguous) {
      ASSERT_EQ(ends[0], got[0]) << "trial " << trial;
      ASSERT_EQ(ends[n - 1], got[n - 1]) << "trial " << trial;
    } else {
      for (uint32_t l = 0; l < n; ++l) ASSERT_EQ(ends[l], got[l]) << "trial " << trial << " lane " << l;
    }
    claimed += contiguous;
  }
  EXPECT_GT(claimed, 300);
}

// ---------------------------------------------------------------------------------------------
// Coalescer and shared-memory banks
// ---------------------------------------------------------------------------------------------

// Consecutive 4 B lanes fall in one 128 B line; a 128 B stride touches 32 lines in lane order.
TEST(Coalescer, ConsecutiveOneLineStridedThirtyTwo) {
  uint64_t a[32];
  CoalescedLines out;
  for (int l = 0; l < 32; ++l) a[l] = 0x1000 + 4 * l;
  coalesce(a, 32, 4, 128, out);
  ASSERT_EQ(out.count, 1);
  EXPECT_EQ(out.line[0], 0x1000u / 128);
  EXPECT_EQ(out.bytes[0], 128u);
  for (int l = 0; l < 32; ++l) a[l] = 0x1000 + 128 * (31 - l);  // descending: first-touch order
  coalesce(a, 32, 4, 128, out);
  ASSERT_EQ(out.count, 32);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(out.line[i], 0x1000u / 128 + 31 - i);
    EXPECT_EQ(out.bytes[i], 4u);
  }
}

// A misaligned warp spans two lines; a lane straddling a boundary is split between them.
TEST(Coalescer, MisalignedAndStraddlingLanes) {
  uint64_t a[32];
  CoalescedLines out;
  for (int l = 0; l < 32; ++l) a[l] = 64 + 4 * l;  // bytes 64..191
  coalesce(a, 32, 4, 128, out);
  ASSERT_EQ(out.count, 2);
  EXPECT_EQ(out.line[0], 0u);
  EXPECT_EQ(out.bytes[0], 64u);
  EXPECT_EQ(out.line[1], 1u);
  EXPECT_EQ(out.bytes[1], 64u);
  a[0] = 126;  // 4 bytes: 126, 127 | 128, 129
  coalesce(a, 1, 4, 128, out);
  ASSERT_EQ(out.count, 2);
  EXPECT_EQ(out.bytes[0], 2u);
  EXPECT_EQ(out.bytes[1], 2u);
}

// coalesce() takes a contiguous warp (each lane right after the previous) in one step: the same
// lines, order, granules and bytes as merging lane by lane, for random widths, offsets, line sizes
// and lane counts, contiguous or with one lane moved.
TEST(Coalescer, ContiguousStepEqualsLaneByLane) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 5000; ++trial) {
    const uint32_t width = 1u << (rng() % 5), line = 32u << (rng() % 4);
    const int lanes = 1 + int(rng() % 32);
    uint64_t a[32];
    a[0] = (rng() % 2 ? rng() % 100000 : ~uint64_t{0} - rng() % 600) & ~uint64_t(rng() % 2 ? width - 1 : 0);
    for (int l = 1; l < lanes; ++l) a[l] = a[l - 1] + width;
    if (trial % 4 == 3) a[rng() % lanes] += 1 + rng() % 300;  // no longer contiguous
    CoalescedLines fast, slow, told;
    coalesce(a, lanes, width, line, fast);
    coalesce_lanes(a, lanes, width, line, slow);
    // The caller's word that the lanes are contiguous skips the check, with the same result.
    if (trial % 4 != 3) coalesce(a, lanes, width, line, told, true);
    ASSERT_EQ(fast.count, slow.count) << "trial " << trial;
    if (trial % 4 != 3) {
      ASSERT_EQ(told.count, slow.count) << "trial " << trial;
    }
    for (int i = 0; i < fast.count; ++i) {
      ASSERT_EQ(fast.line[i], slow.line[i]) << "trial " << trial;
      ASSERT_EQ(fast.touched[i], slow.touched[i]) << "trial " << trial;
      ASSERT_EQ(fast.bytes[i], slow.bytes[i]) << "trial " << trial;
      if (trial % 4 == 3) continue;
      ASSERT_EQ(told.line[i], slow.line[i]) << "trial " << trial;
      ASSERT_EQ(told.touched[i], slow.touched[i]) << "trial " << trial;
      ASSERT_EQ(told.bytes[i], slow.bytes[i]) << "trial " << trial;
    }
  }
}

// Passes = most distinct words on one bank; same-word lanes are a broadcast.
TEST(Coalescer, SharedBankConflictDegree) {
  uint64_t a[32];
  for (int l = 0; l < 32; ++l) a[l] = 4 * l;
  EXPECT_EQ(shared_bank_conflicts(a, 32, 32), 1u);
  for (int l = 0; l < 32; ++l) a[l] = 128 * l;
  EXPECT_EQ(shared_bank_conflicts(a, 32, 32), 32u);
  for (int l = 0; l < 32; ++l) a[l] = 256;
  EXPECT_EQ(shared_bank_conflicts(a, 32, 32), 1u);
  for (int l = 0; l < 32; ++l) a[l] = 8 * l;  // even banks, 2 words each
  EXPECT_EQ(shared_bank_conflicts(a, 32, 32), 2u);
  const uint64_t mixed[3] = {0, 128, 0};  // bank 0: words 0 and 32 (lane 2 shares word 0)
  EXPECT_EQ(shared_bank_conflicts(mixed, 3, 32), 2u);
  EXPECT_EQ(shared_bank_conflicts(a, 0, 32), 0u);
}

// ---------------------------------------------------------------------------------------------
// L1dCache
// ---------------------------------------------------------------------------------------------

namespace {
L1dParams small_l1(uint32_t sets, uint32_t ways, uint32_t mshrs) {
  L1dParams p;
  p.sets = sets;
  p.ways = ways;
  p.mshrs = mshrs;
  p.line_bytes = 128;
  p.latency = 10;
  return p;
}
}  // namespace

// LRU within a set: a hit refreshes a line, the least recently used one is evicted.
TEST(L1dCache, LruWithinASet) {
  L1dCache c(small_l1(2, 2, 8));  // set = line % 2
  c.miss(0, 0, 10, true);
  c.miss(2, 0, 10, true);
  c.miss(1, 0, 10, true);  // set 1: untouched by what follows
  EXPECT_EQ(c.lookup(0, 20).outcome, L1dCache::Outcome::hit);  // 0 is now MRU, 2 LRU
  c.miss(4, 30, 40, true);                                       // evicts 2
  EXPECT_EQ(c.lookup(2, 50).outcome, L1dCache::Outcome::miss);
  EXPECT_EQ(c.lookup(0, 50).outcome, L1dCache::Outcome::hit);
  EXPECT_EQ(c.lookup(4, 50).outcome, L1dCache::Outcome::hit);
  EXPECT_EQ(c.lookup(1, 50).outcome, L1dCache::Outcome::hit);
  EXPECT_EQ(c.hits(), 4u);
  EXPECT_EQ(c.misses(), 1u);
}

// A line whose fill is pending is never the victim; a set full of pending fills does not allocate.
TEST(L1dCache, PendingFillsAreNotEvicted) {
  L1dCache c(small_l1(1, 2, 8));
  c.miss(0, 0, 100, true);
  c.miss(1, 0, 10, true);
  EXPECT_EQ(c.lookup(1, 20).outcome, L1dCache::Outcome::hit);  // 1 MRU, 0 LRU but pending
  c.miss(2, 30, 130, true);  // the only done way is 1: it goes, though MRU
  EXPECT_EQ(c.lookup(1, 200).outcome, L1dCache::Outcome::miss);
  EXPECT_EQ(c.lookup(0, 200).outcome, L1dCache::Outcome::hit);
  EXPECT_EQ(c.lookup(2, 200).outcome, L1dCache::Outcome::hit);
  L1dCache one(small_l1(1, 1, 8));
  one.miss(0, 0, 100, true);
  one.miss(1, 10, 200, true);  // the set's only way is pending: fetched without allocating
  EXPECT_EQ(one.lookup(1, 300).outcome, L1dCache::Outcome::miss);
  EXPECT_EQ(one.lookup(0, 300).outcome, L1dCache::Outcome::hit);
}

// The cache counts the lines it holds and looks nothing up while it holds none: a store evicts
// (write-evict), a later fill reuses the freed way, and the count never skips a line still held,
// with a set count that is not a power of two (set = line % 3, a division, not a mask).
TEST(L1dCache, StoresEvictAndFreedWaysRefill) {
  L1dCache c(small_l1(3, 2, 8));
  c.miss(0, 0, 10, true);
  c.miss(3, 0, 10, true);  // same set as 0
  c.miss(4, 0, 10, true);  // set 1
  c.store(0);
  EXPECT_EQ(c.lookup(0, 20).outcome, L1dCache::Outcome::miss);
  EXPECT_EQ(c.lookup(3, 20).outcome, L1dCache::Outcome::hit);
  c.store(3);
  c.store(3);  // already gone: the count does not drop twice
  EXPECT_EQ(c.lookup(4, 20).outcome, L1dCache::Outcome::hit);  // one line left, still found
  c.store(4);
  EXPECT_EQ(c.lookup(4, 20).outcome, L1dCache::Outcome::miss);
  c.miss(6, 30, 40, true);  // set 0 again: takes a way the stores freed
  EXPECT_EQ(c.lookup(6, 50).outcome, L1dCache::Outcome::hit);
  c.miss(9, 30, 40, true);
  c.miss(12, 60, 70, true);  // set 0 full (6, 9): evicts the LRU, 6
  EXPECT_EQ(c.lookup(6, 80).outcome, L1dCache::Outcome::miss);
  EXPECT_EQ(c.lookup(9, 80).outcome, L1dCache::Outcome::hit);
  EXPECT_EQ(c.lookup(12, 80).outcome, L1dCache::Outcome::hit);
}

// A lookup while the line's fill is pending merges and is ready at the fill; afterwards it hits.
TEST(L1dCache, MergeWhileFillPending) {
  L1dCache c(small_l1(4, 2, 8));
  c.miss(5, 0, 100, true);
  auto a = c.lookup(5, 40);
  EXPECT_EQ(a.outcome, L1dCache::Outcome::merged);
  EXPECT_EQ(a.ready, 100u);
  EXPECT_EQ(c.lookup(5, 99).outcome, L1dCache::Outcome::merged);
  auto b = c.lookup(5, 100);
  EXPECT_EQ(b.outcome, L1dCache::Outcome::hit);
  EXPECT_EQ(b.ready, 100u);
  EXPECT_EQ(c.merged(), 2u);
  EXPECT_EQ(c.hits(), 1u);
  // No allocation (bypass): the line never becomes visible.
  c.miss(9, 0, 50, false);
  EXPECT_EQ(c.lookup(9, 60).outcome, L1dCache::Outcome::miss);
}

// With a full MSHR file the next miss waits for the earliest release.
TEST(L1dCache, MshrFreeAtWithFullFile) {
  L1dCache c(small_l1(4, 2, 2));
  EXPECT_EQ(c.mshr_free_at(0), 0u);
  c.miss(0, 0, 100, true);
  c.miss(1, 5, 60, true);
  EXPECT_EQ(c.mshr_free_at(10), 60u);  // both held: the earlier release
  EXPECT_EQ(c.mshr_full_waits(), 1u);
  EXPECT_EQ(c.mshr_free_at(60), 60u);  // released exactly at 60
  c.miss(2, 60, 200, true);
  EXPECT_EQ(c.mshr_free_at(61), 100u);  // lines 0 and 2 held
  EXPECT_EQ(c.mshr_free_at(150), 150u);
  EXPECT_EQ(c.mshr_busy_cycles(), 100u + 55 + 140);
  EXPECT_EQ(c.mshr_full_waits(), 2u);
}

// Stores: write-evict drops the line, write-through keeps it.
TEST(L1dCache, StorePolicies) {
  L1dCache ev(small_l1(4, 2, 8));
  ev.miss(3, 0, 10, true);
  ev.store(3);
  EXPECT_EQ(ev.lookup(3, 20).outcome, L1dCache::Outcome::miss);
  L1dParams p = small_l1(4, 2, 8);
  p.write_policy = L1dParams::WritePolicy::write_through;
  L1dCache wt(p);
  wt.miss(3, 0, 10, true);
  wt.store(3);
  EXPECT_EQ(wt.lookup(3, 20).outcome, L1dCache::Outcome::hit);
}

// ---------------------------------------------------------------------------------------------
// Dispatch ahead of the pipeline, and the wake-up an SM sleeps until
// ---------------------------------------------------------------------------------------------

// A TB dispatched for a later cycle starts then; the TB already resident keeps issuing from its
// own start (it used to be moved forward to the new TB's cycle, losing the gap).
TEST(PipelineCore, TbDispatchedAheadStartsAtItsCycleWithoutDelayingTheRunningTb) {
  Rig r(independent_sp(6));
  r.start(0, 0, 0);
  r.start(1, 1, 20);
  EXPECT_EQ(r.issued_before(3), 3u);    // TB 0 issues at 0, 1, 2, ...
  EXPECT_EQ(r.issued_before(20), 6u);   // ... done by 5; TB 1 not before 20
  EXPECT_EQ(r.issued_before(21), 7u);
  r.run();
  ASSERT_EQ(r.done.size(), 2u);
  EXPECT_EQ(r.done[0].cycle, 9u);        // last issue 5 + latency 4
  EXPECT_EQ(r.done[1].cycle, 20u + 9u);
}

// While every warp waits, the pipeline knows the first cycle one can issue: the SM sleeps until
// then. Skipped cycles still count as stalls.
TEST(PipelineCore, NextIssueCycleIsTheLoadReturnWhileTheConsumerWaits) {
  Rig r(
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000, lane: 4}}\n"
      "  - {op: sp, dst: r2, src: [r1]}\n");
  r.start();
  r.pipe->run_until(1);                          // the load issues at 0 and returns at 100
  r.pipe->run_until(2);                          // cycle 1: nothing can issue
  EXPECT_EQ(r.pipe->next_issue_cycle(), 100u);
  r.pipe->advance_to(100);                       // the SM slept until then
  EXPECT_EQ(r.stall_sum(), 100u);                // issue at 0, stalls 1..99
  EXPECT_EQ(r.st().stall_raw_memory, 99u);
  r.run();
  EXPECT_EQ(r.st().warp_instructions, 2u);
}
