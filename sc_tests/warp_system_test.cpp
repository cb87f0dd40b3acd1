// Warp-level runs through the whole modelled hierarchy (SM pipeline, L1D, crossbar, L2 slices,
// DRAM) on the tiny platform (every clock 1 ns), with answers computed from its parameters.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

// tiny.yaml, written out so every known answer below names where its numbers come from.
constexpr double kL1 = 35;                           // sm.l1d.latency_cycles: paid by hits only
constexpr double kXbarReq = 1 + 10;                  // 8 B header = 1 flit + latency 10
constexpr double kXbarReply = 5 + 10;                // 128 B + 8 B header = 5 flits of 32 B + latency 10
constexpr double kL2 = 20;                           // l2.hit_latency_cycles (tag port free)
constexpr double kDram = 50 + 12 + (4 - 1) * 1 + 12 + 1;  // latency + tRCD + 3 more bursts (tCCD 1) + CL + 1 burst

// One kernel, one process: `program` is the YAML body list (indented for `body:`).
std::string warp_kernel(const std::string& body, int grid = 1, int threads = 32, int regs = 8) {
  return "kernels:\n  k:\n    grid: " + std::to_string(grid) + "\n    threads_per_tb: " + std::to_string(threads) +
         "\n    registers_per_thread: " + std::to_string(regs) + "\n    program:\n      body:\n" + body +
         "processes:\n  - name: p\n    launches: [{kernel: k}]\n";
}

json simulate(const std::string& workload, std::vector<std::pair<std::string, std::string>> sets = {}) {
  TempDir dir;
  PlatformConfig cfg = load_platform(source_path("sc_tests/data/tiny.yaml"), sets);
  WorkloadDesc w = load_workload(dir.write("w.yaml", workload), sets);
  resolve_workload(cfg, w);
  SimRequest r;
  r.processes = {0};
  return simulate_here(cfg, w, r);
}

double kernel_cycles(const json& r, int k = 0) {
  const json& kj = r["kernels"][k];
  return kj["end_ns"].get<double>() - kj["start_ns"].get<double>();  // 1 ns = 1 cycle
}

json run_cli(const std::string& args, const TempDir& dir, int expect_exit = 0) {
  auto res = run_mpgpu(args + " --out " + dir.path.string());
  EXPECT_EQ(res.exit_code, expect_exit) << res.output;
  std::ifstream in(dir.path / "stats.json");
  return in ? json::parse(in) : json();
}

}  // namespace

TEST(MemoryHierarchy, LoneLoadCostsL1MissCrossbarL2MissDram) {
  // One warp, all lanes on one line: the TB ends when the line is back in the register file.
  // The miss leaves the SM at its tag check (no L1 hit latency): 11 + 20 + 78 + 15 = 124.
  json r = simulate(warp_kernel("        - {op: ld.global, dst: r1, addr: {base: 4096}}\n"));
  EXPECT_DOUBLE_EQ(kernel_cycles(r), kXbarReq + kL2 + kDram + kXbarReply);
  EXPECT_EQ(r["memory"]["l2_misses"], 1);
  EXPECT_EQ(r["memory"]["dram_reads"], 1);
  EXPECT_EQ(r["kernels"][0]["warp_level"]["l1"]["misses"], 1);
}

TEST(MemoryHierarchy, SecondLoadOfTheLineHitsInL1) {
  // The second load waits for r1 (a dependent address), then hits the filled line: the miss
  // (124, no L1 latency) then one hit latency: 124 + 35 = 159.
  json r = simulate(warp_kernel("        - {op: ld.global, dst: r1, addr: {base: 4096}}\n"
                                "        - {op: ld.global, dst: r2, src: [r1], addr: {base: 4096}}\n"));
  EXPECT_DOUBLE_EQ(kernel_cycles(r), kXbarReq + kL2 + kDram + kXbarReply + kL1);
  EXPECT_EQ(r["kernels"][0]["warp_level"]["l1"]["hits"], 1);
}

TEST(MemoryHierarchy, WithL1BypassTheSecondLoadHitsInL2) {
  json r = simulate(warp_kernel("        - {op: ld.global, dst: r1, addr: {base: 4096}}\n"
                                "        - {op: ld.global, dst: r2, src: [r1], addr: {base: 4096}}\n"),
                    {{"sm.l1d.bypass_global_loads", "true"}});
  // Bypassed loads leave at their tag check (no L1 latency): an L2 miss 124, then an L2 hit
  // 11 + 20 + 15 = 46: 170.
  EXPECT_DOUBLE_EQ(kernel_cycles(r), kXbarReq + kL2 + kDram + kXbarReply + (kXbarReq + kL2 + kXbarReply));
  EXPECT_EQ(r["memory"]["l2_hits"], 1);
  EXPECT_EQ(r["memory"]["l2_misses"], 1);
}

TEST(MemoryHierarchy, StreamingSmsSaturateThePeakBandwidth) {
  // 8 SMs, one 512-thread TB each, every TB streaming its own 128 KiB with 4 independent loads
  // per iteration. With 16 banks of 64 KiB rows each TB's region is one row of its own bank, so
  // after the first activation every access is a row hit and the data bus is the bottleneck
  // (an L2 large enough that its sets never run out of ways for lines in flight).
  const std::string body =
      "        - loop: 16\n          body:\n"
      "            - {op: ld.global, dst: r1, addr: {base: 0, tid: 4, tb: 131072, iter: 8192}}\n"
      "            - {op: ld.global, dst: r2, addr: {base: 2048, tid: 4, tb: 131072, iter: 8192}}\n"
      "            - {op: ld.global, dst: r3, addr: {base: 4096, tid: 4, tb: 131072, iter: 8192}}\n"
      "            - {op: ld.global, dst: r4, addr: {base: 6144, tid: 4, tb: 131072, iter: 8192}}\n"
      "            - {op: sp, dst: r5, src: [r1, r2]}\n"
      "            - {op: sp, dst: r6, src: [r3, r4]}\n";
  json r = simulate(warp_kernel(body, 8, 512, 8),
                    {{"sm.count", "8"}, {"l2.mshrs", "64"}, {"l2.sets", "64"}, {"l2.ways", "8"}, {"dram.banks", "16"}, {"dram.row_bytes", "65536"}});
  const double peak = r["memory"]["dram_peak_gbps"].get<double>();  // 8 B x 4 transfers x 1 GHz = 32 GB/s
  ASSERT_DOUBLE_EQ(peak, 32.0);
  const double bytes = r["memory"]["dram_bytes"].get<double>();
  EXPECT_DOUBLE_EQ(bytes, 8.0 * 512 * 4 * 4 * 16);
  EXPECT_GT(r["memory"]["dram_row_hit_rate"].get<double>(), 0.99);
  const double achieved = bytes / kernel_cycles(r);  // B/ns = GB/s
  EXPECT_GT(achieved, 0.95 * peak) << "achieved " << achieved << " GB/s";
  EXPECT_LE(achieved, peak * 1.0001);
}

TEST(MemoryHierarchy, WorkingSetSmallerThanL2HitsAfterWarmUp) {
  // 8 lines (1 KiB, the L2 holds 2 KiB) read over and over with the L1 bypassed: only the first
  // touch of each line misses.
  const std::string body =
      "        - loop: 40\n          body:\n"
      "            - {op: ld.global, dst: r1, addr: {base: 0, lane: 4, iter: 128, wrap: 1024}}\n"
      "            - {op: sp, dst: r2, src: [r1]}\n";
  json r = simulate(warp_kernel(body), {{"sm.l1d.bypass_global_loads", "true"}});
  EXPECT_EQ(r["memory"]["l2_misses"], 8);
  EXPECT_EQ(r["memory"]["l2_hits"], 40 - 8);
}

TEST(WarpSchedulers, QawsShortensTheHighBudgetKernelAndGtoShowsTheInversion) {
  // Two processes run the same compute-bound kernel on one SM with one scheduler; K1 (budget 1)
  // is launched first, so its warps are older; K2 (budget 4) arrives 50 ns later.
  const std::string kernel =
      "    grid: 2\n    threads_per_tb: 128\n    registers_per_thread: 8\n    program:\n      body:\n"
      "        - loop: 200\n          body:\n"
      "            - {op: fma, dst: r1, src: [r1]}\n            - {op: fma, dst: r2, src: [r2]}\n";
  const std::string w = "kernels:\n  k1:\n    qos_budget: 1\n" + kernel + "  k2:\n    qos_budget: 4\n" + kernel +
                        "processes:\n  - name: p1\n    launches: [{kernel: k1}]\n"
                        "  - name: p2\n    arrival_us: 0.05\n    launches: [{kernel: k2}]\n";
  TempDir dir;
  const std::string wf = dir.write("w.yaml", w);
  const std::string base = "run --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " + wf +
                           " --set sm.count=1 --set sm.warp_schedulers=1 --tsp " +
                           dir.write("tsp.json", R"({"p1": 1000, "p2": 1000})");
  auto response = [](const json& s, int k) {
    return s["kernels"][k]["end_ns"].get<double>() - s["kernels"][k]["launch_ns"].get<double>();
  };
  TempDir gto_dir, qaws_dir;
  json gto = run_cli(base + " --set sm.warp_scheduler=gto", gto_dir);
  json qaws = run_cli(base + " --set sm.warp_scheduler=qaws", qaws_dir);
  ASSERT_EQ(gto["kernels"].size(), 2u);
  ASSERT_EQ(qaws["kernels"].size(), 2u);
  // GTO: the older, low-QoS kernel finishes first (priority inversion).
  EXPECT_LT(gto["kernels"][0]["end_ns"].get<double>(), gto["kernels"][1]["end_ns"].get<double>());
  // QAWS: K2's response time drops well below its GTO response time.
  EXPECT_LT(response(qaws, 1), 0.8 * response(gto, 1))
      << "K2 response: qaws " << response(qaws, 1) << " ns, gto " << response(gto, 1) << " ns";
}

TEST(WarpStats, RunsAreDeterministic) {
  TempDir dir, a, b;
  const std::string args = "run --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " +
                           dir.write("w.yaml", warp_kernel("        - loop: 8\n          body:\n"
                                                           "            - {op: ld.global, dst: r1, addr: {random: {base: 0, bytes: 65536}}}\n"
                                                           "            - {op: fma, dst: r2, src: [r1, r2]}\n"
                                                           "            - {op: st.global, src: [r2], addr: {base: 0x100000, gtid: 4, iter: 8192}}\n",
                                                           16, 256, 8));
  json x = run_cli(args, a), y = run_cli(args, b);
  ASSERT_FALSE(x.is_null());
  EXPECT_GT(x["warp_instructions"].get<uint64_t>(), 0u);
  x.erase("host");
  y.erase("host");
  x["config"].erase("workload");  // names the temp file
  y["config"].erase("workload");
  EXPECT_EQ(x.dump(), y.dump());
}

TEST(Trace, SampleRunsOnGtx1080WithTheExactInstructionCount) {
  TempDir out;
  json s = run_cli("run --platform " + source_path("platforms/gtx1080.yaml") + " --trace " +
                       source_path("../shared/traces/vectoradd-100-32/kernelslist.g"),
                   out);
  ASSERT_EQ(s["kernels"].size(), 1u);
  EXPECT_EQ(s["warp_instructions"], 344);  // the sample's instruction lines (see trace_test.cpp)
  EXPECT_EQ(s["kernels"][0]["warp_level"]["trace_instructions"], 344);
  EXPECT_EQ(s["kernels"][0]["warp_level"]["thread_instructions"], 10516);  // Accel-Sim's gpu_sim_insn
  EXPECT_EQ(s["model"]["fidelity"], "warp");
}

TEST(Trace, BadInputsExitWithCode2AndNoStats) {
  TempDir dir, out;
  const std::string traceg = dir.write("kernel-1.traceg",
                                       "-kernel name = k\n-kernel id = 1\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
                                       "-shmem = 0\n-nregs = 8\n-accelsim tracer version = 4\n\n#BEGIN_TB\n\n"
                                       "thread block = 0,0,0\n\nwarp = 0\ninsts = 1\n0000 ffffffff 0 FROBNICATE 0 0 \n\n#END_TB\n");
  const std::string list = dir.write("kernelslist.g", "kernel-1.traceg\n");
  auto r = run_mpgpu("run --platform " + source_path("platforms/gtx1080.yaml") + " --trace " + list + " --out " +
                     out.path.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("FROBNICATE"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("kernel-1.traceg:15"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out.path / "stats.json"));
  auto both = run_mpgpu("run --platform " + source_path("platforms/gtx1080.yaml") + " --trace " + list +
                        " --workload " + source_path("configs/warp/compute_bound.yaml"));
  EXPECT_EQ(both.exit_code, 2) << both.output;
  EXPECT_NE(both.output.find("exactly one of --workload"), std::string::npos) << both.output;
}

TEST(WarpProgramConfig, ErrorsNameFileLineAndKey) {
  TempDir dir;
  const std::string wf = dir.write("w.yaml", warp_kernel("        - {op: ld.global, dst: r9, addr: {base: 0}}\n"));
  auto r = run_mpgpu("validate --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " + wf);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("w.yaml:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("uses r9"), std::string::npos) << r.output;
}

TEST(WarpExamples, ValidateOnTheWarpLevelPlatforms) {
  for (const char* platform : {"gtx1080", "titanv", "rtx2060", "gtx480", "k20c", "sixteen_sm"})
    for (const char* w : {"compute_bound", "memory_bound", "vectoradd_trace"}) {
      auto r = run_mpgpu(std::string("validate --platform ") + source_path(std::string("platforms/") + platform + ".yaml") +
                         " --workload " + source_path(std::string("configs/warp/") + w + ".yaml"));
      EXPECT_EQ(r.exit_code, 0) << platform << " " << w << ": " << r.output;
    }
}

TEST(WarpContextSwitch, PreemptedWarpsResumeWhereTheyStoppedWithoutLosingWork) {
  // PPQ (exclusive) with context switch: the high-priority kernel takes an SM from the low one,
  // whose TBs (mid-loop, some warps waiting at a barrier) are saved and later restored.
  TempDir dir, out;
  const std::string w = dir.write("w.yaml", R"(policy: ppq_exclusive
preemption: context_switch
kernels:
  low:
    grid: 8
    threads_per_tb: 128
    registers_per_thread: 8
    program:
      body:
        - loop: 300
          body:
            - {op: ld.global, dst: r1, addr: {base: 0, gtid: 4, iter: 4096}}
            - {op: fma, dst: r2, src: [r1, r2]}
            - {op: bar}
  high:
    grid: 2
    threads_per_tb: 128
    registers_per_thread: 8
    program:
      body:
        - loop: 50
          body:
            - {op: fma, dst: r2, src: [r2]}
processes:
  - {name: lo, launches: [{kernel: low}]}
  - {name: hi, priority: 1, arrival_us: 2, launches: [{kernel: high}]}
)");
  json s = run_cli("run --platform " + source_path("sc_tests/data/tiny.yaml") +
                       " --set mechanisms.policies=[fcfs,ppq_exclusive] --set mechanisms.preemption=[context_switch,draining]"
                       " --workload " + w + " --tsp " + dir.write("tsp.json", R"({"lo": 1000, "hi": 1000})"),
                   out);
  ASSERT_EQ(s["kernels"].size(), 2u);
  const auto& sch = s["scheduling"];
  ASSERT_GE(sch["tbs_saved"].get<int>(), 1);
  EXPECT_EQ(sch["tbs_saved"], sch["tbs_restored"]);
  // Context per TB: 128 threads x 8 registers x 4 B + 64 B of TB state.
  EXPECT_EQ(sch["bytes_saved"].get<uint64_t>(), sch["tbs_saved"].get<uint64_t>() * (128 * 8 * 4 + 64));
  EXPECT_EQ(sch["bytes_restored"], sch["bytes_saved"]);
  // Every instruction ran exactly once: 8 TBs x 4 warps x 300 x (3 + back-edge), 2 x 4 x 50 x 2.
  EXPECT_EQ(s["kernels"][0]["warp_level"]["warp_instructions"], 8 * 4 * 300 * 4);
  EXPECT_EQ(s["kernels"][1]["warp_level"]["warp_instructions"], 2 * 4 * 50 * 2);
  EXPECT_TRUE(s["kernels"][0]["completed"].get<bool>());
  // The high-priority kernel ends long before the low one it preempted.
  EXPECT_LT(s["kernels"][1]["end_ns"].get<double>(), s["kernels"][0]["end_ns"].get<double>());
}

TEST(MemoryHierarchy, OneL2MshrSerializesTwoMissesOfOneSlice) {
  // Two independent loads to two lines of slice 0 (interleave 256 B over 2 slices): with one
  // MSHR the second miss waits for the first fill; with eight both go to DRAM together.
  TempDir dir, one, eight;
  const std::string w = dir.write("w.yaml", warp_kernel("        - {op: ld.global, dst: r1, addr: {base: 0}}\n"
                                                        "        - {op: ld.global, dst: r2, addr: {base: 512}}\n"));
  const std::string base = "run --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " + w;
  json a = run_cli(base + " --set l2.mshrs=1", one), b = run_cli(base + " --set l2.mshrs=8", eight);
  EXPECT_EQ(a["memory"]["l2_mshr_full_waits"], 1);
  EXPECT_EQ(b["memory"]["l2_mshr_full_waits"], 0);
  // The second fill cannot start before the first ends: at least one more DRAM access.
  EXPECT_GE(kernel_cycles(a) - kernel_cycles(b), kDram - 50 - 1);
}

TEST(MemoryHierarchy, L2LatencyCountsInTheNamedClock) {
  // The L2 at 500 MHz (2 ns), everything else at 1 GHz. A lone load: request 11 ns -> the L2's tag
  // port takes it at its next edge, 12 ns; then the hit latency, 20 L2 cycles = 40 ns by default
  // (ready 52) or 20 core cycles = 20 ns with latency_clock core (ready 32); DRAM 78 ns; reply 15.
  // Default: 12 + 40 + 78 + 15 = 145; core: 12 + 20 + 78 + 15 = 125: 20 ns = 20 x (2 - 1) ns less.
  // (Two simulations: each in its own `mpgpu run`, one sc_start per test process.)
  TempDir dir, a, b;
  const std::string base = "run --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " +
                           dir.write("w.yaml", warp_kernel("        - {op: ld.global, dst: r1, addr: {base: 4096}}\n")) +
                           " --set clocks_mhz.l2=500";
  json own = run_cli(base, a), core = run_cli(base + " --set l2.latency_clock=core", b);
  EXPECT_DOUBLE_EQ(kernel_cycles(own), 12 + 2 * kL2 + kDram + kXbarReply);
  EXPECT_DOUBLE_EQ(kernel_cycles(core), 12 + kL2 + kDram + kXbarReply);
  EXPECT_DOUBLE_EQ(kernel_cycles(own) - kernel_cycles(core), 20);
  EXPECT_EQ(core["memory"]["dram_reads"], 1);
}

TEST(MemoryHierarchy, FetchOnWriteAcknowledgesAStoreMissAtTheFill) {
  // One full-line store (128 B), the TB's only instruction: the TB ends at its acknowledgement.
  // Request: 128 B + 8 B header = 5 flits + 10 = 15; ack reply: 8 B header = 1 flit + 10 = 11.
  constexpr double kStoreReq = 5 + 10, kAck = 1 + 10;
  TempDir dir, a, b;
  const std::string base =
      "run --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " +
      dir.write("w.yaml", warp_kernel("        - {op: st.global, src: [r1], addr: {base: 4096, lane: 4}}\n"));
  json alloc = run_cli(base, a), fetch = run_cli(base + " --set l2.write_miss=fetch_write_through", b);
  // allocate_no_fetch: acknowledged after the L2 tag check: 15 + 20 + 11 = 46.
  EXPECT_DOUBLE_EQ(kernel_cycles(alloc), kStoreReq + kL2 + kAck);
  EXPECT_EQ(alloc["memory"]["dram_reads"], 0);
  // fetch_write_through: the bytes are written to DRAM and the line read, both arriving at the
  // controller at a = ready + 50. The write opens the row (ACT a) and takes the column commands
  // a+12..a+15; the read, a row hit, follows on the command bus at a+16..a+19 and completes at
  // a+19 + CL 12 + 1 burst = a+32: a DRAM round trip of 50 + 32 = 82 (the lone read's 78 plus
  // the 4 write bursts ahead of it). Ack: 15 + 20 + 82 + 11 = 128.
  EXPECT_DOUBLE_EQ(kernel_cycles(fetch), kStoreReq + kL2 + (kDram + 4) + kAck);
  EXPECT_EQ(fetch["memory"]["dram_reads"], 1);
  EXPECT_EQ(fetch["memory"]["dram_writes"], 1);
}

TEST(WarpStats, ARunBoundedByMaxSimTimeEndsWithItsLastProcess) {
  // The bound (1 ms) is far beyond the work: the run still ends, and reports its end, when the
  // last process finishes.
  json r = simulate(warp_kernel("        - {op: ld.global, dst: r1, addr: {base: 4096}}\n"),
                    {{"workload.max_sim_time_us", "1000"}});
  EXPECT_DOUBLE_EQ(r["sim"]["time_ns"].get<double>(), r["kernels"][0]["end_ns"].get<double>());
}
