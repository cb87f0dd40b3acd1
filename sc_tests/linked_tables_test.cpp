// `extensions.<table>.impl / latency_cycles / rtl` in full runs: on every bundled platform the
// pin views and Verilog twins give the core run's stats when latencies match; a slower table
// shows up in the preemption latency; --vcd dumps the swapped tables' pins; bad input is located.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

// Three Parboil processes, spmv preempting by priority (SPEC 2's PPQ with context switch).
const char* kPpq = R"(name: ppq
policy: ppq_exclusive
preemption: context_switch
import:
  file: PARBOIL
  processes: [cutcp, {name: spmv, priority: 1}, sgemm]
)";

// lo fills every bundled GPU past 30 us (at most 80 SMs x 8 of its TBs); hi preempts by
// allocation positions then (SPEC 4's dual-kernel).
const char* kDual = R"(policy: dual_kernel
latency_constraint_us: 3
kernels:
  lo: {grid: 1000, threads_per_tb: 256, registers_per_tb: 4096, shared_mem_per_tb: 2048, idempotent: false,
       instructions_per_tb: 7000, tb_time: {kind: normal, mean_cycles: 120000, cv: 0.3}}
  hi: {grid: 30, threads_per_tb: 256, registers_per_tb: 4096, shared_mem_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 2800}}
processes:
  - {name: low, launches: [{kernel: lo}]}
  - {name: high, priority: 1, arrival_us: 30, launches: [{kernel: hi}]}
)";

std::string ppq_workload(const TempDir& d) {
  std::string w = kPpq;
  w.replace(w.find("PARBOIL"), 7, source_path("configs/parboil/parboil.yaml"));
  return d.write("ppq.yaml", w);
}

struct RunResult {
  int exit_code;
  std::string output;
  json stats;
};

RunResult run(const TempDir& d, const std::string& platform, const std::string& workload, const std::string& sets,
        const std::string& extra = "") {
  static int n = 0;
  const std::string out = (d.path / ("o" + std::to_string(n++))).string();
  auto r = run_mpgpu("run --platform " + source_path("platforms/" + platform + ".yaml") + " --workload " + workload +
                     " --out " + out + " " + sets + " " + extra);
  json s;
  if (r.exit_code == 0) std::ifstream(out + "/stats.json") >> s;
  return {r.exit_code, r.output, s};
}

// The stats without host figures (times, the tables' access counts) and the switch itself.
json comparable(json s) {
  s.erase("host");
  s["config"]["platform"]["content"].erase("extensions");
  return s;
}

// The SM driver's tables (SPEC 2).
const char* const kFrameworkTables[] = {"command_buffers", "active_queue", "ksrt", "smst", "ptbq"};

std::string framework(const std::string& impl) {
  std::string s = "--set mechanisms.policies=[ppq_exclusive] --set mechanisms.preemption=[context_switch]";
  for (const char* t : kFrameworkTables) s += std::string(" --set extensions.") + t + ".impl=" + impl;
  return s;
}

double mean_preemption_latency(const json& s) { return s["scheduling"]["preemption_latency_mean_ns"].get<double>(); }

}  // namespace

TEST(LinkedTables, EveryPlatformsTwinsGiveTheCoreRunsStats) {
  TempDir d;
  const std::string ppq = ppq_workload(d), dual = d.write("dual.yaml", kDual);
  for (const std::string p : {"gtx1080", "gtx1080_accelsim", "gtx480", "k20c", "rtx2060", "sixteen_sm", "titanv"}) {
    const RunResult core = run(d, p, ppq, framework("core")), verilog = run(d, p, ppq, framework("verilog"));
    ASSERT_EQ(core.exit_code, 0) << p << ": " << core.output;
    ASSERT_EQ(verilog.exit_code, 0) << p << ": " << verilog.output;
    EXPECT_EQ(comparable(core.stats), comparable(verilog.stats)) << p;
    EXPECT_GT(core.stats["scheduling"]["preemptions"].get<int>(), 0) << p;
    for (const char* t : kFrameworkTables) {
      const json& c = verilog.stats["host"]["cosim"][t];
      EXPECT_EQ(c["impl"], "verilog") << p << " " << t;
      EXPECT_EQ(c["cycles"], c["accesses"]) << p << " " << t;  // one cycle each: the twins' registered response
      EXPECT_GT(c["accesses"].get<uint64_t>(), 2u) << p << " " << t;  // 3 launches: a few for the queues
    }
    const RunResult dcore = run(d, p, dual, "--set mechanisms.policies=[dual_kernel]");
    const RunResult dtwin = run(d, p, dual, "--set mechanisms.policies=[dual_kernel] --set extensions.victim_sets.impl=verilog "
                                            "--set extensions.preempting_status.impl=verilog "
                                            "--set extensions.running_tb_status.impl=verilog "
                                            "--set extensions.allocation_positions.impl=verilog");
    ASSERT_EQ(dtwin.exit_code, 0) << p << ": " << dtwin.output;
    EXPECT_EQ(comparable(dcore.stats), comparable(dtwin.stats)) << p;
    for (const char* t : {"victim_sets", "preempting_status", "running_tb_status", "allocation_positions"}) {
      EXPECT_GT(dtwin.stats["host"]["cosim"][t]["accesses"].get<uint64_t>(), 0u) << p << " " << t;
      EXPECT_EQ(dtwin.stats["host"]["cosim"][t]["instances"].get<uint32_t>(), dcore.stats["config"]["platform"]["content"]["sm"]["count"].get<uint32_t>()) << p;
    }
  }
}

TEST(LinkedTables, PinViewsGiveTheCoreRunsStats) {
  TempDir d;
  const std::string ppq = ppq_workload(d);
  const RunResult core = run(d, "sixteen_sm", ppq, framework("core")), pins = run(d, "sixteen_sm", ppq, framework("pins"));
  ASSERT_EQ(pins.exit_code, 0) << pins.output;
  EXPECT_EQ(comparable(core.stats), comparable(pins.stats));
  EXPECT_NE(pins.output.find("smst: pins (one instance)"), std::string::npos) << pins.output;
  EXPECT_NE(pins.output.find("every response matched the C++ core"), std::string::npos) << pins.output;
}

// Latency in the loop: a core and a pin view of the same latency give the same run; one more
// cycle per SMST access lengthens the preemptions, and the serial-search SMST (rtl/examples) more.
TEST(LinkedTables, ASlowerTableShowsUpInThePreemptionLatency) {
  TempDir d;
  const std::string ppq = ppq_workload(d), base = "--set mechanisms.policies=[ppq_exclusive] --set mechanisms.preemption=[context_switch] ";
  const RunResult one = run(d, "sixteen_sm", ppq, base);
  const RunResult core2 = run(d, "sixteen_sm", ppq, base + "--set extensions.smst.latency_cycles=2");
  const RunResult pins2 = run(d, "sixteen_sm", ppq, base + "--set extensions.smst.impl=pins --set extensions.smst.latency_cycles=2");
  const RunResult serial = run(d, "sixteen_sm", ppq, base + "--set extensions.smst.impl=verilog --set extensions.smst.rtl=smst_serial_search");
  ASSERT_EQ(serial.exit_code, 0) << serial.output;
  EXPECT_EQ(comparable(core2.stats), comparable(pins2.stats));
  EXPECT_GT(mean_preemption_latency(core2.stats), mean_preemption_latency(one.stats));
  EXPECT_GT(mean_preemption_latency(serial.stats), mean_preemption_latency(core2.stats));
  const json& c = serial.stats["host"]["cosim"]["smst"];
  EXPECT_GT(c["cycles"].get<uint64_t>(), 2 * c["accesses"].get<uint64_t>());  // 2 + i cycles per update
  EXPECT_EQ(core2.stats["host"]["cosim"]["smst"]["cycles"], 2 * core2.stats["host"]["cosim"]["smst"]["accesses"].get<uint64_t>());
}

// The running-TB status's reads at each status query delay the SM's answer (dual-kernel
// preemption decisions read every resident TB's entry): a 40-cycle table makes preemptions later.
TEST(LinkedTables, ASlowerRunningTbStatusDelaysTheDualKernelPreemptions) {
  TempDir d;
  const std::string dual = d.write("dual.yaml", kDual), base = "--set mechanisms.policies=[dual_kernel] ";
  const RunResult one = run(d, "sixteen_sm", dual, base);
  const RunResult core40 = run(d, "sixteen_sm", dual, base + "--set extensions.running_tb_status.latency_cycles=40");
  const RunResult pins40 = run(d, "sixteen_sm", dual,
                               base + "--set extensions.running_tb_status.impl=pins --set extensions.running_tb_status.latency_cycles=40");
  ASSERT_EQ(pins40.exit_code, 0) << pins40.output;
  EXPECT_EQ(comparable(core40.stats), comparable(pins40.stats));
  EXPECT_GT(mean_preemption_latency(core40.stats), mean_preemption_latency(one.stats));
}

TEST(LinkedTables, VcdDumpsThePinsOfEverySwappedTable) {
  TempDir d;
  const std::string vcd = (d.path / "t.vcd").string();
  const RunResult r = run(d, "sixteen_sm", ppq_workload(d), framework("verilog") + " --set extensions.ksrt.impl=pins", "--vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = mpgpu::test::read_file(vcd);
  for (const char* scope : {"$scope module smst $end", "$scope module ksrt $end", "$scope module ptbq $end",
                            "$scope module command_buffers $end", "$scope module active_queue $end"})
    EXPECT_NE(text.find(scope), std::string::npos) << scope;
  EXPECT_NE(text.find(" resp_idle $end"), std::string::npos);
  EXPECT_GT(text.size(), 100000u);
  EXPECT_NE(r.output.find("vcd: " + vcd), std::string::npos) << r.output;
}

TEST(LinkedTables, BadInputNamesTheKey) {
  TempDir d;
  auto expect = [](const std::string& sets, const std::string& what) {
    auto r = run_mpgpu("validate --platform " + source_path("platforms/gtx480.yaml") + " " + sets);
    EXPECT_EQ(r.exit_code, 2) << sets;
    EXPECT_NE(r.output.find(what), std::string::npos) << sets << ": " << r.output;
  };
  expect("--set extensions.smst.impl=verilog --set extensions.smst.latency_cycles=2",
         "extensions.smst.latency_cycles: a Verilog twin's latency is its RTL's");
  expect("--set extensions.ptbq.rtl=ptbq", "extensions.ptbq.rtl: names the RTL module of impl: verilog");
  expect("--set extensions.smst.impl=verilog --set extensions.smst.rtl=my_smst",
         "extensions.smst.rtl: no Verilog twin 'my_smst' of the smst is built for this platform's N=15 SMB=4 KB=4 TBB=4");
  expect("--set extensions.victim_sets.impl=verilog --set extensions.dual_kernel_positions=17",
         "extensions.victim_sets.impl: no Verilog twin 'victim_sets' of the victim_sets is built for this platform's K=17 P=8");
  expect("--set extensions.ksrt.impl=rtl", "extensions.ksrt.impl");
  expect("--set extensions.smst.latency_cycles=0", "extensions.smst.latency_cycles");
  auto r = run_mpgpu("run --platform " + source_path("platforms/sixteen_sm.yaml") + " --workload " + ppq_workload(d) +
                     " --set mechanisms.policies=[ppq_exclusive] --out " + (d.path / "o").string() + " --vcd " +
                     (d.path / "x.vcd").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--vcd: no pin view or Verilog twin in use"), std::string::npos) << r.output;
}
