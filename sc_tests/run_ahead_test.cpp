// Run-ahead at quantum 1 (sm/run_ahead.hpp, SmCalendar::try_run_ahead): how far a warp's code is
// from its next memory or last instruction, and whole runs that give the same stats.json with
// and without it while it does run ahead.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "sm/run_ahead.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::run_command;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;

namespace {

ProgInstr op(UnitClass u, uint8_t depth = 0) {
  ProgInstr i;
  i.unit = u;
  i.depth = depth;
  return i;
}
ProgInstr back_edge(uint32_t target, uint32_t count, uint8_t depth) {
  ProgInstr i = op(UnitClass::branch, depth);
  i.back_edge = true;
  i.target = target;
  i.count = count;
  return i;
}
const UnitClass kAlu = UnitClass::sp, kMem = UnitClass::ldst;

uint64_t before(const WarpProgram& p, uint32_t pc, std::initializer_list<uint32_t> iters = {}) {
  uint32_t it[kMaxLoopDepth] = {};
  std::copy(iters.begin(), iters.end(), it);
  return LoopSpans(p).before_external(pc, it);
}

}  // namespace

// 0 sp, 1 ld, 2-4 a loop of 4 iterations without memory, 5 st, 6 sp (the last).
TEST(RunAhead, InstructionsBeforeTheNextMemoryInstruction) {
  WarpProgram p;
  p.instrs = {op(kAlu), op(kMem), op(kAlu, 1), op(kAlu, 1), back_edge(2, 4, 1), op(kMem), op(kAlu)};
  EXPECT_EQ(before(p, 0), 1u);
  EXPECT_EQ(before(p, 1), 0u);          // the head itself
  EXPECT_EQ(before(p, 2, {0}), 12u);    // all 4 iterations of 3 before the st
  EXPECT_EQ(before(p, 3, {2}), 5u);     // the rest of the third iteration (2), then the fourth (3)
  EXPECT_EQ(before(p, 4, {3}), 1u);     // the last back-edge falls through
  EXPECT_EQ(before(p, 6), 0u);          // the last instruction: its issue exits the warp
}

// A loop holding a memory instruction is walked; one that ends the program ends at the exit;
// nested loops count whole.
TEST(RunAhead, LoopsWithMemoryNestedAndAtTheEnd) {
  WarpProgram with_load;
  with_load.instrs = {op(kAlu, 1), op(kMem, 1), back_edge(0, 5, 1)};
  EXPECT_EQ(before(with_load, 2, {1}), 2u);  // the back-edge, then sp, then the load again
  EXPECT_EQ(before(with_load, 2, {4}), 0u);  // the last iteration's back-edge is the last instruction

  WarpProgram ends_in_loop;
  ends_in_loop.instrs = {op(kMem), op(kAlu, 1), back_edge(1, 3, 1)};
  EXPECT_EQ(before(ends_in_loop, 1, {0}), 5u);  // 6 instructions left, the sixth exits

  WarpProgram nested;  // outer 2 x (sp, inner 3 x (sp, back-edge), back-edge), then ld
  nested.instrs = {op(kAlu, 1), op(kAlu, 2), back_edge(1, 3, 2), back_edge(0, 2, 1), op(kMem)};
  EXPECT_EQ(before(nested, 0, {0, 0}), 16u);   // 2 x (1 + 3 x 2 + 1)
  EXPECT_EQ(before(nested, 2, {1, 1}), 4u);    // this inner back-edge, one more inner iteration (2), the outer back-edge
  // The walk stops after its step limit with what it counted: a lower bound.
  uint32_t it[kMaxLoopDepth] = {};
  EXPECT_EQ(LoopSpans(nested).before_external(0, it, 2), 2u);
}

namespace {

// stats.json without "host" and the echoed setting, and the SM steps run ahead.
struct RunResult {
  std::string stats;
  uint64_t steps_ahead = 0;
};
RunResult run(const std::string& inputs, bool run_ahead, const TempDir& dir, const std::string& env = "") {
  const std::string out = (dir.path / (run_ahead ? "on" : "off")).string();
  const std::string cmd = env + std::string(MPGPU_BINARY) + " run " + inputs + " --set sim.quantum_cycles=1 --set sim.run_ahead=" +
                          (run_ahead ? "true" : "false") + " --jobs 1 --out " + out;
  const auto r = run_command(cmd);
  EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
  std::ifstream f(out + "/stats.json");
  auto stats = nlohmann::json::parse(f, nullptr, false);
  if (stats.is_discarded()) return {};
  RunResult res;
  res.steps_ahead = stats["host"]["sm_steps_run_ahead"].get<uint64_t>();
  stats.erase("host");
  stats["config"]["platform"]["content"]["sim"].erase("run_ahead");
  res.stats = stats.dump(1);
  return res;
}

// Returns the SM steps run ahead.
uint64_t expect_same_with_run_ahead(const std::string& inputs, uint64_t min_steps_ahead) {
  TempDir dir;
  const RunResult on = run(inputs, true, dir), off = run(inputs, false, dir);
  EXPECT_FALSE(on.stats.empty()) << inputs;
  if (on.stats.empty()) return 0;
  EXPECT_EQ(on.stats, off.stats) << "run-ahead changed a result for: " << inputs;
  EXPECT_GE(on.steps_ahead, min_steps_ahead) << "run-ahead did not run for: " << inputs;
  EXPECT_EQ(off.steps_ahead, 0u);
  return on.steps_ahead;
}

std::string warp(const std::string& platform, const std::string& workload) {
  return "--platform " + source_path("platforms/" + platform + ".yaml") + " --workload " + source_path(workload);
}

// A workload written to `dir`, on gtx1080: the inputs of a run.
std::string gtx1080_with(const TempDir& dir, const std::string& name, const std::string& yaml) {
  const std::string w = (dir.path / (name + ".yaml")).string();
  std::ofstream(w) << yaml;
  return "--platform " + source_path("platforms/gtx1080.yaml") + " --workload " + w;
}

// Two processes of the compute-bound kernel, the second arriving while the first's SMs could run
// far ahead: its arrival is a host timer the SMs must not pass.
const char* kLateArrival = R"(name: late-arrival
seed: 1
policy: fcfs
kernels:
  chain:
    grid: 20
    threads_per_tb: 128
    registers_per_thread: 8
    program:
      body:
        - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4}}
        - loop: 200
          body:
            - {op: fma, dst: r2, src: [r1, r2]}
            - {op: fma, dst: r3, src: [r1, r3]}
        - {op: st.global, src: [r2], addr: {base: 0x20000000, gtid: 4}}
processes:
  - name: first
    launches: [{kernel: chain}]
  - name: second
    arrival_us: 1.5
    launches: [{kernel: chain}]
)";

}  // namespace

// Most cycles of the compute-bound example touch no memory: nearly all its SM steps run ahead.
TEST(RunAhead, ComputeBoundSameResults) {
  expect_same_with_run_ahead(warp("gtx1080", "configs/warp/compute_bound.yaml"), 500000);
  expect_same_with_run_ahead(warp("gtx1080", "configs/warp/compute_bound.yaml") + " --set sm.warp_scheduler=lrr", 500000);
}

// MIAS sharing: the block scheduler's profiling-window timers, TB-mix broadcasts and a
// measuring window that ends the run.
TEST(RunAhead, SharingWithTimersSameResults) {
  expect_same_with_run_ahead(warp("rtx2060", "configs/examples/mias_sharing.yaml"), 10000);
}

TEST(RunAhead, LateArrivalSameResults) {
  TempDir dir;
  expect_same_with_run_ahead(gtx1080_with(dir, "late", kLateArrival), 1000);
}

// The timers the run-ahead reads (TimedWakeups) are every timed event the SystemC kernel holds:
// MPGPU_CHECK_RUN_AHEAD compares them at every try and stops the run on one missing.
TEST(RunAhead, RecordedWakeupsCoverTheKernelsEvents) {
  TempDir dir;
  for (const std::string& inputs :
       {warp("rtx2060", "configs/examples/mias_sharing.yaml"), gtx1080_with(dir, "late", kLateArrival),
        warp("gtx480", "configs/examples/dual_kernel_preemption.yaml"), warp("gtx480", "configs/examples/flush_preemption.yaml")}) {
    const RunResult r = run(inputs, true, dir, "MPGPU_CHECK_RUN_AHEAD=1 ");
    EXPECT_FALSE(r.stats.empty()) << inputs;
  }
}

namespace {

// A random warp-level workload: one or two processes (the second arriving later), each a kernel
// whose program mixes arithmetic, global and shared loads and stores, barriers and nested loops.
class RandomWorkload {
 public:
  explicit RandomWorkload(uint32_t seed) : g_(seed) {}
  std::string yaml() {
    std::ostringstream y;
    y << "name: random-run-ahead\nseed: 1\npolicy: fcfs\nkernels:\n";
    const int kernels = pick(1, 2);
    for (int k = 0; k < kernels; ++k) {
      y << "  k" << k << ":\n    grid: " << pick(2, 40) << "\n    threads_per_tb: " << 64 * pick(1, 4)
        << "\n    registers_per_thread: 16\n    shared_mem_per_tb: 4096\n    program:\n      body:\n";
      body(y, 8, 0, pick(3, 8));
    }
    y << "processes:\n";
    for (int k = 0; k < kernels; ++k)
      y << "  - name: p" << k << "\n    arrival_us: " << (k == 0 ? 0.0 : pick(0, 30) / 10.0)
        << "\n    launches: [{kernel: k" << k << "}]\n";
    return y.str();
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g_); }
  std::string reg() { return "r" + std::to_string(pick(1, 8)); }
  void body(std::ostringstream& y, int indent, int depth, int items) {
    const std::string pad(size_t(indent), ' ');
    for (int i = 0; i < items; ++i) {
      const int kind = pick(0, 19);
      if (kind < 2 && depth < 2) {
        y << pad << "- loop: " << pick(1, 40) << "\n" << pad << "  body:\n";
        body(y, indent + 4, depth + 1, pick(1, 5));
      } else if (kind < 4) {
        y << pad << "- {op: ld.global, dst: " << reg() << ", addr: {base: 0x" << std::hex << (0x10000000 + pick(0, 3) * 0x1000000)
          << std::dec << ", gtid: 4" << (depth ? ", iter: 65536" : "") << "}}\n";
      } else if (kind == 4) {
        y << pad << "- {op: st.global, src: [" << reg() << "], addr: {base: 0x20000000, gtid: 4}}\n";
      } else if (kind == 5) {
        y << pad << "- {op: " << (pick(0, 1) ? "ld.shared, dst: " + reg() : "st.shared, src: [" + reg() + "]")
          << ", addr: {base: 0, tid: 4}}\n";
      } else if (kind == 6) {
        y << pad << "- {op: bar}\n";
      } else {
        static const char* const alu[] = {"sp", "fma", "sfu", "dp", "nop"};
        y << pad << "- {op: " << alu[pick(0, 4)] << ", dst: " << reg() << ", src: [" << reg() << ", " << reg() << "]}\n";
      }
    }
  }
  std::mt19937 g_;
};

}  // namespace

// Random programs and arrivals: run-ahead never changes a result, and never finds a memory
// instruction or an exit inside the cycles it promised private (that would stop the run).
TEST(RunAhead, RandomWorkloadsSameResults) {
  TempDir dir;
  uint64_t steps = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed)
    steps += expect_same_with_run_ahead(gtx1080_with(dir, "random" + std::to_string(seed), RandomWorkload(seed).yaml()), 0);
  EXPECT_GT(steps, 0u) << "no random workload ran ahead: the comparison tested nothing";
}
