// `extensions.victim_sets.impl`: each SM's candidate victim sets shadowed by the pin view or the
// Verilog twin in a full dual-kernel run. Results are those of the C++ core; a shadow that
// disagrees with the core stops the run; a twin too small for the platform is bad input.
#include <gtest/gtest.h>
#include <systemc>

#include <fstream>

#include <nlohmann/json.hpp>

#include "platform/victim_sets_shadow.hpp"
#include "test_util.hpp"

using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;
using namespace mpgpu;

namespace {

// gtx480 (15 SMs, 8 TB slots: K = P = 8 of the twin's 16 x 16): lo fills the GPU (6 TBs per
// SM); hi, one SM's worth per 5 SMs, preempts by positions at 30 us.
const char* kWorkload = R"(policy: dual_kernel
latency_constraint_us: 3
kernels:
  lo: {grid: 180, threads_per_tb: 256, registers_per_tb: 4096, shared_mem_per_tb: 2048, idempotent: false,
       instructions_per_tb: 7000, tb_time: {kind: normal, mean_cycles: 28000, cv: 0.3}}
  hi: {grid: 30, threads_per_tb: 256, registers_per_tb: 4096, shared_mem_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 2800}}
processes:
  - {name: low, launches: [{kernel: lo}]}
  - {name: high, priority: 1, arrival_us: 30, launches: [{kernel: hi}]}
)";

json run(const TempDir& d, const std::string& impl, const std::string& extra = "") {
  const std::string out = (d.path / impl).string();
  auto r = run_mpgpu("run --platform " + source_path("platforms/gtx480.yaml") + " --workload " + d.write("w.yaml", kWorkload) +
                     " --set extensions.victim_sets.impl=" + impl + " --out " + out + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out + "/stats.json");
  return json::parse(in);
}

}  // namespace

TEST(VictimSetsShadow, PinViewAndVerilogTwinRunsGiveTheCoreRunsStats) {
  TempDir d;
  const std::string vcd = (d.path / "vs.vcd").string();
  json core = run(d, "core"), pins = run(d, "pins"), verilog = run(d, "verilog", "--vcd " + vcd);
  const auto& c = verilog["host"]["cosim"]["victim_sets"];
  std::ifstream in(vcd);  // --vcd traces every SM's shadow pins
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("victim_sets_shadow14"), std::string::npos);
  EXPECT_NE(text.find("resp_free"), std::string::npos);
  EXPECT_EQ(c["shadows"], 15);
  // Each preemption builds its SM's sets (8 row clears and the overlaps) and clears its victims.
  EXPECT_GE(c["operations_checked"].get<uint64_t>(), 8u * core["scheduling"]["preemptions"].get<uint64_t>());
  EXPECT_EQ(pins["host"]["cosim"]["victim_sets"]["operations_checked"], c["operations_checked"]);
  EXPECT_FALSE(core["host"].contains("cosim"));
  for (json* s : {&core, &pins, &verilog}) {
    s->erase("host");
    (*s)["config"]["platform"]["content"].erase("extensions");
  }
  EXPECT_EQ(core, pins);
  EXPECT_EQ(core, verilog);
  EXPECT_GT(core["scheduling"]["preemptions"].get<int>(), 0);
}

// A core update the pins did not see: the replayed set(0, 3) leaves row 0 = {1, 3} on the pins,
// while the core's row 0 is {1, 2}: the shadow reports the first difference.
TEST(VictimSetsShadow, ADifferenceFromTheCoreIsReported) {
  DualKernelParams p;
  p.positions = 4;
  p.tb_slots = 4;
  VictimSetsShadow shadow("shadow", p, VictimSetsShadow::Impl::verilog);
  CandidateVictimSets core(p);
  core.set_observer([&](unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after) {
    shadow.observe(op, pos, slot, after);
  });
  core.set(0, 1);  // seen by the shadow
  CandidateVictimSets other(p);
  other.set(0, 1);
  other.set(0, 2);
  shadow.observe(CandidateVictimSets::kSet, 0, 3, other);
  sc_core::sc_start(10, sc_core::SC_NS);
  EXPECT_EQ(shadow.checked(), 2u);
  EXPECT_NE(shadow.first_mismatch().find("Verilog twin differs from the core after op 1 (position 0, slot 3): row 0xa vs 0x6"),
            std::string::npos)
      << shadow.first_mismatch();
}

TEST(VictimSetsShadow, TwinTooSmallForThePlatformIsRejected) {
  auto r = run_mpgpu("validate --platform " + source_path("platforms/gtx480.yaml") +
                     " --set extensions.victim_sets.impl=verilog --set extensions.dual_kernel_positions=17");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("extensions.victim_sets.impl: the verilated victim-set twin holds 16 positions x 16 TB slots"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("17 positions"), std::string::npos) << r.output;
}
