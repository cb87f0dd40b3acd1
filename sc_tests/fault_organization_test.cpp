// Known-answer tests of the pipeline's fault organizations (SPEC 3): fetch disable until commit or
// last TLB check, source release, the replay queue and operand log as admission tables, squash and
// replay of faulted instructions, the two hazards, and the replay state a context switch carries.
//
// Worked from the rig's baseline (pipeline_rig.hpp) with translation on: F = 2, sp latency 4,
// L1 TLB lookup 1 cycle; an L1 TLB miss leaves one cycle after its lookup and the fake walk answers
// 50 cycles later; memory answers 100 cycles after a request leaves. A load of one line issued at
// 0: TLB lookup at 0, walk sent at 1, back at 51 (its last TLB check), request at 51, data at 151
// (its commit). A faulting page: fault known at 51, resident 1000 later (1051); the warp refetches
// the faulting instruction F cycles later and replays at 1053.
#include <gtest/gtest.h>

#include <string>

#include "pipeline_rig.hpp"
#include "platform/extension_report.hpp"
#include "platform/platform_config.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using namespace mpgpu::test;

namespace {

constexpr uint64_t kPage = 0x10000;  // the page of 0x10000000

std::function<void(SmParams&)> org(FaultOrganization o, uint32_t log_bytes = 8192, uint32_t rq_entries = 128) {
  return [=](SmParams& p) {
    p.translate = true;
    p.page_bytes = 4096;
    p.l1_tlb = {32, 8, 1, 32};
    p.fault_organization = o;
    p.operand_log.bytes = log_bytes;
    p.replay_queue.entries = rq_entries;
  };
}

// A load of one line (page kPage) reading r3 for its address, then an independent sp.
const char* kLoadThenIndependent =
    "body:\n"
    "  - {op: ld.global, dst: r1, src: [r3], addr: {base: 0x10000000, gtid: 4}}\n"
    "  - {op: sp, dst: r2}\n";
// The same load, then an sp that overwrites the load's address register r3.
const char* kLoadThenOverwriteSource =
    "body:\n"
    "  - {op: ld.global, dst: r1, src: [r3], addr: {base: 0x10000000, gtid: 4}}\n"
    "  - {op: sp, dst: r3}\n";

// The cycle the n-th warp instruction (a replay counts) issues; the first issues at 0.
uint64_t nth_issue(Rig& r, uint64_t n) {
  r.start();
  for (uint64_t c = 1; c < 5000; ++c)
    if (r.issued_before(c + 1) >= n) return c;
  return ~uint64_t{0};
}
uint64_t second_issue(Rig& r) { return nth_issue(r, 2); }

uint64_t second_issue(FaultOrganization o, const char* prog, bool fault) {
  Rig r(prog, 32, org(o));
  if (fault) r.port.fault_pages[kPage] = 0;
  return second_issue(r);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Without faults: what each organization costs
// ---------------------------------------------------------------------------------------------

// Fetch after a global load: at its issue (baseline, replay queue, operand log: 0 + F), at its
// last TLB check (51 + F), at its commit (151 + F).
TEST(FaultOrganization, FetchDisabledUntilIssueLastCheckOrCommit) {
  EXPECT_EQ(second_issue(FaultOrganization::stall_on_fault, kLoadThenIndependent, false), 2u);
  EXPECT_EQ(second_issue(FaultOrganization::wd_lastcheck, kLoadThenIndependent, false), 53u);
  EXPECT_EQ(second_issue(FaultOrganization::wd_commit, kLoadThenIndependent, false), 153u);
  EXPECT_EQ(second_issue(FaultOrganization::replay_queue, kLoadThenIndependent, false), 2u);
  EXPECT_EQ(second_issue(FaultOrganization::operand_log, kLoadThenIndependent, false), 2u);
}

// Overwriting the load's address register: early release at operand read lets it issue at F,
// except under the replay queue, which holds the source until the last TLB check (51).
TEST(FaultOrganization, ReplayQueueHoldsSourcesUntilTheLastTlbCheck) {
  EXPECT_EQ(second_issue(FaultOrganization::stall_on_fault, kLoadThenOverwriteSource, false), 2u);
  EXPECT_EQ(second_issue(FaultOrganization::replay_queue, kLoadThenOverwriteSource, false), 51u);
  EXPECT_EQ(second_issue(FaultOrganization::operand_log, kLoadThenOverwriteSource, false), 2u);
}

// A load takes one log entry, a store two; they are released after the last TLB check.
TEST(FaultOrganization, OperandLogTakesOneEntryPerLoadTwoPerStore) {
  Rig r("body:\n"
        "  - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4}}\n"
        "  - {op: st.global, src: [r2], addr: {base: 0x10000000, gtid: 4}}\n"
        "  - {op: sp, dst: r4, src: [r1]}\n",
        32, org(FaultOrganization::operand_log));
  r.start();
  EXPECT_EQ(r.issued_before(1), 1u);
  EXPECT_EQ(r.pipe->operand_log().used(0), 1u);
  EXPECT_EQ(r.issued_before(3), 2u);  // the store at F = 2
  EXPECT_EQ(r.pipe->operand_log().used(0), 3u);
  EXPECT_EQ(r.pipe->replay_queue().size(), 2u);
  EXPECT_EQ(r.pipe->operand_log().share(), 32u);  // 8 KB / 256 B, one resident TB
  r.run();
  EXPECT_EQ(r.st().operand_log_full, 0u);
}

// The log is split evenly among the resident TBs: 32 entries over 4 TBs, then over 3.
TEST(FaultOrganization, OperandLogIsPartitionedAmongResidentTbs) {
  Rig r("body:\n  - {op: sp, dst: r1}\n", 32, org(FaultOrganization::operand_log));
  for (uint32_t tb = 0; tb < 4; ++tb) r.start(tb, tb, 0);
  EXPECT_EQ(r.pipe->operand_log().share(), 8u);
  uint64_t drained = 0;
  r.pipe->evict_tb(3, drained);
  EXPECT_EQ(r.pipe->operand_log().share(), 10u);  // 32 / 3
}

// A share of 2 entries (512 B, one TB): a second store waits for the first's last TLB check (51).
TEST(FaultOrganization, FullOperandLogStallsIssue) {
  const char* stores =
      "body:\n"
      "  - {op: st.global, src: [r1], addr: {base: 0x10000000, gtid: 4}}\n"
      "  - {op: st.global, src: [r2], addr: {base: 0x10000080, gtid: 4}}\n";
  Rig full(stores, 32, org(FaultOrganization::operand_log, 512));
  EXPECT_EQ(second_issue(full), 51u);
  EXPECT_GE(full.st().operand_log_full, 1u);
  Rig roomy(stores, 32, org(FaultOrganization::operand_log, 8192));
  EXPECT_EQ(second_issue(roomy), 2u);
  EXPECT_EQ(roomy.st().operand_log_full, 0u);
}

// One replay-queue entry: a second load waits for the first to commit (151).
TEST(FaultOrganization, FullReplayQueueStallsIssue) {
  const char* loads =
      "body:\n"
      "  - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4}}\n"
      "  - {op: ld.global, dst: r2, addr: {base: 0x10000080, gtid: 4}}\n";
  Rig r(loads, 32, org(FaultOrganization::replay_queue, 8192, 1));
  EXPECT_EQ(second_issue(r), 151u);
  EXPECT_GE(r.st().replay_queue_full, 1u);
}

// ---------------------------------------------------------------------------------------------
// Faults: squash, replay, hazards
// ---------------------------------------------------------------------------------------------

// Stall on fault: the request waits for the handler (data at 1051 + 100) while the warp goes on:
// the younger sp issues at F, before the faulted load is done - a sparse replay if switched out.
TEST(FaultOrganization, StallOnFaultLetsYoungerInstructionsIssue) {
  Rig r(kLoadThenIndependent, 32, org(FaultOrganization::stall_on_fault));
  r.port.fault_pages[kPage] = 0;
  EXPECT_EQ(second_issue(r), 2u);
  r.run();
  EXPECT_EQ(r.st().faulted_instructions, 1u);
  EXPECT_EQ(r.st().replays, 0u);
  EXPECT_EQ(r.st().younger_issued_under_fault, 1u);
  ASSERT_EQ(r.port.log.size(), 1u);
  EXPECT_EQ(r.port.log[0].cycle, 1051u);
  EXPECT_EQ(r.done.at(0).cycle, 1151u);
}

// Warp disable: nothing younger issues; the load is squashed at 51 and replayed at 1053 (TLB
// lookup, walk sent at 1054, back at 1104 = its last check), so the sp is fetched at 1104 + F.
TEST(FaultOrganization, WarpDisableReplaysAtTheFaultingPc) {
  Rig r(kLoadThenIndependent, 32, org(FaultOrganization::wd_lastcheck));
  r.port.fault_pages[kPage] = 0;
  EXPECT_EQ(nth_issue(r, 2), 1053u);  // the replay
  EXPECT_EQ(r.issued_before(1106), 2u);
  EXPECT_EQ(r.issued_before(1107), 3u);  // the sp
  r.run();
  EXPECT_EQ(r.st().faulted_instructions, 1u);
  EXPECT_EQ(r.st().replays, 1u);
  EXPECT_EQ(r.st().younger_issued_under_fault, 0u);
  EXPECT_EQ(r.st().warp_instructions, 3u);  // load, its replay, sp
  ASSERT_EQ(r.port.log.size(), 1u);           // the squashed load sent nothing
  EXPECT_EQ(r.port.log[0].cycle, 1104u);
  EXPECT_EQ(r.done.at(0).cycle, 1204u);
}

// Replay queue: the independent sp issues at F and is not replayed (sparse replay handled); only
// the load is: 3 warp instructions, the load's data at 1104 + 100.
TEST(FaultOrganization, ReplayQueueReplaysOnlyTheFaultedInstruction) {
  Rig r(kLoadThenIndependent, 32, org(FaultOrganization::replay_queue));
  r.port.fault_pages[kPage] = 0;
  EXPECT_EQ(second_issue(r), 2u);
  r.run();
  EXPECT_EQ(r.st().replays, 1u);
  EXPECT_EQ(r.st().warp_instructions, 3u);
  EXPECT_EQ(r.st().younger_issued_under_fault, 1u);
  EXPECT_EQ(r.done.at(0).cycle, 1204u);
  EXPECT_EQ(r.pipe->replay_queue().size(), 1u);  // leaves at its commit, when next looked at
}

// RAW on replay: a younger write to the faulted load's address register. Stall on fault and the
// operand log let it issue at F (the log holds the address for the replay); the replay queue holds
// it until the replay's last TLB check (1104); warp disable issues it after the replay.
TEST(FaultOrganization, RawOnReplayIsPreventedOrLogged) {
  struct Case {
    FaultOrganization o;
    uint64_t nth, issue, overwritten;  // the sp is the nth instruction issued (after the replay: 3rd)
  };
  for (const Case& c : {Case{FaultOrganization::stall_on_fault, 2, 2, 1}, Case{FaultOrganization::operand_log, 2, 2, 1},
                        Case{FaultOrganization::replay_queue, 3, 1104, 0}, Case{FaultOrganization::wd_lastcheck, 3, 1106, 0},
                        Case{FaultOrganization::wd_commit, 3, 1206, 0}}) {
    Rig r(kLoadThenOverwriteSource, 32, org(c.o));
    r.port.fault_pages[kPage] = 0;
    EXPECT_EQ(nth_issue(r, c.nth), c.issue) << to_string(c.o);
    r.run();
    EXPECT_EQ(r.st().sources_overwritten_under_fault, c.overwritten) << to_string(c.o);
  }
}

// Two faulting loads (pages A, B) issued at 0 and F: both squashed, replayed in program order once
// the later fault is handled (B known at 2 + 1 + 50 = 53, resident at 1053; resume 1055).
TEST(FaultOrganization, ReplaysInProgramOrder) {
  Rig r("body:\n"
        "  - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4}}\n"
        "  - {op: ld.global, dst: r2, addr: {base: 0x20000000, gtid: 4}}\n",
        32, org(FaultOrganization::replay_queue));
  r.port.fault_pages[0x10000] = 0;
  r.port.fault_pages[0x20000] = 0;
  r.start();
  r.run();
  EXPECT_EQ(r.st().replays, 2u);
  ASSERT_EQ(r.port.log.size(), 2u);
  EXPECT_EQ(r.port.log[0].addr >> 12, 0x10000 + FakePort::kFrameOffset);
  EXPECT_EQ(r.port.log[1].addr >> 12, 0x20000 + FakePort::kFrameOffset);
  EXPECT_GE(r.port.walks[2].cycle, 1055u);  // the first replay's walk
  EXPECT_LT(r.port.log[0].cycle, r.port.log[1].cycle);
}

// ---------------------------------------------------------------------------------------------
// Context switch of a faulted warp
// ---------------------------------------------------------------------------------------------

// Switched out at 100 with its load squashed: the replay (PC and, with the operand log, one 256 B
// entry) goes with the context; the restore replays the load first and does not re-run the sp.
TEST(FaultOrganization, SwitchedOutFaultedWarpCarriesItsReplay) {
  for (FaultOrganization o : {FaultOrganization::replay_queue, FaultOrganization::operand_log}) {
    Rig r(kLoadThenIndependent, 32, org(o));
    r.port.fault_pages[kPage] = 0;
    r.start();
    r.issued_before(100);
    uint64_t drained = 0;
    const auto saved = r.pipe->evict_tb(0, drained);
    EXPECT_LT(drained, 1051u) << to_string(o);  // no waiting for the handler
    ASSERT_EQ(saved.size(), 1u);
    ASSERT_EQ(saved[0].replay.size(), 1u);
    EXPECT_EQ(saved[0].replay[0].pc, 0u);
    EXPECT_EQ(saved[0].replay_bytes, o == FaultOrganization::operand_log ? 4u + 256u : 4u) << to_string(o);
    EXPECT_EQ(r.pipe->replay_queue().size(), 0u);
    r.pipe->advance_to(2000);
    ASSERT_TRUE(r.pipe->launch_tb(0, &r.launch, 0, 2000, &saved));
    r.run();
    EXPECT_EQ(r.st().warp_instructions, 3u) << to_string(o);  // load, sp, replayed load
    ASSERT_EQ(r.port.log.size(), 1u);
    EXPECT_GE(r.port.log[0].cycle, 2000u);
  }
}

// Stall on fault cannot switch the warp out before the load completes: the drain waits for it.
TEST(FaultOrganization, StallOnFaultDrainWaitsForTheHandler) {
  Rig r(kLoadThenIndependent, 32, org(FaultOrganization::stall_on_fault));
  r.port.fault_pages[kPage] = 0;
  r.start();
  r.issued_before(100);
  uint64_t drained = 0;
  const auto saved = r.pipe->evict_tb(0, drained);
  EXPECT_EQ(drained, 1151u);
  EXPECT_TRUE(saved[0].replay.empty());
}

// ---------------------------------------------------------------------------------------------
// Platform input
// ---------------------------------------------------------------------------------------------

TEST(FaultOrganizationConfig, UnknownOrganizationAndTooSmallLogExit2) {
  const std::string plat = "--platform " + source_path("platforms/sixteen_sm.yaml");
  auto bad = run_mpgpu("validate " + plat + " --set sm.fault_organization=replay_everything");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("fault_organization"), std::string::npos) << bad.output;
  // 16 TBs per SM: 4 KB = 16 entries gives each TB 1, less than a store's 2.
  auto small = run_mpgpu("validate " + plat + " --set sm.fault_organization=operand_log --set extensions.operand_log_bytes=4096");
  EXPECT_EQ(small.exit_code, 2) << small.output;
  EXPECT_NE(small.output.find("operand_log_bytes"), std::string::npos) << small.output;
  EXPECT_NE(small.output.find("a store needs 2"), std::string::npos) << small.output;
  auto ok = run_mpgpu("validate " + plat + " --set sm.fault_organization=operand_log --set extensions.operand_log_bytes=8192");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// A faulted store holds its TB's whole log share (512 B: 2 entries) until its replay: the next
// store waits, and the warp must still reach its replay when the fault becomes known (the wait
// for the table ends there, not never).
TEST(FaultOrganization, SquashedInstructionHoldingTheLogStillReplays) {
  Rig r("body:\n"
        "  - loop: 4\n"
        "    body:\n"
        "      - {op: st.global, src: [r1], addr: {base: 0x10000000, tid: 4, iter: 512}}\n",
        32, org(FaultOrganization::operand_log, 512));
  r.port.fault_pages[kPage] = 0;
  r.start();
  r.run();
  EXPECT_FALSE(r.pipe->busy());
  EXPECT_EQ(r.st().replays, 1u);
  EXPECT_EQ(r.st().global_stores, 5u);  // 4 and the replay
  EXPECT_GE(r.st().operand_log_full, 1u);
}

// The tables `mpgpu report` sizes are the ones the pipeline runs with: a 16 KB log on sixteen_sm
// is 64 entries in the report and a lone TB's share in a pipeline built from the same platform;
// the replay queue defaults to two entries per warp slot (128) in both.
TEST(FaultOrganizationConfig, ReportSizesAreThePipelineSizes) {
  PlatformConfig c = load_platform(source_path("platforms/sixteen_sm.yaml"),
                                   {{"extensions.operand_log_bytes", "16384"}, {"sm.fault_organization", "operand_log"}});
  uint64_t log_entries = 0, rq_entries = 0;
  const auto report = extension_report(c);
  for (const auto& row : report["extensions"]) {
    if (row["name"] == "operand_log") log_entries = row["entries"].get<uint64_t>();
    if (row["name"] == "replay_queue") rq_entries = row["entries"].get<uint64_t>();
  }
  EXPECT_EQ(log_entries, 64u);
  EXPECT_EQ(rq_entries, 128u);
  FakePort port;
  SmPipeline pipe(c.sm, port);
  KernelDesc k;
  k.name = "k";
  k.threads_per_tb = 32;
  k.program = program("body:\n  - {op: sp, dst: r1}\n");
  KernelLaunch l;
  l.id = 1;
  l.kernel = &k;
  ASSERT_TRUE(pipe.launch_tb(0, &l, 0, 0));
  EXPECT_EQ(pipe.operand_log().share(), log_entries);
  EXPECT_EQ(c.sm.replay_queue.entries, rq_entries);
}
