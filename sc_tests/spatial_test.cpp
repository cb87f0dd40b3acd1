// Spatial multitasking (SPEC 5's baseline): disjoint SM sets per kernel, split evenly, on the
// tiny platform (2 SMs at 1 GHz; 4 TBs of 2048 registers fill an SM).
#include <gtest/gtest.h>

#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

// a: 8 TBs, b: 4 TBs, both of 1000 cycles, both arriving at 0.
json simulate(const std::string& policy) {
  TempDir d;
  PlatformConfig cfg = load_platform(source_path("sc_tests/data/tiny.yaml"), {{"mechanisms.policies", "[fcfs, spatial]"}});
  WorkloadDesc w = load_workload(d.write("w.yaml", "policy: " + policy + "\n" + (policy == "fcfs" ? "" : "preemption: draining\n") +
      "kernels:\n"
      "  a: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 1000}}\n"
      "  b: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 1000}}\n"
      "processes:\n  - {name: pa, launches: [{kernel: a}]}\n  - {name: pb, launches: [{kernel: b}]}\n"));
  resolve_workload(cfg, w);
  SimRequest r;
  r.processes = {0, 1};
  return simulate_here(cfg, w, r);
}

double end_of(const json& r, const std::string& kernel) {
  for (const auto& k : r["kernels"])
    if (k["name"] == kernel) return k["end_ns"];
  return -1;
}

}  // namespace

// Under FCFS a takes both SMs (one wave of 8) and b waits for it: a ends near 1 us, b near 2 us.
TEST(Spatial, FcfsBaselineGivesTheFirstKernelEverySm) {
  const json f = simulate("fcfs");
  EXPECT_NEAR(end_of(f, "a"), 1000, 30);
  EXPECT_NEAR(end_of(f, "b"), 2000, 60);
}

// Spatially each kernel has one SM: a runs two waves (about 2 us), b one (about 1 us), and no
// SM ever holds both kernels.
TEST(Spatial, EachKernelRunsOnItsOwnHalfOfTheSms) {
  const json s = simulate("spatial");
  EXPECT_NEAR(end_of(s, "a"), 2000, 60);
  EXPECT_NEAR(end_of(s, "b"), 1000, 30);
  EXPECT_EQ(s["scheduling"]["policy"], "spatial");
  EXPECT_EQ(s["scheduling"]["peak_kernels_per_sm"], 1);
  for (const auto& sm : s["sms"]) EXPECT_GT(sm["tbs"].get<int>(), 0);
}
