// Block switching on fault (SPEC 3): which TBs the pipeline reports as blocked on faults (known
// answers on the rig of pipeline_rig.hpp), and the SM's local TB scheduler in whole runs: the
// switched-out bound, switch-ins matching switch-outs, no switching without a TB to switch in, and
// the platform check.
//
// Rig timing (fault_organization_test.cpp): a load issued at 0 faults, the fault is known at 51
// and handled at 1051 (the warp refetches and replays at 1053).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline_rig.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using namespace mpgpu::test;

namespace {

constexpr uint64_t kFaultPage = 0x10000;  // warp 0's page; warp 1's is the next one

std::function<void(SmParams&)> operand_log(uint32_t bytes = 8192) {
  return [=](SmParams& p) {
    p.translate = true;
    p.page_bytes = 4096;
    p.l1_tlb = {32, 8, 1, 32};
    p.fault_organization = FaultOrganization::operand_log;
    p.operand_log.bytes = bytes;
  };
}

// Two warps of `body` (a YAML list); warp 0's page faults. Started at cycle 0.
std::unique_ptr<Rig> two_warps(const std::string& body, uint32_t log_bytes = 8192) {
  auto r = std::make_unique<Rig>("body:\n" + body, 64, operand_log(log_bytes));
  r->port.fault_pages[kFaultPage] = 0;
  r->start();
  return r;
}

std::vector<SmPipeline::FaultBlockedTb> blocked_at(Rig& r, uint64_t cycle, uint64_t& next_known) {
  r.issued_before(cycle);
  return r.pipe->fault_blocked_tbs(next_known);
}

}  // namespace

// Warp 0's load faults, warp 1's (another page) does not. Before the fault is known (51) the TB
// is not blocked and the answer names 51; at 60 warp 1 still waits for its data (152) - not a
// fault; once it is at the barrier warp 0's halt blocks the TB, until the fault is handled (1051).
TEST(BlockSwitching, TbWithAFaultedWarpAndOneAtTheBarrierIsBlocked) {
  auto rig = two_warps("  - {op: ld.global, dst: r1, addr: {base: 0x10000000, warp: 4096, lane: 4}}\n"
                       "  - {op: sp, dst: r2, src: [r1]}\n"
                       "  - {op: bar}\n");
  Rig& r = *rig;
  uint64_t next = 0;
  EXPECT_TRUE(blocked_at(r, 40, next).empty());
  EXPECT_EQ(next, 51u);
  EXPECT_TRUE(blocked_at(r, 60, next).empty());
  EXPECT_EQ(next, SmPipeline::kNever);
  const auto b = blocked_at(r, 300, next);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].slot, 0u);
  EXPECT_EQ(b[0].handled, 1051u);
  EXPECT_TRUE(blocked_at(r, 1052, next).empty());  // handled: refetching is not blocked
}

// A warp with work of its own keeps the TB in: only warp 0 waits on the fault.
TEST(BlockSwitching, TbWithAWarpStillComputingIsNotBlocked) {
  auto r = two_warps("  - {op: ld.global, dst: r1, addr: {base: 0x10000000, warp: 4096, lane: 4}}\n"
                     "  - loop: 200\n"
                     "    body:\n"
                     "      - {op: sp, dst: r2, src: [r2]}\n");
  uint64_t next = 0;
  EXPECT_TRUE(blocked_at(*r, 60, next).empty());
}

// Warp 0's faulted store holds the TB's whole log share (512 B: 2 entries) until its replay, so
// warp 1's store cannot issue before the fault is handled: the TB is blocked (without the table
// rule warp 1 would look ready and keep the TB in).
TEST(BlockSwitching, WarpWaitingForLogEntriesOnlyAReplayFreesIsBlocked) {
  auto r = two_warps("  - {op: st.global, src: [r1], addr: {base: 0x10000000, warp: 4096, lane: 4}}\n", 512);
  uint64_t next = 0;
  const auto b = blocked_at(*r, 60, next);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].handled, 1051u);
  EXPECT_GE(r->st().operand_log_full, 1u);
}

// ---------------------------------------------------------------------------------------------
// Whole runs: one SM of sixteen_sm holding 2 TBs of 1024 threads; every TB first writes a 64 KB
// chunk of its own in a lazy heap (one fault each, handled on the GPU: 20 us, in parallel), then
// computes.
// ---------------------------------------------------------------------------------------------
namespace {

std::string workload(uint32_t grid) {
  return "name: bs\npolicy: fcfs\nkernels:\n  k:\n    grid: " + std::to_string(grid) +
         "\n    threads_per_tb: 1024\n    registers_per_thread: 16\n    program:\n      body:\n"
         "        - {op: st.global, src: [r1], addr: {base: 0x80000000, tb: 65536, tid: 4}}\n"
         "        - loop: 64\n          body:\n            - {op: fma, dst: r2, src: [r2, r1]}\n"
         "processes:\n  - name: p\n    memory:\n      allocations:\n"
         "        - {name: heap, va: 0x80000000, bytes: 16777216, placement: lazy}\n"
         "    launches:\n      - {kernel: k}\n";
}

nlohmann::json run(uint32_t grid, const std::string& block_switching, const TempDir& dir, const std::string& name) {
  const std::string wl = dir.write(name + ".yaml", workload(grid));
  const std::string out = (dir.path / name).string();
  const auto r = run_mpgpu("run --platform " + source_path("platforms/sixteen_sm.yaml") + " --workload " + wl +
                           " --out " + out + " --jobs 1 --set sm.count=1 --set sm.fault_organization=operand_log"
                           " --set extensions.operand_log_bytes=16384 --set fill_unit.fault.lazy_pages=gpu " +
                           block_switching);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(out + "/stats.json");
  return nlohmann::json::parse(f);
}

}  // namespace

// TBs 0 and 1 fault and are switched out for TBs 2 and 3, which fault too: with the limit at 2
// nothing more leaves until 0 and 1 are handled and swap back in. Never more than extra_tbs out
// (the bound is reached), every TB switched out comes back, all TBs complete.
TEST(BlockSwitchingRun, SwitchedOutTbsStayWithinTheLimitAndAllComeBack) {
  TempDir dir;
  for (uint32_t extra : {1u, 2u}) {
    const auto s = run(8, "--set sm.block_switching.enabled=true --set sm.block_switching.extra_tbs=" + std::to_string(extra),
                       dir, "extra" + std::to_string(extra));
    const auto& bs = s["sms"][0]["block_switching"];
    EXPECT_EQ(bs["peak_switched_out"].get<uint32_t>(), extra);
    EXPECT_GE(bs["switched_out"].get<uint64_t>(), 2u * extra);
    EXPECT_EQ(bs["switched_in"], bs["switched_out"]);
    EXPECT_GT(bs["bytes_saved"].get<uint64_t>(), 0u);
    EXPECT_EQ(bs["bytes_restored"], bs["bytes_saved"]);  // contexts come back whole
    EXPECT_EQ(s["tbs_done"].get<uint64_t>(), 8u);
  }
}

// With only the resident TBs in the grid the block scheduler has nothing to give: no TB is
// switched out (a switch would only cost the context traffic). Off, the section is absent.
TEST(BlockSwitchingRun, NothingToSwitchInMeansNoSwitch) {
  TempDir dir;
  const auto s = run(2, "--set sm.block_switching.enabled=true", dir, "two");
  EXPECT_EQ(s["sms"][0]["block_switching"]["switched_out"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["tbs_done"].get<uint64_t>(), 2u);
  const auto off = run(8, "", dir, "off");
  EXPECT_FALSE(off["sms"][0].contains("block_switching"));
  EXPECT_EQ(off["tbs_done"].get<uint64_t>(), 8u);
}

TEST(BlockSwitchingConfig, NeedsAPreemptibleOrganization) {
  const auto r = run_mpgpu("validate --platform " + source_path("platforms/sixteen_sm.yaml") +
                           " --set sm.block_switching.enabled=true");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("block_switching"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("preemptible"), std::string::npos) << r.output;
  const auto ok = run_mpgpu("validate --platform " + source_path("platforms/sixteen_sm.yaml") +
                            " --set sm.block_switching.enabled=true --set sm.fault_organization=replay_queue");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}
