// Warped-Slicer and MIAS in full runs (SPEC 5) on the tiny platform: 2 SMs of 4 TB slots, and
// warp-level kernels of 128-thread TBs (2048 registers each), so the complete two-kernel mixes
// are 1+3, 2+2 and 3+1: more mixes than SMs, profiled in two rounds.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/timeline.hpp"
#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

// mem: a stream of loads; alu: dependent FMAs. Short TBs, long grids: they outlast the runs.
std::string kernel(const std::string& name, bool memory, uint32_t grid) {
  const std::string body = memory ? "[{op: ld.global, dst: r1, src: [r2], addr: {base: 0x10000000, gtid: 4, iter: 65536}},"
                                    " {op: fma, dst: r3, src: [r1]}]"
                                  : "[{op: fma, dst: r3, src: [r3]}, {op: fma, dst: r4, src: [r4]}]";
  return "  " + name + ": {grid: " + std::to_string(grid) +
         ", threads_per_tb: 128, registers_per_thread: 16, program: {body: [{loop: " +
         (memory ? "4" : "40") + ", body: " + body + "}]}}\n";  // about 1 us and 0.4 us a TB
}

PlatformConfig tiny() {
  return load_platform(source_path("sc_tests/data/tiny.yaml"), {{"mechanisms.policies", "[fcfs, warped_slicer, mias]"}});
}

json simulate(const std::string& yaml, const std::string& timeline = "") {
  TempDir d;
  PlatformConfig cfg = tiny();
  WorkloadDesc w = load_workload(d.write("w.yaml", yaml));
  resolve_workload(cfg, w);
  SimRequest r;
  for (uint32_t i = 0; i < w.processes.size(); ++i) r.processes.push_back(i);
  r.timeline_path = timeline;
  return simulate_here(cfg, w, r);
}

std::vector<std::string> kinds(const json& sharing) {
  std::vector<std::string> k;
  for (const auto& p : sharing["phases"]) k.push_back(p["kind"]);
  return k;
}

// The SMs' dispatch rule seen in the timeline: whenever a TB of a capped kernel starts on an SM
// during a phase, that SM then holds at most the phase's cap of that kernel's TBs (counting it).
// Returns the number of TB starts checked. (Spans are written when a TB ends: TBs still running at
// the end are not seen, which can only under-count.)
size_t check_caps(const json& timeline, const json& sharing) {
  struct Span { int sm; uint32_t launch; double start, end; };
  std::vector<Span> tbs;
  for (const auto& e : timeline["traceEvents"])
    if (e.value("ph", "") == "X" && e.value("cat", "") == "tb")
      tbs.push_back({e["pid"].get<int>() - Timeline::sm_pid(0), e["args"]["launch"].get<uint32_t>(),
                     e["ts"].get<double>() * 1e3, (e["ts"].get<double>() + e["dur"].get<double>()) * 1e3});
  size_t checked = 0;
  for (const auto& ph : sharing["phases"]) {
    if (ph["kind"] == "alone") continue;
    const double from = ph["start_ns"], to = ph["end_ns"].is_null() ? 1e300 : ph["end_ns"].get<double>();
    for (const Span& t : tbs) {
      if (t.start < from || t.start >= to) continue;
      const json& mix = ph["mixes"][ph["sm_mix"][t.sm].get<size_t>()];
      size_t k = 0;
      while (ph["kernels"][k] != t.launch) ++k;
      uint32_t resident = 0;
      for (const Span& o : tbs) resident += o.sm == t.sm && o.launch == t.launch && o.start <= t.start && t.start < o.end - 0.5;  // us in the file: rounding
      EXPECT_LE(resident, mix[k].get<uint32_t>()) << "SM " << t.sm << " launch " << t.launch << " at " << t.start;
      ++checked;
    }
  }
  return checked;
}

}  // namespace

// Both kernels arrive at 0: two profiling rounds of 2000 cycles (1+3 beside 2+2, then 3+1 on
// both SMs), then the winner in every SM's TB-mix register, as the SMs hold it at the end.
TEST(TbMix, MiasBroadcastReachesEverySm) {
  TempDir d;
  const std::string tl = (d.path / "t.json").string();
  const json r = simulate("policy: mias\nsharing: {model: ipc, window_cycles: 2000}\nstop_at_cycles: 12000\nkernels:\n" +
                              kernel("mem", true, 400) + kernel("alu", false, 400) +
                              "processes:\n  - {name: pm, launches: [{kernel: mem}]}\n"
                              "  - {name: pa, launches: [{kernel: alu}]}\n",
                          tl);
  ASSERT_EQ(r["status"], "stopped_at") << r.dump();
  const json& sh = r["scheduling"]["sharing"];
  EXPECT_EQ(sh["scheme"], "mias");
  EXPECT_EQ(kinds(sh), (std::vector<std::string>{"profile", "profile", "share"}));
  EXPECT_EQ(sh["phases"][0]["mixes"], json::parse("[[1, 3], [2, 2]]"));
  EXPECT_EQ(sh["phases"][1]["mixes"], json::parse("[[3, 1]]"));
  const double window = sh["phases"][0]["end_ns"].get<double>() - sh["phases"][0]["start_ns"].get<double>();
  EXPECT_NEAR(window, 2000, 3);  // tiny: 1 GHz
  EXPECT_NEAR(sh["phases"][0]["counters"][0]["cycles"].get<double>(), 2000, 2);
  ASSERT_EQ(sh["decisions"].size(), 1u);
  const json& dec = sh["decisions"][0];
  ASSERT_EQ(dec["candidates"].size(), 3u);
  // The pick is the best-scoring candidate (the scores come from the SMs' counters).
  size_t best = 0;
  for (size_t i = 1; i < 3; ++i)
    if (dec["candidates"][i]["score"].get<double>() > dec["candidates"][best]["score"].get<double>()) best = i;
  EXPECT_EQ(dec["mix"], dec["candidates"][best]["mix"]);
  const auto& ks = dec["kernels"];
  for (const auto& sm : r["sms"]) {
    ASSERT_EQ(sm["tb_mix"].size(), 2u);
    for (size_t k = 0; k < 2; ++k) {
      EXPECT_EQ(sm["tb_mix"][k]["launch"], ks[k]);
      EXPECT_EQ(sm["tb_mix"][k]["max_tbs"], dec["mix"][k]);
    }
  }
  EXPECT_EQ(r["scheduling"]["peak_kernels_per_sm"], 2);
  std::ifstream in(tl);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("\"profile round 2/2\""), std::string::npos);
  EXPECT_NE(text.str().find("\"share "), std::string::npos);
  EXPECT_GT(check_caps(json::parse(text.str()), sh), 50u);
}

// A kernel arriving starts profiling over; one that issued its last TB leaves the mix. mem runs
// alone, alu arrives at 3 us (profiling, a decision), alu's 24 TBs are all issued (mem alone
// again), then alu2 arrives at 30 us: a second decision, for mem and alu2.
TEST(TbMix, MiasDecidesAgainOnArrivalAndDeparture) {
  TempDir d;
  const std::string tl = (d.path / "t.json").string();
  const json r = simulate("policy: mias\nsharing: {model: ipm_ipc, window_cycles: 1500}\nstop_at_cycles: 40000\nkernels:\n" +
                          kernel("mem", true, 4000) + kernel("alu", false, 24) + kernel("alu2", false, 4000) +
                          "processes:\n  - {name: pm, launches: [{kernel: mem}]}\n"
                          "  - {name: pa, arrival_us: 3, launches: [{kernel: alu}]}\n"
                          "  - {name: pb, arrival_us: 30, launches: [{kernel: alu2}]}\n",
                          tl);
  ASSERT_EQ(r["status"], "stopped_at") << r.dump();
  const json& sh = r["scheduling"]["sharing"];
  const auto k = kinds(sh);
  ASSERT_GE(k.size(), 5u) << sh.dump();
  EXPECT_EQ(k[0], "alone");
  EXPECT_EQ(k[1], "profile");
  ASSERT_EQ(sh["decisions"].size(), 2u) << sh.dump();
  const json& d0 = sh["decisions"][0];
  const json& d1 = sh["decisions"][1];
  EXPECT_EQ(d0["kernels"].size(), 2u);
  EXPECT_NE(d0["kernels"][1], d1["kernels"][1]);  // alu, then alu2
  EXPECT_GE(sh["phases"][1]["start_ns"].get<double>(), 3000);
  EXPECT_GE(d1["at_ns"].get<double>(), 30000 + 2 * 1500);  // two rounds after alu2 arrived
  // Between the two: mem alone again once alu had issued all its TBs.
  bool alone_between = false;
  for (const auto& p : sh["phases"])
    alone_between |= p["kind"] == "alone" && p["start_ns"].get<double>() > d0["at_ns"].get<double>() &&
                     p["start_ns"].get<double>() < 30000;
  EXPECT_TRUE(alone_between) << sh.dump();
  // Caps hold for every TB started under them, also while TBs of the previous mix still finish.
  std::ifstream in(tl);
  EXPECT_GT(check_caps(json::parse(in), sh), 20u);
}

// Warped-Slicer profiles each kernel alone at 1..4 TBs (8 mixes, 4 rounds on 2 SMs) and
// decides from the IPC profiles it measured.
TEST(TbMix, WarpedSlicerProfilesEachKernelAlone) {
  const json r = simulate("policy: warped_slicer\nsharing: {window_cycles: 1500}\nstop_at_cycles: 12000\nkernels:\n" +
                          kernel("mem", true, 400) + kernel("alu", false, 400) +
                          "processes:\n  - {name: pm, launches: [{kernel: mem}]}\n"
                          "  - {name: pa, launches: [{kernel: alu}]}\n");
  const json& sh = r["scheduling"]["sharing"];
  EXPECT_EQ(sh["scheme"], "warped_slicer");
  EXPECT_EQ(kinds(sh).size(), 5u);  // four rounds, then share or spatial
  EXPECT_EQ(sh["phases"][0]["mixes"], json::parse("[[1, 0], [2, 0]]"));
  EXPECT_EQ(sh["phases"][3]["mixes"], json::parse("[[0, 3], [0, 4]]"));
  const json& dec = sh["decisions"].at(0);
  ASSERT_EQ(dec["ipc_by_tbs"].size(), 2u);
  EXPECT_EQ(dec["ipc_by_tbs"][0].size(), 4u);
  // The IPC each SM measured is what the profile holds.
  const json& c0 = sh["phases"][0]["counters"][1];  // SM 1 ran mem at 2 TBs
  EXPECT_DOUBLE_EQ(dec["ipc_by_tbs"][0][1].get<double>(), c0["ipc"].get<double>());
  EXPECT_EQ(kinds(sh).back(), dec["spatial"].get<bool>() ? "spatial" : "share");
}

// Bad input: located at the key, exit 2.
TEST(TbMix, BadSharingInputIsLocated) {
  TempDir d;
  const std::string plat = " --platform " + source_path("platforms/rtx2060.yaml");
  const std::string k = "kernels:\n" + kernel("mem", true, 40) + "processes:\n  - {name: p, launches: [{kernel: mem}]}\n";
  auto r = run_mpgpu("validate" + plat + " --workload " + d.write("a.yaml", "policy: mias\nsharing: {model: ipcx}\n" + k));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("a.yaml:2:18"), std::string::npos) << r.output;
  r = run_mpgpu("validate" + plat + " --workload " + d.write("b.yaml", "policy: mias\nsharing: {window_cycles: 0}\n" + k));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("b.yaml:2:26"), std::string::npos) << r.output;
  r = run_mpgpu("validate" + plat + " --workload " +
                d.write("c.yaml", "policy: warped_slicer\nkernels:\n  t: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: "
                                  "{kind: fixed, mean_cycles: 100}}\nprocesses:\n  - {name: p, launches: [{kernel: t}]}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("c.yaml:3:6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs warp-level kernels"), std::string::npos) << r.output;
  r = run_mpgpu("validate" + plat + " --workload " + d.write("e.yaml", "policy: warped_slicer\nsharing: {model: ipc}\n" + k));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("e.yaml:2:18"), std::string::npos) << r.output;
}
