// The same inputs give the same stats.json, byte for byte, whatever --jobs is: the isolated runs
// for T_SP are forked simulations, and their order of completion must not leak into the results.
// Only "host" (wall-clock seconds of this machine) may differ.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.hpp"

using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;

namespace {

// stats.json of one run with `jobs` parallel simulations, "host" removed (into *host when given),
// as canonical text. `env`: assignments put before the command.
std::string stats_without_host(const std::string& inputs, unsigned jobs, const TempDir& dir, const std::string& name,
                               const std::string& env = "", nlohmann::json* host = nullptr) {
  const std::string out = (dir.path / name).string();
  const auto r = mpgpu::test::run_command(env + " " + std::string(MPGPU_BINARY) + " run " + inputs + " --jobs " +
                                          std::to_string(jobs) + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(out + "/stats.json");
  auto stats = nlohmann::json::parse(f, nullptr, false);
  EXPECT_FALSE(stats.is_discarded()) << out << "/stats.json is missing or not JSON";
  if (stats.is_discarded()) return {};
  EXPECT_TRUE(stats.contains("host")) << "no \"host\" key: the comparison below would hide nothing";
  if (host) *host = stats["host"];
  stats.erase("host");
  return stats.dump(1);
}

void expect_same_stats(const std::string& inputs) {
  TempDir dir;
  const std::string one = stats_without_host(inputs, 1, dir, "jobs1");
  const std::string two = stats_without_host(inputs, 2, dir, "jobs2");
  const std::string again = stats_without_host(inputs, 2, dir, "jobs2_again");
  ASSERT_FALSE(one.empty());
  // EXPECT_EQ on two large strings prints a line diff, which is what a reader needs here.
  EXPECT_EQ(one, two) << "--jobs 1 and --jobs 2 differ for: " << inputs;
  EXPECT_EQ(two, again) << "two --jobs 2 runs differ for: " << inputs;
}

}  // namespace

// TB level: four Parboil processes, each also simulated alone for T_SP.
TEST(Determinism, TbLevelStatsDoNotDependOnJobs) {
  expect_same_stats("--platform " + source_path("platforms/k20c.yaml") + " --workload " +
                    source_path("configs/default.yaml"));
}

// Warp level: pipelines, caches, crossbar and DRAM all feed the statistics.
TEST(Determinism, WarpLevelStatsDoNotDependOnJobs) {
  expect_same_stats("--platform " + source_path("platforms/gtx1080.yaml") + " --workload " +
                    source_path("configs/warp/compute_bound.yaml"));
}

// Trace replay: the first run parses the text trace and writes its binary cache next to it, the
// later ones read the cache; a fresh copy of the trace makes sure the first run is the cold one.
TEST(Determinism, TraceStatsDoNotDependOnJobsOrTheTraceCache) {
  TempDir traces;
  const std::string corpus = source_path("sc_tests/data/fuzz/traces/vectoradd-100-32");
  for (const char* f : {"kernelslist.g", "kernel-1.traceg"})
    std::filesystem::copy_file(corpus + "/" + f, traces.path / f);
  expect_same_stats("--platform " + source_path("platforms/gtx1080.yaml") + " --trace " +
                    (traces.path / "kernelslist.g").string());
  EXPECT_TRUE(std::filesystem::exists(traces.path / "kernel-1.traceg.mpgpu")) << "the cache was not written";
}

// mpgpu runs itself again with glibc's malloc advising the heap for huge pages, unless
// MPGPU_HEAP_HUGE_PAGES is set (0 turns it off): host.heap_huge_pages says which, and the results
// are the same either way.
TEST(Determinism, HeapHugePagesChangeNoResult) {
  TempDir dir;
  const std::string inputs =
      "--platform " + source_path("platforms/gtx1080.yaml") + " --workload " + source_path("configs/warp/memory_bound.yaml");
  nlohmann::json with, without;
  const std::string a = stats_without_host(inputs, 1, dir, "huge", "env -u MPGPU_HEAP_HUGE_PAGES -u GLIBC_TUNABLES", &with);
  const std::string b = stats_without_host(inputs, 1, dir, "small", "env -u GLIBC_TUNABLES MPGPU_HEAP_HUGE_PAGES=0", &without);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_EQ(with.value("heap_huge_pages", false), true) << with.dump();
  EXPECT_EQ(without.value("heap_huge_pages", true), false) << without.dump();
}
