// SystemC runs on the tiny platform (1 ns cycles) with exact answers. One simulation per TEST.
#include <gtest/gtest.h>

#include <fstream>

#include "common/error.hpp"
#include "common/payload.hpp"
#include "platform/gpu.hpp"
#include "platform/json_array_text.hpp"
#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

struct Fixture {
  TempDir dir;
  PlatformConfig cfg;
  WorkloadDesc w;
  Fixture(const std::string& workload, std::vector<std::pair<std::string, std::string>> sets = {})
      : cfg(load_platform(source_path("sc_tests/data/tiny.yaml"), sets)),
        w(load_workload(dir.write("w.yaml", workload), sets)) {
    resolve_workload(cfg, w);
  }
  json simulate_all(const std::string& timeline = "") {
    SimRequest r;
    for (uint32_t i = 0; i < w.processes.size(); ++i) r.processes.push_back(i);
    r.timeline_path = timeline;
    return simulate_here(cfg, w, r);
  }
};

// One kernel `k` of `grid` TBs, 128 threads and 2048 registers (4 per tiny SM), 100 cycles each.
std::string one_kernel(int grid, int shm = 0) {
  return "kernels:\n  k:\n    grid: " + std::to_string(grid) +
         "\n    threads_per_tb: 128\n    registers_per_tb: 2048\n    shared_mem_per_tb: " + std::to_string(shm) +
         "\n    tb_time: {kind: fixed, mean_cycles: 100}\nprocesses:\n  - name: p\n    launches: [{kernel: k}]\n";
}

// A 128 B read issued on SM 0's memory socket at `at`; returns its latency in ns.
double load_from_sm0(Gpu& gpu, uint64_t addr, sc_core::sc_time at) {
  uint8_t data[128];
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(data);
  gp.set_data_length(128);
  sc_core::sc_time delay = at;
  gpu.sms()[0]->mem_out->b_transport(gp, delay);
  return (delay - at).to_seconds() * 1e9;
}

}  // namespace

TEST(TbDispatch, FillsEverySlotAndRunsInWaves) {
  Fixture f(one_kernel(12));  // 8 slots on 2 SMs: waves of 8 and 4
  json r = f.simulate_all();
  ASSERT_EQ(r["kernels"].size(), 1u);
  EXPECT_DOUBLE_EQ(r["kernels"][0]["start_ns"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(r["kernels"][0]["end_ns"].get<double>(), 200.0);
  EXPECT_EQ(r["sms"][0]["peak_resident_tbs"], 4);
  EXPECT_EQ(r["sms"][1]["peak_resident_tbs"], 4);
  EXPECT_EQ(r["sms"][0]["tbs"].get<int>() + r["sms"][1]["tbs"].get<int>(), 12);
  EXPECT_EQ(r["sim"]["cycles"], 200);
}

TEST(TbDispatch, SharedMemoryLimitsResidency) {
  Fixture f(one_kernel(12, 10 * 1024));  // 10 KB of the 16 KB default carve-out: 1 per SM
  json r = f.simulate_all();
  EXPECT_EQ(r["sms"][0]["peak_resident_tbs"], 1);
  EXPECT_DOUBLE_EQ(r["kernels"][0]["end_ns"].get<double>(), 600.0);  // 6 waves
}

TEST(TbDispatch, LargerCarveOutIsTakenWhenNeeded) {
  Fixture f(one_kernel(4, 17 * 1024));  // needs the 32 KB configuration: 1 per SM
  json r = f.simulate_all();
  EXPECT_EQ(r["sms"][0]["peak_resident_tbs"], 1);
  EXPECT_DOUBLE_EQ(r["kernels"][0]["end_ns"].get<double>(), 200.0);
}

TEST(TbDispatch, DispatchCyclesDelayTbStarts) {
  Fixture f(one_kernel(4), {{"block_scheduler.tb_dispatch_cycles", "5"}});
  json r = f.simulate_all();
  // TBs start at 0, 5, 10, 15 ns; the last ends at 115 ns.
  EXPECT_DOUBLE_EQ(r["kernels"][0]["end_ns"].get<double>(), 115.0);
}

TEST(LeftOver, SecondProcessGetsLeftOverSlotsAtOnce) {
  Fixture f(R"(kernels:
  a: {grid: 6, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
  b: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: pa, launches: [{kernel: a}]}
  - {name: pb, launches: [{kernel: b}]}
)");
  json r = f.simulate_all();
  const auto& ka = r["kernels"][0];
  const auto& kb = r["kernels"][1];
  EXPECT_EQ(ka["name"], "a");
  EXPECT_DOUBLE_EQ(kb["start_ns"].get<double>(), 0.0);  // 2 slots left over by a
  EXPECT_DOUBLE_EQ(kb["end_ns"].get<double>(), 200.0);  // its other 2 TBs after a's first wave
  EXPECT_DOUBLE_EQ(ka["end_ns"].get<double>(), 100.0);
}

TEST(LeftOver, SecondProcessWaitsWhenNothingIsLeftOver) {
  Fixture f(R"(kernels:
  a: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
  b: {grid: 1, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: pa, launches: [{kernel: a}]}
  - {name: pb, launches: [{kernel: b}]}
)");
  json r = f.simulate_all();
  EXPECT_DOUBLE_EQ(r["kernels"][1]["start_ns"].get<double>(), 100.0);
}

TEST(Host, StreamOrderCopyThenKernelAndLaunchLatency) {
  Fixture f(R"(kernels:
  k: {grid: 1, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - name: p
    launches:
      - {copy: {bytes: 4096, direction: h2d}}
      - {kernel: k}
)",
            {{"host.kernel_launch_cycles", "50"}});
  json r = f.simulate_all();
  // Link: 16 B per ns, 4096 B = 256 ns, plus 100 ns latency; then 50 cycles of launch.
  EXPECT_DOUBLE_EQ(r["kernels"][0]["submit_ns"].get<double>(), 356.0);
  EXPECT_DOUBLE_EQ(r["kernels"][0]["launch_ns"].get<double>(), 406.0);
  EXPECT_DOUBLE_EQ(r["kernels"][0]["end_ns"].get<double>(), 506.0);
}

TEST(Host, StreamsOfOneProcessOverlap) {
  Fixture f(R"(kernels:
  k: {grid: 1, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - name: p
    streams:
      - launches: [{kernel: k}, {kernel: k}]
      - launches: [{kernel: k}, {kernel: k}]
)");
  json r = f.simulate_all();
  EXPECT_EQ(r["kernels"].size(), 4u);
  EXPECT_DOUBLE_EQ(r["sim"]["time_ns"].get<double>(), 200.0);  // two at a time
}

TEST(Host, ReplayUntilAllDoneCountsOnlyCompletedRuns) {
  Fixture f(R"(replay: until_all_done
kernels:
  s: {grid: 1, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
  l: {grid: 1, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 1050}}
processes:
  - {name: short, launches: [{kernel: s}]}
  - {name: long, launches: [{kernel: l}]}
)");
  json r = f.simulate_all();
  EXPECT_EQ(r["processes"][1]["runs"].size(), 1u);
  EXPECT_EQ(r["processes"][0]["runs"].size(), 10u);  // runs of 100 ns completed by 1050 ns
  EXPECT_DOUBLE_EQ(r["sim"]["time_ns"].get<double>(), 1050.0);
}

TEST(RunWorkload, MetricsFromIsolatedAndSharedRuns) {
  Fixture f(R"(kernels:
  k: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: a, launches: [{kernel: k}]}
  - {name: b, launches: [{kernel: k}]}
)");
  RunOptions opt;
  opt.jobs = 2;
  json s = run_workload(f.cfg, f.w, opt);  // forks: this process never elaborates
  EXPECT_DOUBLE_EQ(s["processes"][0]["T_SP"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(s["processes"][0]["T_MP"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(s["processes"][1]["T_MP"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(s["processes"][1]["NTT"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(s["metrics"]["antt"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(s["metrics"]["stp"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(s["metrics"]["fairness"].get<double>(), 0.5);
  EXPECT_TRUE(s["config"]["platform"]["content"].contains("sm"));
}

// stats.json splices the launch records, printed once by the simulation, into the rest of the
// document: the text is exactly the whole document's dump(2), and the record count is kept.
TEST(RunWorkload, LaunchRecordsAreSplicedAsTheWholeDocumentPrintsThem) {
  Fixture f(R"(kernels:
  k: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: a, launches: [{kernel: k, count: 3}]}
  - {name: b, launches: [{kernel: k}]}
)");
  RunOptions opt;
  opt.jobs = 2;
  RunStats r = run_workload_stats(f.cfg, f.w, opt);
  ASSERT_FALSE(r.kernels_text.empty());
  EXPECT_EQ(r.kernels, 4u);
  EXPECT_FALSE(r.doc.contains("kernels"));
  json whole = r.doc;
  whole["kernels"] = json::parse(r.kernels_text.str());
  ASSERT_FALSE(r.preemptions_text.empty());  // the preemption list travels likewise (here empty)
  whole["scheduling"]["preemption_list"] = json::parse(r.preemptions_text.str());
  EXPECT_EQ(whole["kernels"].size(), 4u);
  EXPECT_EQ(r.dump(), whole.dump(2));
  EXPECT_FALSE(r.doc.contains("kernels"));  // the placeholder is taken out again
}

// A list printed item by item is the text the whole document's dump(2) has after the list's key,
// at depth 1 and 2, with nested objects, escaped newlines, and empty.
TEST(JsonArrayText, PrintsAsTheWholeDocumentDumpDoes) {
  const json items = json::array({{{"a", 1}, {"tbs", json::array({{{"k", "x\ny"}}, {{"k", 2.5}}})}},
                                   {{"b", json::array()}, {"c", nullptr}},
                                   3});
  for (const json& list : {items, json::array()}) {
    for (int depth : {1, 2}) {
      JsonArrayText text(depth);
      for (const json& it : list) text.add(it);
      json doc = depth == 1 ? json{{"list", list}} : json{{"outer", {{"list", list}}}};
      const std::string whole = doc.dump(2);
      const std::string key = "\"list\": ";
      const size_t from = whole.find(key) + key.size();
      const std::string built = text.take().str();
      EXPECT_EQ(whole.substr(from, built.size()), built) << "depth " << depth;
      EXPECT_EQ(json::parse(built), list);
    }
  }
}

TEST(RunWorkload, ChildErrorsComeBackAsTheirKind) {
  Fixture f(one_kernel(1));
  f.w.kernels[0].grid = 0;  // impossible after validation: the model must not hang
  RunOptions opt;
  EXPECT_THROW(run_workload(f.cfg, f.w, opt), SimError);
}

TEST(Timeline, OneSpanPerTbAndValidJson) {
  Fixture f(one_kernel(12));
  const std::string path = (f.dir.path / "t.json").string();
  f.simulate_all(path);
  std::ifstream in(path);
  json t = json::parse(in);
  int tbs = 0, kernels = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "tb") ++tbs;
    if (e["ph"] == "X" && e["cat"] == "kernel") ++kernels;
  }
  EXPECT_EQ(tbs, 12);
  EXPECT_EQ(kernels, 1);
}

// The memory path is bound end to end: a lone read from an SM costs exactly the crossbar request
// (1 flit + latency), the L2 tag latency, the DRAM latency and burst, and the crossbar reply.
TEST(MemoryPath, LoneLoadKnownLatency) {
  Fixture f(one_kernel(1));
  Timeline none("");
  Gpu gpu("gpu", f.cfg, f.w, {0}, &none);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // completes elaboration: multi-sockets are wired then
  auto load = [&](uint64_t addr, sc_core::sc_time at) { return load_from_sm0(gpu, addr, at); };
  // DRAM: controller latency 50, ACT + tRCD 12, 4 bursts of 32 B tCCD 1 apart, CL 12, last burst 1 ns.
  const double xbar_req = 1 + 10, l2 = 20, dram = 50 + 12 + 3 + 12 + 1, xbar_reply = 5 + 10;
  EXPECT_DOUBLE_EQ(load(0, sc_core::SC_ZERO_TIME), xbar_req + l2 + dram + xbar_reply);
  EXPECT_DOUBLE_EQ(load(0, sc_core::sc_time(1000, sc_core::SC_NS)), xbar_req + l2 + xbar_reply);  // L2 hit
  EXPECT_EQ(gpu.l2_slices()[0]->hits(), 1u);
  EXPECT_EQ(gpu.l2_slices()[0]->misses(), 1u);
}

// Loosely timed callers book shared ports out of time order: a reply booked first but far ahead
// (an L2 miss waiting for DRAM) must not hold up one booked later that is due earlier (an L2 hit
// from the same SM): the ports keep their gaps.
TEST(MemoryPath, AnEarlierReplyIsNotQueuedBehindALaterOne) {
  Fixture f(one_kernel(1));
  Timeline none("");
  Gpu gpu("gpu", f.cfg, f.w, {0}, &none);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  auto load = [&](uint64_t addr, sc_core::sc_time at) { return load_from_sm0(gpu, addr, at); };
  const double hit = (1 + 10) + 20 + (5 + 10);  // crossbar request, L2 tag + hit, crossbar reply
  load(0, sc_core::SC_ZERO_TIME);                // brings line 0 into the L2
  const sc_core::sc_time t(1000, sc_core::SC_NS);
  EXPECT_GT(load(1 << 20, t), 2 * hit);  // a miss: its reply is booked well after t + hit
  // Same SM, same instant, an L2 hit: one cycle behind the miss's request flit on the SM's port,
  // but not behind its reply.
  EXPECT_DOUBLE_EQ(load(0, t), 1 + hit);
}
