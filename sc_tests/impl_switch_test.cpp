// `extensions.smst.impl`: the SMST pin view or Verilog twin shadows the SM driver in a full run;
// results are those of the C++ core, and --vcd traces the pins.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {
const char* kWorkload = R"(name: ppq16
policy: ppq_exclusive
preemption: context_switch
import:
  file: PARBOIL
  processes: [cutcp, {name: spmv, priority: 1}, sgemm]
)";

std::string workload(const TempDir& d) {
  std::string w = kWorkload;
  w.replace(w.find("PARBOIL"), 7, source_path("configs/parboil/parboil.yaml"));
  return d.write("w.yaml", w);
}

json run(const TempDir& d, const std::string& impl, const std::string& extra = "") {
  const std::string out = (d.path / impl).string();
  auto r = run_mpgpu("run --platform " + source_path("platforms/sixteen_sm.yaml") + " --workload " + workload(d) +
                     " --set mechanisms.policies=[ppq_exclusive] --set extensions.smst.impl=" + impl + " --out " + out +
                     " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out + "/stats.json");
  return json::parse(in);
}
}  // namespace

TEST(ImplSwitch, PinViewAndVerilogTwinRunsGiveTheCoreRunsStats) {
  TempDir d;
  json core = run(d, "core"), pins = run(d, "pins"), verilog = run(d, "verilog");
  EXPECT_GT(verilog["host"]["cosim"]["smst"]["operations_checked"].get<uint64_t>(), 10000u);
  EXPECT_GT(pins["host"]["cosim"]["smst"]["operations_checked"].get<uint64_t>(), 10000u);
  for (json* s : {&core, &pins, &verilog}) {
    s->erase("host");  // host time and the co-simulation counts
    (*s)["config"]["platform"]["content"].erase("extensions");  // the switch itself
  }
  EXPECT_EQ(core, pins);
  EXPECT_EQ(core, verilog);
  EXPECT_GT(core["scheduling"]["preemptions"].get<int>(), 0);
}

TEST(ImplSwitch, VcdTracesThePinsInUse) {
  TempDir d;
  const std::string vcd = (d.path / "smst.vcd").string();
  run(d, "verilog", "--vcd " + vcd);
  std::ifstream in(vcd);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("$var wire    3"), std::string::npos);
  EXPECT_NE(text.find("req_op"), std::string::npos);
  EXPECT_NE(text.find("resp_idle"), std::string::npos);
  EXPECT_GT(text.size(), 100000u);
}

TEST(ImplSwitch, VcdWithoutPinViewsIsBadInput) {
  TempDir d;
  auto r = run_mpgpu("run --platform " + source_path("platforms/sixteen_sm.yaml") + " --workload " + workload(d) +
                     " --set mechanisms.policies=[ppq_exclusive] --out " + (d.path / "o").string() + " --vcd " +
                     (d.path / "x.vcd").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no pin view in use"), std::string::npos) << r.output;
}

TEST(ImplSwitch, TwinBuiltForOtherParametersIsRejected) {
  auto r = run_mpgpu("validate --platform " + source_path("platforms/k20c.yaml") + " --set extensions.smst.impl=verilog");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("extensions.smst.impl: the verilated SMST twin is built for 16 SMs"), std::string::npos)
      << r.output;
}
