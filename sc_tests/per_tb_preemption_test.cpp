// Chimera and dual-kernel preemption (SPEC 4): the block scheduler's preemption processor on
// hand-built SM states (per-TB techniques, positions, victims, the thread rule), placement at
// positions, and full runs on the tiny platform (1 ns cycles, 2 SMs of 4 TB slots, 8192
// registers, 512 threads; 32 B of DRAM per cycle, so an SM's share is 16 B per cycle).
#include <gtest/gtest.h>

#include "block_scheduler/preemption_processor.hpp"
#include "common/error.hpp"
#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

PlatformConfig tiny(const std::string& policies = "[fcfs, ppq_exclusive, chimera, dual_kernel]") {
  return load_platform(source_path("sc_tests/data/tiny.yaml"), {{"mechanisms.policies", policies}});
}

// The running kernel: 2048 registers, 960 B shared memory, 128 threads per TB; context 2048 x 4
// + 960 + 64 (TB state) = 9216 B, so a switch takes 9216 / 16 = 576 cycles.
KernelDesc lo_kernel() {
  KernelDesc k;
  k.name = "lo";
  k.threads_per_tb = 128;
  k.registers_per_tb = 2048;
  k.shared_mem_per_tb = 960;
  k.instructions_per_tb = 10000;
  return k;
}

// At cycle 2000, four TBs in slots 0-3 at registers 2048 x slot, shared memory 960 x slot:
//   slot 0: issued at 0,    executed 1000, idempotent
//   slot 1: issued at 0,    executed 1900, not idempotent
//   slot 2: issued at 1000, executed  900, idempotent
//   slot 3: issued at 1500, executed  450, not idempotent
// Two finished TBs of 10000 instructions in 10000 and 12000 cycles: CPI 1.0 and 1.2 (standard
// deviation 0.1, below the running TBs' 0.4), so the drain estimate uses CPI 1.1 and 10000
// instructions per TB. Mean IPC of the SM's TBs (0.5 + 0.95 + 0.9 + 0.9) / 4 = 0.8125: a switch
// loses 0.8125 x 2 x 576 = 936 instructions.
//   slot 0: flush (0, 1000)  switch (576, 936)  drain (9900, 0)
//   slot 1: flush illegal    switch (576, 936)  drain (8910, 0)
//   slot 2: flush (0, 900)   switch (576, 936)  drain (10010, 0)
//   slot 3: flush illegal    switch (576, 936)  drain (10505, 0)
struct HandSm {
  PlatformConfig cfg = tiny();
  KernelDesc k = lo_kernel();
  KernelLaunch launch;
  SmStatusReport report;
  HandSm() {
    launch.kernel = &k;
    launch.id = 1;
    report.cycle = 2000;
    report.registers = 8192;
    report.shared_mem = 16384;
    const uint64_t issued[] = {0, 0, 1000, 1500}, executed[] = {1000, 1900, 900, 450};
    const bool flush[] = {true, false, true, false};
    for (uint32_t s = 0; s < 4; ++s) {
      TbAllocation a{s, 128, 2048 * s, 2048, 960 * s, 960};
      report.tbs.push_back({&launch, s, a, {executed[s], issued[s], flush[s]}, std::nullopt});
    }
  }
  // The preempting kernel: 2048 registers per TB, `threads` threads.
  KernelDesc hi;
  KernelLaunch next;
  const KernelLaunch& preempting(uint32_t threads) {
    hi.threads_per_tb = threads;
    hi.registers_per_tb = 2048;
    next.kernel = &hi;
    next.id = 2;
    return next;
  }
  PreemptionProcessor processor(double max_latency) {
    PreemptionProcessor p(cfg.sm, {32.0, max_latency, false});
    p.tb_finished(1, 10000, 10000);
    p.tb_finished(1, 10000, 12000);
    return p;
  }
};

}  // namespace

// Constraint 1000 cycles: drains are too slow. The SM saves switched TBs in turn (576, 1152,
// ... cycles), so the one switch under the constraint goes to a TB that cannot be flushed, the
// one whose drain is slowest: slot 3 (576). Slot 1 can then only switch second (1152, over the
// constraint, still faster than its 8910-cycle drain); slots 0 and 2 flush (latency 0; their
// switch would end at 1728 and 2304).
TEST(PreemptionProcessor, ChimeraPicksTheLeastOverheadTechniqueMeetingTheConstraint) {
  HandSm h;
  const PreemptionDecision d = h.processor(1000).plan_whole_sm(h.report);
  ASSERT_EQ(d.tbs.size(), 4u);
  const TbTechnique want[] = {TbTechnique::flush, TbTechnique::switch_out, TbTechnique::flush,
                              TbTechnique::switch_out};
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(d.tbs[s].slot, s);
    EXPECT_EQ(d.tbs[s].technique, want[s]) << "slot " << s;
  }
  EXPECT_DOUBLE_EQ(d.tbs[3].latency_cycles, 576);
  EXPECT_DOUBLE_EQ(d.tbs[3].overhead, 936);
  EXPECT_DOUBLE_EQ(d.tbs[1].latency_cycles, 1152);
  EXPECT_DOUBLE_EQ(d.tbs[0].latency_cycles, 0);
  EXPECT_DOUBLE_EQ(d.tbs[0].overhead, 1000);
  EXPECT_DOUBLE_EQ(d.tbs[2].overhead, 900);
}

// Constraint 1800 cycles, room for three switches in a row: slots 3 and 1 (no other way to meet
// it) take the first two (576, 1152); slot 0, run longest of the flushable TBs, takes the third
// (1728; 936 lost against its flush's 1000); slot 2's switch would end at 2304: flush (900).
TEST(PreemptionProcessor, ChimeraQueuesSwitchesBehindEachOther) {
  HandSm h;
  const PreemptionDecision d = h.processor(1800).plan_whole_sm(h.report);
  const TbTechnique want[] = {TbTechnique::switch_out, TbTechnique::switch_out, TbTechnique::flush,
                              TbTechnique::switch_out};
  const double latency[] = {1728, 1152, 0, 576};
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(d.tbs[s].technique, want[s]) << "slot " << s;
    EXPECT_DOUBLE_EQ(d.tbs[s].latency_cycles, latency[s]) << "slot " << s;
  }
}

// A loose constraint (11000 cycles): every drain meets it at no overhead.
TEST(PreemptionProcessor, ChimeraDrainsWhenTheConstraintAllows) {
  HandSm h;
  const PreemptionDecision d = h.processor(11000).plan_whole_sm(h.report);
  const double drain[] = {9900, 8910, 10010, 10505};
  for (uint32_t s = 0; s < 4; ++s) {
    EXPECT_EQ(d.tbs[s].technique, TbTechnique::drain);
    EXPECT_NEAR(d.tbs[s].latency_cycles, drain[s], 1e-6);
  }
}

// The oracle replaces the drain estimate by each TB's exact remaining time.
TEST(PreemptionProcessor, OracleUsesTheExactRemainingTime) {
  HandSm h;
  h.report.tbs[1].remaining_cycles = 700;  // slot 1 is about to finish
  for (uint32_t s : {0u, 2u, 3u}) h.report.tbs[s].remaining_cycles = 50000;
  PreemptionProcessor p(h.cfg.sm, {32.0, 1000, true});
  const PreemptionDecision d = p.plan_whole_sm(h.report);
  EXPECT_EQ(d.tbs[1].technique, TbTechnique::drain);
  EXPECT_DOUBLE_EQ(d.tbs[1].latency_cycles, 700);
  EXPECT_EQ(d.tbs[3].technique, TbTechnique::switch_out);
}

// Dual-kernel, a preempting kernel of 2048 registers and 128 threads per TB: four positions at
// registers 0, 2048, 4096, 6144, each overlapping one running TB. Two needed: position 2 first
// (slot 2 flushed, 900), then position 0 (slot 0 switched, 936; the first of the 936 ties).
// Two TBs staying (256 threads) and two coming (256) fit the SM's 512 threads and 4 slots.
TEST(PreemptionProcessor, DualKernelFreesTheCheapestPositionsAndClearsTheirVictims) {
  HandSm h;
  PreemptionProcessor p = h.processor(1000);
  const PreemptionDecision d = p.plan_positions(1, h.report, h.preempting(128), 2);
  EXPECT_EQ(d.positions, (std::vector<uint32_t>{2, 0}));
  ASSERT_EQ(d.tbs.size(), 2u);
  EXPECT_EQ(d.tbs[0].slot, 2u);
  EXPECT_EQ(d.tbs[0].technique, TbTechnique::flush);
  EXPECT_EQ(d.tbs[1].slot, 0u);
  EXPECT_EQ(d.tbs[1].technique, TbTechnique::switch_out);
  // Clear-on-preempt: the victims left every set; positions 1 and 3 keep their own TB.
  const CandidateVictimSets& v = p.victim_sets(1);
  EXPECT_EQ(v.candidate(0).to_ulong(), 0u);
  EXPECT_EQ(v.candidate(1).to_ulong(), 0b0010u);
  EXPECT_EQ(v.candidate(2).to_ulong(), 0u);
  EXPECT_EQ(v.candidate(3).to_ulong(), 0b1000u);
  EXPECT_EQ(p.free_positions(1), (std::vector<uint32_t>{0, 1, 2, 3}));
  p.placed(1, 2, 2);
  EXPECT_EQ(p.free_positions(1), (std::vector<uint32_t>{0, 1, 3}));
  p.left(1, 2);
  EXPECT_EQ(p.free_positions(1), (std::vector<uint32_t>{0, 1, 2, 3}));
}

// With 256 threads per preempting TB, two of them need all 512 threads: the TBs overlapping no
// chosen position go too (slot 1, then slot 3: both switches, in slot order on the tie).
TEST(PreemptionProcessor, DualKernelAlsoFreesTheThreadsThePreemptingTbsNeed) {
  HandSm h;
  PreemptionProcessor p = h.processor(1000);
  const PreemptionDecision d = p.plan_positions(0, h.report, h.preempting(256), 2);
  std::vector<uint32_t> slots;
  for (const auto& t : d.tbs) slots.push_back(t.slot);
  EXPECT_EQ(slots, (std::vector<uint32_t>{2, 0, 1, 3}));
}

// A TB goes at a position only when the position's register and shared-memory ranges are free
// and large enough for it; resident TBs are never overlapped.
TEST(SmResources, PlacesAtAPositionOnlyWhereNothingIsAllocated) {
  PlatformConfig cfg = tiny();
  SmResources r(cfg.sm);
  const TbResources tb{128, 2048, 960};
  auto first = r.try_allocate(tb, 16384);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->reg_offset, 0u);
  EXPECT_FALSE(r.try_allocate_at(tb, 16384, {1024, 2048, 4000, 960}));  // registers overlap
  EXPECT_FALSE(r.try_allocate_at(tb, 16384, {4096, 2048, 500, 960}));   // shared memory overlaps
  EXPECT_FALSE(r.try_allocate_at(tb, 16384, {4096, 1024, 4000, 960}));  // position too small
  auto at = r.try_allocate_at(tb, 16384, {4096, 2048, 4000, 960});
  ASSERT_TRUE(at);
  EXPECT_EQ(at->reg_offset, 4096u);
  EXPECT_EQ(at->shm_offset, 4000u);
  EXPECT_EQ(r.resident_tbs(), 2u);
  EXPECT_EQ(r.free_registers(), 8192u - 4096u);
}

namespace {

// lo fills both SMs twice (16 TBs of 10000 cycles and 10000 instructions); hi (one SM's worth,
// 4 TBs of 100 cycles) arrives at 15 us, in lo's second wave: 8 TBs have finished at CPI 1.0,
// the resident ones have run about 5000 cycles, so a drain takes about 5000 cycles.
std::string workload(const std::string& policy, double constraint_us, bool idempotent, const std::string& extra = "") {
  return "policy: " + policy + "\nlatency_constraint_us: " + std::to_string(constraint_us) + "\n" + extra +
         "kernels:\n"
         "  lo: {grid: 16, threads_per_tb: 128, registers_per_tb: 2048, shared_mem_per_tb: 960, idempotent: " +
         (idempotent ? "true" : "false") +
         ", instructions_per_tb: 10000, tb_time: {kind: fixed, mean_cycles: 10000}}\n"
         "  hi: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}\n"
         "processes:\n  - {name: low, launches: [{kernel: lo}]}\n"
         "  - {name: high, priority: 1, arrival_us: 15, launches: [{kernel: hi}]}\n";
}

json simulate(const std::string& text, const std::string& policies = "[fcfs, ppq_exclusive, chimera, dual_kernel]") {
  TempDir d;
  PlatformConfig cfg = tiny(policies);
  WorkloadDesc w = load_workload(d.write("w.yaml", text));
  resolve_workload(cfg, w);
  SimRequest r;
  for (uint32_t i = 0; i < w.processes.size(); ++i) r.processes.push_back(i);
  return simulate_here(cfg, w, r);
}

std::vector<std::string> techniques(const json& r) {
  std::vector<std::string> out;
  for (const auto& p : r["scheduling"]["preemption_list"])
    for (const auto& t : p["tbs"]) out.push_back(t["technique"]);
  return out;
}

std::string config_error(const std::string& text, const std::string& policies = "[fcfs, ppq_exclusive, chimera, dual_kernel]") {
  TempDir d;
  try {
    PlatformConfig cfg = tiny(policies);
    WorkloadDesc w = load_workload(d.write("w.yaml", text));
    resolve_workload(cfg, w);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// 10 us: every drain (about 5 us) meets it at no overhead; the estimate (remaining 10000-instruction
// TB at CPI 1.0) matches the time each TB took to finish.
TEST(Chimera, DrainsEveryTbWhenTheDrainMeetsTheConstraint) {
  const json r = simulate(workload("chimera", 10, false));
  ASSERT_EQ(r["scheduling"]["preemptions"], 1);
  EXPECT_EQ(techniques(r), std::vector<std::string>(4, "drain"));
  for (const auto& t : r["scheduling"]["preemption_list"][0]["tbs"]) {
    const double est = t["estimated_latency_ns"], took = t["latency_ns"];
    EXPECT_GT(took, 4000);
    EXPECT_NEAR(est, took, 0.01 * took);
    EXPECT_EQ(t["wasted_instructions"], 0);
  }
  EXPECT_EQ(r["tbs_done"], 20);
  EXPECT_EQ(r["scheduling"]["peak_kernels_per_sm"], 1);  // whole SMs
  // The four TBs (all the SM's registers) execute until they end together: utilization 1.
  EXPECT_NEAR(r["scheduling"]["preemption_list"][0]["register_utilization"].get<double>(), 1.0, 1e-9);
}

// 1 us: drains are too slow; the TBs cannot be flushed; each is switched out, one after another
// (576 cycles each at 1 GHz): still faster than a drain even when the constraint is missed.
TEST(Chimera, SwitchesTbsThatCanNeitherDrainInTimeNorFlush) {
  const json r = simulate(workload("chimera", 1, false));
  EXPECT_EQ(techniques(r), std::vector<std::string>(4, "switch"));
  std::vector<double> estimated;
  for (const auto& t : r["scheduling"]["preemption_list"][0]["tbs"]) estimated.push_back(t["estimated_latency_ns"]);
  std::sort(estimated.begin(), estimated.end());
  EXPECT_EQ(estimated, (std::vector<double>{576, 1152, 1728, 2304}));
  // The SM saves them in turn: the preemption takes about the last one's estimate (it ends a
  // little sooner: one SM saving alone gets more than its 1/N_SM share of DRAM bandwidth).
  const double took = r["scheduling"]["preemption_list"][0]["latency_ns"];
  EXPECT_LE(took, 2304);
  EXPECT_GT(took, 1728);
  // Nothing executes on the SM while it saves: utilization 0.
  EXPECT_EQ(r["scheduling"]["preemption_list"][0]["register_utilization"], 0.0);
  EXPECT_EQ(r["scheduling"]["tbs_saved"], 4);
  EXPECT_EQ(r["tbs_done"], 20);
}

// 0.1 us: only a flush (latency 0) meets it; idempotent TBs are flushed and restart later.
TEST(Chimera, FlushesIdempotentTbsUnderATightConstraint) {
  const json r = simulate(workload("chimera", 0.1, true));
  EXPECT_EQ(techniques(r), std::vector<std::string>(4, "flush"));
  EXPECT_EQ(r["scheduling"]["flush"]["tbs_restarted"], 4);
  EXPECT_GT(r["scheduling"]["flush"]["wasted_instructions"].get<uint64_t>(), 4u * 4000u);
  EXPECT_EQ(r["tbs_done"], 20);
}

// Dual-kernel, 1 us, hi with 2 TBs: it needs two of the SM's four positions; their TBs are
// switched out (576 and 1152 cycles); hi's TBs run beside the two lo TBs that keep running.
TEST(DualKernel, PreemptingKernelRunsBesideTheRunningOne) {
  std::string w = workload("dual_kernel", 1, false);
  w.replace(w.find("hi: {grid: 4"), 12, "hi: {grid: 2");
  const json r = simulate(w);
  ASSERT_EQ(r["scheduling"]["preemptions"], 1);
  EXPECT_EQ(techniques(r), std::vector<std::string>(2, "switch"));
  EXPECT_EQ(r["tbs_done"], 18);
  EXPECT_EQ(r["scheduling"]["peak_kernels_per_sm"], 2);
  // The two lo TBs staying (half the registers) execute through the save: utilization 1/2
  // (Chimera's whole-SM switch leaves 0).
  EXPECT_NEAR(r["scheduling"]["preemption_list"][0]["register_utilization"].get<double>(), 0.5, 1e-9);
}

// Three kernels of rising priority: mid (2 TBs) arrives while lo runs on both SMs and takes
// positions on one; hi (8 TBs: both SMs) arrives while mid is still the preempting kernel there.
// An SM holds at most two kernels at once: hi takes the other SM at once, and the first only
// once mid is its only kernel. Every TB completes.
TEST(DualKernel, AnSmNeverHoldsAThirdKernel) {
  const json r = simulate(
      "policy: dual_kernel\nlatency_constraint_us: 3\nkernels:\n"
      "  lo: {grid: 16, threads_per_tb: 128, registers_per_tb: 2048, idempotent: false, instructions_per_tb: 10000,"
      " tb_time: {kind: normal, mean_cycles: 10000, cv: 0.2}}\n"
      "  mid: {grid: 2, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 3000}}\n"
      "  hi: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 3000}}\n"
      "processes:\n  - {name: low, launches: [{kernel: lo}]}\n"
      "  - {name: m, priority: 1, arrival_us: 12, launches: [{kernel: mid}]}\n"
      "  - {name: h, priority: 2, arrival_us: 12.5, launches: [{kernel: hi}]}\n");
  EXPECT_EQ(r["tbs_done"], 26);
  EXPECT_EQ(r["scheduling"]["peak_kernels_per_sm"], 2);
  EXPECT_GE(r["scheduling"]["preemptions"].get<int>(), 2);
}

TEST(PerTbPreemption, BadInputIsLocated) {
  EXPECT_NE(config_error(workload("ppq_exclusive", 3, false)).find("w.yaml:2:24: latency_constraint_us: latency_constraint_us "
                                                                    "is for policy chimera or dual_kernel"),
            std::string::npos)
      << config_error(workload("ppq_exclusive", 3, false));
  const std::string pre = config_error(workload("chimera", 3, false, "preemption: flush\n"));
  EXPECT_NE(pre.find("w.yaml:3:13: preemption: policy chimera picks switch, drain or flush per TB"), std::string::npos) << pre;
  const std::string est = config_error(workload("dual_kernel", 3, false, "drain_estimate: exact\n"));
  EXPECT_NE(est.find("w.yaml:3:17"), std::string::npos) << est;
  EXPECT_NE(est.find("oracle"), std::string::npos) << est;
  // The oracle needs TB-level kernels.
  const std::string warp = config_error(
      "policy: chimera\ndrain_estimate: oracle\nkernels:\n  w:\n    grid: 1\n    threads_per_tb: 32\n    registers_per_thread: 8\n"
      "    program:\n      body:\n        - {op: fma, dst: r2, src: [r2, r1]}\n"
      "processes:\n  - {name: p, launches: [{kernel: w}]}\n");
  EXPECT_NE(warp.find("w.yaml:2:17: drain_estimate: the oracle needs each TB's exact remaining time"), std::string::npos) << warp;
  // More allocation positions than the table holds.
  try {
    load_platform(source_path("sc_tests/data/tiny.yaml"), {{"extensions.dual_kernel_positions", "65"}});
    ADD_FAILURE() << "65 positions accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("extensions.dual_kernel_positions"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
  }
  // A platform that does not offer the policy.
  EXPECT_NE(config_error(workload("chimera", 3, false), "[fcfs, ppq_exclusive]").find("not among the mechanisms"),
            std::string::npos);
}
