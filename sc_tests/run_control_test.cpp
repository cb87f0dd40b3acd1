// How a run ends when it cannot finish normally (issue 18 items 5, 6, 7): a signal, the host-time
// limit, the simulated-time limit, or an input found wrong before simulating. In every case no
// file that looks like a result is left (stats.json, timeline, VCD, or their partial names) and no
// simulation child keeps running.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Names in `dir` (the run's --out, which also holds its timeline).
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// Processes whose command line names `dir` (the run and its forked children do).
int processes_naming(const fs::path& dir) {
  // "[-]-out" matches "--out" but not itself, so the shell running pgrep is not counted.
  const std::string cmd = "pgrep -c -f -- '[-]-out " + dir.string() + "'";
  FILE* p = popen(cmd.c_str(), "r");
  int n = 0;
  if (p && fscanf(p, "%d", &n) != 1) n = 0;
  if (p) pclose(p);
  return n;
}

std::string parboil_run(const fs::path& out) {
  return "run --platform " + source_path("platforms/k20c.yaml") + " --workload " +
         source_path("configs/parboil/parboil.yaml") + " --jobs 2 --out " + out.string() + " --timeline " +
         (out / "tl.json").string();
}

}  // namespace

// SIGTERM to the parent (what a batch system sends): the children stop too, nothing is written,
// exit 128 + 15. Before, the children ran on as orphans and one renamed a complete timeline into
// place with no stats.json.
TEST(RunControl, SignalStopsEveryChildAndWritesNothing) {
  TempDir d;
  const fs::path out = d.path / "o";
  const std::string script = "SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + std::string(MPGPU_BINARY) + " " + parboil_run(out) +
                             " >/dev/null 2>" + (d.path / "err.txt").string() +
                             " & P=$!; sleep 1.5; kill -TERM $P; wait $P; echo $?";
  FILE* p = popen(("bash -c '" + script + "'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  int rc = -1;
  ASSERT_EQ(fscanf(p, "%d", &rc), 1);
  pclose(p);
  EXPECT_EQ(rc, 128 + 15);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(processes_naming(out), 0);
  EXPECT_TRUE(files_in(out).empty()) << files_in(out).front();
  std::ifstream err(d.path / "err.txt");
  const std::string text((std::istreambuf_iterator<char>(err)), {});
  EXPECT_NE(text.find("stopped by signal 15"), std::string::npos) << text;
}

// --max-host-seconds ends a run that would take too long, naming the simulations it stopped.
TEST(RunControl, HostTimeLimitStopsTheRunAndNamesWhatWasRunning) {
  TempDir d;
  const fs::path out = d.path / "o";
  const auto r = run_mpgpu(parboil_run(out) + " --max-host-seconds 0.5");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("host time limit: --max-host-seconds 0.5 reached; stopped the multiprogrammed run"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(processes_naming(out), 0);
  EXPECT_TRUE(files_in(out).empty()) << files_in(out).front();
}

// A missing process in --tsp is found before simulating (it was found after the simulation, with
// the timeline already written).
TEST(RunControl, TspIsCheckedBeforeSimulating) {
  TempDir d;
  const fs::path out = d.path / "o";
  const std::string tsp = d.write("tsp.json", "{\"histo\": 1000}");
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_mpgpu("run --platform " + source_path("platforms/k20c.yaml") + " --workload " +
                           source_path("configs/default.yaml") + " --out " + out.string() + " --timeline " +
                           (out / "tl.json").string() + " --tsp " + tsp);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("tsp.json: no T_SP for process 'spmv' ("), std::string::npos) << r.output;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 30.0);
  EXPECT_TRUE(files_in(out).empty()) << files_in(out).front();
}

// Simulated time is SystemC's 64-bit count of picoseconds: a run that would pass 2^62 ps stops
// there with an error naming what was unfinished (it wrapped around and reported kernels that
// ended before they started). A single delay that could approach the end is refused as input.
TEST(RunControl, SimulatedTimeStaysWithinItsRepresentableRange) {
  TempDir d;
  const auto workload = [&](const std::string& mean_us, int grid) {
    return d.write("w.yaml", "name: long\nkernels:\n  k: {grid: " + std::to_string(grid) +
                                 ", threads_per_tb: 1024, registers_per_thread: 8, tb_time: {kind: fixed, mean_us: " +
                                 mean_us + "}}\nprocesses:\n  - {name: a, launches: [{kernel: k}]}\n");
  };
  const std::string base = "run --platform " + source_path("platforms/k20c.yaml") +
                           " --set sm.count=1 --set sm.max_tbs=1 --out " + (d.path / "o").string() + " --workload ";
  auto r = run_mpgpu(base + workload("1000000000000", 19));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("w.yaml:3:96: kernels.k.tb_time.mean_us: value 1000000000000 out of range"), std::string::npos)
      << r.output;
  r = run_mpgpu(base + workload("1000000000", 5000));  // 5000 x 1000 s, one TB at a time
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("simulated time reached 4.61e+06 s, the model's limit (2^62 ps"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("unfinished: a (4611 of 4612 TBs done)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(d.path / "o" / "stats.json"));
}

// --isolated P simulates only P, as the isolated run a full run forks for P's T_SP: the same
// T_SP to the picosecond, one simulation, and T_MP = T_SP. The sweep runner relies on it to make
// the isolated runs runs of their own. An unknown name, or --tsp with it, is input error 2.
TEST(RunControl, IsolatedRunIsTheRunTheFullRunMeasuresTspOn) {
  TempDir d;
  const std::string base = "run --platform " + source_path("platforms/k20c.yaml") + " --workload " +
                           source_path("configs/default.yaml") + " --jobs 2 --out ";
  ASSERT_EQ(run_mpgpu(base + (d.path / "full").string()).exit_code, 0);
  const auto full = nlohmann::json::parse(mpgpu::test::read_file(d.path / "full" / "stats.json"));
  for (const std::string p : {"spmv", "cutcp"}) {
    const auto r = run_mpgpu(base + (d.path / p).string() + " --isolated " + p);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto iso = nlohmann::json::parse(mpgpu::test::read_file(d.path / p / "stats.json"));
    ASSERT_EQ(iso["processes"].size(), 1u);
    EXPECT_EQ(iso["processes"][0]["name"], p);
    EXPECT_EQ(iso["host"]["simulations"], 1);
    EXPECT_EQ(iso["processes"][0]["T_MP"], iso["processes"][0]["T_SP"]);
    for (const auto& fp : full["processes"]) {
      if (fp["name"] != p) continue;
      EXPECT_EQ(iso["processes"][0]["T_SP"], fp["T_SP"]) << p;
    }
  }
  auto r = run_mpgpu(base + (d.path / "bad").string() + " --isolated nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--isolated nope: " + source_path("configs/default.yaml") +
                          " has no such process (it has: histo, spmv, sgemm, cutcp)"),
            std::string::npos)
      << r.output;
  const std::string tsp = d.write("tsp.json", "{\"spmv\": 1000}");
  r = run_mpgpu(base + (d.path / "bad").string() + " --isolated spmv --tsp " + tsp);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("drop --tsp"), std::string::npos) << r.output;
  EXPECT_TRUE(files_in(d.path / "bad").empty());
}
