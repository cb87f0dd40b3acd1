// Every platform file validates and runs the bundled default workload end to end through the
// command line, writing stats.json with the documented keys and a loadable timeline.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

class PlatformRun : public ::testing::TestWithParam<std::string> {};

TEST_P(PlatformRun, DefaultWorkloadEndToEnd) {
  TempDir d;
  const std::string platform = source_path("platforms/" + GetParam() + ".yaml");
  const std::string workload = source_path("configs/default.yaml");
  auto v = run_mpgpu("validate --platform " + platform + " --workload " + workload);
  ASSERT_EQ(v.exit_code, 0) << v.output;
  const std::string out = (d.path / "out").string(), tl = (d.path / "tl.json").string();
  auto r = run_mpgpu("run --platform " + platform + " --workload " + workload + " --out " + out + " --timeline " + tl);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ANTT"), std::string::npos);
  std::ifstream in(out + "/stats.json");
  json s = json::parse(in);
  EXPECT_GT(s["sim"]["cycles"].get<uint64_t>(), 0u);
  EXPECT_GT(s["sim"]["time_ns"].get<double>(), 0.0);
  EXPECT_GE(s["host"]["seconds"].get<double>(), 0.0);
  ASSERT_EQ(s["processes"].size(), 4u);
  for (const auto& p : s["processes"]) {
    EXPECT_GE(p["NTT"].get<double>(), 1.0 - 1e-9) << p["name"];  // sharing never speeds a process up here
    EXPECT_GT(p["T_SP"].get<double>(), 0.0);
  }
  for (const auto& k : s["kernels"]) {
    EXPECT_TRUE(k["completed"].get<bool>());
    EXPECT_LE(k["launch_ns"].get<double>(), k["start_ns"].get<double>());
    EXPECT_LT(k["start_ns"].get<double>(), k["end_ns"].get<double>());
  }
  EXPECT_GT(s["metrics"]["stp"].get<double>(), 0.0);
  EXPECT_LE(s["metrics"]["fairness"].get<double>(), 1.0);
  EXPECT_EQ(s["config"]["platform"]["content"]["name"], GetParam());
  std::ifstream t(tl);
  json timeline = json::parse(t);
  EXPECT_GT(timeline["traceEvents"].size(), s["tbs_done"].get<size_t>());
  // Every extension of SPEC is sized for this platform.
  auto rep = run_mpgpu("report --platform " + platform + " --format json");
  ASSERT_EQ(rep.exit_code, 0) << rep.output;
  json ext = json::parse(rep.output)["extensions"];
  EXPECT_EQ(ext.size(), 14u);
  for (const auto& x : ext) {
    EXPECT_GT(x["bytes_total"].get<double>(), 0.0) << x["name"];
    EXPECT_GT(x["bits_per_entry"].get<int>(), 0) << x["name"];
  }
}

INSTANTIATE_TEST_SUITE_P(AllPlatforms, PlatformRun,
                         ::testing::Values("k20c", "gtx480", "sixteen_sm", "rtx2060", "gtx1080", "titanv"));

TEST(Report, JsonShapeForParboilOnK20c) {
  auto r = run_mpgpu("report --platform " + source_path("platforms/k20c.yaml") + " --workload " +
                     source_path("configs/parboil/parboil.yaml") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  json j = json::parse(r.output);
  ASSERT_EQ(j["kernels"].size(), 24u);
  for (const auto& k : j["kernels"])
    for (const char* key : {"name", "tbs_per_sm", "limiting_resource", "storage_fraction", "context_save_us"})
      EXPECT_TRUE(k.contains(key)) << key;
}

TEST(Determinism, SameInputsGiveIdenticalStatsApartFromHostTime) {
  TempDir d;
  const std::string args = "run --platform " + source_path("platforms/k20c.yaml") + " --workload " +
                           source_path("configs/default.yaml") + " --out ";
  ASSERT_EQ(run_mpgpu(args + (d.path / "a").string()).exit_code, 0);
  ASSERT_EQ(run_mpgpu(args + (d.path / "b").string() + " --jobs 1").exit_code, 0);
  std::ifstream a((d.path / "a/stats.json").string()), b((d.path / "b/stats.json").string());
  json ja = json::parse(a), jb = json::parse(b);
  ja.erase("host");
  jb.erase("host");
  EXPECT_EQ(ja, jb);
}
