// Preemption on the tiny platform (1 ns cycles): exact context bytes and save time, draining
// completion, PTBQ-first restore, through the full SystemC model.
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.hpp"
#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

// A low-priority kernel filling both SMs (4 TBs each), and a high-priority kernel that needs one
// SM, arriving at 1 us.
std::string workload(const std::string& mech, const std::string& lo_time) {
  return "policy: ppq_exclusive\npreemption: " + mech + R"(
kernels:
  lo: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, shared_mem_per_tb: 960, tb_time: )" + lo_time + R"(}
  hi: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: low, launches: [{kernel: lo}]}
  - {name: high, priority: 1, arrival_us: 1, launches: [{kernel: hi}]}
)";
}

json simulate(const std::string& text, const std::string& timeline = "",
              std::vector<std::pair<std::string, std::string>> sets = {}) {
  TempDir d;
  sets.insert(sets.begin(), {{"mechanisms.policies", "[fcfs, ppq_exclusive]"},
                             {"mechanisms.preemption", "[context_switch, draining]"}});
  PlatformConfig cfg = load_platform(source_path("sc_tests/data/tiny.yaml"), sets);
  WorkloadDesc w = load_workload(d.write("w.yaml", text));
  resolve_workload(cfg, w);
  SimRequest r;
  r.processes = {0, 1};
  r.timeline_path = timeline;
  return simulate_here(cfg, w, r);
}

}  // namespace

TEST(ContextSwitch, MovesExactlyTheContextBytesInTheMemoryModelsTime) {
  // A wide crossbar (8 flits a cycle) leaves the DRAM bus as the only bottleneck.
  json r = simulate(workload("context_switch", "{kind: fixed, mean_cycles: 10000}"), "",
                    {{"crossbar.flits_per_cycle", "8"}});
  const auto& s = r["scheduling"];
  ASSERT_EQ(s["preemptions"], 1);
  // 4 TBs x (2048 registers x 4 B + 960 B shared memory + 64 B TB state) = 4 x 72 lines.
  const uint64_t per_tb = 2048 * 4 + 960 + 64, bytes = 4 * per_tb;
  EXPECT_EQ(s["bytes_saved"].get<uint64_t>(), bytes);
  EXPECT_EQ(s["bytes_restored"].get<uint64_t>(), bytes);
  EXPECT_EQ(s["tbs_saved"], 4);
  EXPECT_EQ(s["tbs_restored"], 4);
  // The write-back L2 takes the saved lines; DRAM sees the restore reads that miss and the dirty
  // lines the small L2 evicts.
  const auto& m = r["memory"];
  EXPECT_GT(m["l2_writebacks"].get<uint64_t>(), 0u);
  EXPECT_EQ(m["dram_writes"], m["l2_writebacks"]);
  EXPECT_EQ(m["dram_bytes"].get<uint64_t>(), 128 * (m["dram_reads"].get<uint64_t>() + m["dram_writes"].get<uint64_t>()));
  // Save time from the memory model: drain 500 + trap 100 cycles, then 288 lines leave the SM one
  // per cycle; the last one crosses the crossbar (5 flits / 8 + 10), waits for the next L2 cycle
  // edge to look up its tag (10.625 -> 11), is written (20) and its acknowledgement crosses back
  // (1/8 + 10). Write-backs of evicted lines occupy DRAM but are off the SM's path.
  const double lines = bytes / 128.0;
  const double expected = 500 + 100 + (lines - 1) + 11 + 20 + (0.125 + 10);
  EXPECT_DOUBLE_EQ(s["preemption_list"][0]["latency_ns"].get<double>(), expected);
  // The high-priority kernel starts on the freed SM at once.
  const double done = s["preemption_list"][0]["done_ns"].get<double>();
  EXPECT_DOUBLE_EQ(r["kernels"][1]["start_ns"].get<double>(), done);
}

TEST(ContextSwitch, PreemptedTbsResumeWithTheirRemainingWork) {
  json r = simulate(workload("context_switch", "{kind: fixed, mean_cycles: 10000}"));
  // Low-priority TBs on the preempted SM had 10000 - 1002 cycles left (frozen at the request,
  // 1000 ns arrival + 2 cycles of SMST search). They resume after the high-priority kernel.
  const double req = r["scheduling"]["preemption_list"][0]["request_ns"].get<double>();
  EXPECT_DOUBLE_EQ(req, 1002.0);
  const double hi_end = r["kernels"][1]["end_ns"].get<double>();
  const double lo_end = r["kernels"][0]["end_ns"].get<double>();
  EXPECT_GT(lo_end, 10000.0 + (hi_end - req));  // lost at least the time it was switched out
  EXPECT_LT(lo_end, 10000.0 + (hi_end - req) + 3000.0);  // plus bounded save/restore cost
}

TEST(Draining, FinishesExactlyWhenTheLongestResidentTbEnds) {
  TempDir d;
  const std::string tl = (d.path / "t.json").string();
  json r = simulate(workload("draining", "{kind: uniform, min_cycles: 5000, max_cycles: 15000}"), tl);
  const auto& s = r["scheduling"];
  ASSERT_EQ(s["preemptions"], 1);
  EXPECT_EQ(s["bytes_saved"], 0);
  const uint32_t sm = s["preemption_list"][0]["sm"];
  std::ifstream in(tl);
  json t = json::parse(in);
  double longest = 0;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "tb" && e["pid"] == 100 + int(sm) && e["name"].get<std::string>().rfind("lo", 0) == 0)
      longest = std::max(longest, (e["ts"].get<double>() + e["dur"].get<double>()) * 1e3);
  EXPECT_NEAR(s["preemption_list"][0]["done_ns"].get<double>(), longest, 1e-3);
  EXPECT_NEAR(r["kernels"][1]["start_ns"].get<double>(), longest, 1e-3);
}

TEST(Policies, NpqDoesNotPreemptAndHighPriorityWaits) {
  json r = simulate(R"(policy: npq
preemption: draining
kernels:
  lo: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 10000}}
  hi: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: low, launches: [{kernel: lo}]}
  - {name: high, priority: 1, arrival_us: 1, launches: [{kernel: hi}]}
)",
                    "", {{"mechanisms.policies", "[npq]"}});
  EXPECT_EQ(r["scheduling"]["preemptions"], 0);
  // Each policy decision walks the 2-entry SMST (2 cycles): low's TBs on SM 0 start at 2 ns and
  // end at 10002 ns; one more decision gives SM 0 to the high-priority kernel at 10004 ns.
  EXPECT_DOUBLE_EQ(r["kernels"][1]["start_ns"].get<double>(), 10004.0);
}

TEST(Policies, StarvationEndsWithAClearErrorAtTheTimeLimit) {
  // The high-priority process keeps switching the low-priority TBs out (see the file). The error
  // comes back as a result, not an exception (ASan cannot follow an unwind after SystemC switched
  // stacks).
  std::ifstream f(source_path("sc_tests/data/starvation.yaml"));
  const json r = simulate(std::string(std::istreambuf_iterator<char>(f), {}));
  ASSERT_TRUE(r.contains("error")) << "expected a starvation error";
  EXPECT_EQ(r["kind"], "sim");
  EXPECT_NE(r["error"].get<std::string>().find("not finished within max_sim_time_us = 200: unfinished: low"),
            std::string::npos)
      << r["error"];
}
