// scripts/plot_run.py draws a run's pictures: occupancy from the timeline, the kernel Gantt chart
// and the stall breakdown of a warp-level run; a directory without stats.json is bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_util.hpp"

using namespace mpgpu::test;

namespace {
CommandResult script(const std::string& args) {
  return run_command("python3 " + source_path("scripts/plot_run.py") + " " + args);
}
bool has_matplotlib() { return std::system("python3 -c 'import matplotlib' >/dev/null 2>&1 || /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0; }
}  // namespace

TEST(PlotRun, WarpLevelRunGivesThreePictures) {
  if (!has_matplotlib()) GTEST_SKIP() << "matplotlib is not installed (bash scripts/setup.sh installs it)";
  TempDir d;
  const auto out = d.path / "run";
  const auto r = run_mpgpu("run --platform " + source_path("platforms/gtx1080.yaml") + " --workload " +
                           source_path("configs/warp/memory_bound.yaml") + " --out " + out.string() + " --timeline " +
                           (out / "timeline.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto p = script(out.string());
  ASSERT_EQ(p.exit_code, 0) << p.output;
  for (const char* png : {"occupancy.png", "gantt.png", "stalls.png"}) {
    EXPECT_TRUE(std::filesystem::exists(out / png)) << png << "\n" << p.output;
    EXPECT_GT(std::filesystem::file_size(out / png), 1000u) << png;
  }
}

TEST(PlotRun, MissingStatsIsBadInput) {
  TempDir d;
  const auto p = script(d.path.string());
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("stats.json"), std::string::npos) << p.output;
}
