#pragma once
// The rig of the SmPipeline core tests (pipeline_core_test.cpp, timing_test.cpp): a fake memory
// port, the baseline parameters every expected number is worked out from, and a driver.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/config_node.hpp"
#include "sm/pipeline.hpp"
#include "workload/kernel.hpp"
#include "workload/program.hpp"

namespace mpgpu::test {

constexpr int kSp = static_cast<int>(UnitClass::sp);
constexpr int kBranch = static_cast<int>(UnitClass::branch);

// Records every access; answers `a.cycle + latency` unless a script is set (index = access number).
// L1 TLB misses (with params.translate): answered after walk_latency with frame = page + kFrameOffset,
// except pages in `invalid_pages`.
struct FakePort : MemoryPort {
  static constexpr uint64_t kFrameOffset = 0x1000;
  uint64_t latency = 100;
  uint64_t walk_latency = 50;
  std::function<uint64_t(const MemAccess&, size_t)> script;
  std::vector<MemAccess> log;
  std::vector<MemAccess> walks;
  std::vector<uint64_t> invalid_pages;  // virtual page numbers (4 KB pages)
  // Pages not resident until first touched: the walk finds the fault at cycle + walk_latency, the
  // handler makes the page resident fault_latency later; a walk in between learns of the same
  // fault. Value: the cycle the page is resident (0: untouched).
  std::map<uint64_t, uint64_t> fault_pages;
  uint64_t fault_latency = 1000;
  uint64_t access(const MemAccess& a) override {
    log.push_back(a);
    return script ? script(a, log.size() - 1) : a.cycle + latency;
  }
  Translation translate(const MemAccess& a) override {
    walks.push_back(a);
    const uint64_t vpn = a.addr >> 12;
    for (uint64_t p : invalid_pages)
      if (p == vpn) return {false, 0, a.cycle + walk_latency};
    const auto f = fault_pages.find(vpn);
    if (f != fault_pages.end() && (f->second == 0 || a.cycle < f->second)) {
      const uint64_t known = a.cycle + walk_latency;
      if (f->second == 0) f->second = known + fault_latency;
      return {true, vpn + kFrameOffset, f->second, true, std::min(known, f->second)};
    }
    return {true, vpn + kFrameOffset, a.cycle + walk_latency};
  }
};

// `grid_threads`: what an address's grid_stride multiplies (the rig launches TBs by hand).
inline std::shared_ptr<const WarpProgram> program(const std::string& yaml, uint64_t grid_threads = 0) {
  auto doc = ConfigDoc::parse(yaml, "prog.yaml");
  return std::make_shared<WarpProgram>(parse_program(ConfigNode::root(doc), 32, grid_threads));
}

// Baseline used by every pipeline test unless a test tweaks it:
//   1 scheduler, GTO, issue width 1, fetch_latency F = 2, barrier_latency 1,
//   every unit {count 1, latency 4, ii 1}, branch latency 3,
//   L1D 32 sets x 4 ways x 128 B, 64 MSHRs, latency 10, write-evict; shared memory latency 20;
//   the fake port answers a.cycle + 100 (a.cycle: the cycle the request leaves the SM, which for
//   an L1 miss is its tag-check cycle: the L1 latency applies to hits only);
//   operand_read 0, writeback 0, perfect instruction cache, atomics do not block the warp.
inline SmParams base_params() {
  SmParams p;
  p.max_threads = 2048;
  p.max_tbs = 16;
  p.warp_size = 32;
  p.warp_schedulers = 1;
  p.warp_scheduler = "gto";
  p.pipeline.issue_width = 1;
  p.pipeline.fetch_latency = 2;
  p.pipeline.barrier_latency = 1;
  for (auto& u : p.pipeline.units) u = UnitParams{1, 4, 1};
  p.pipeline.units[kBranch] = UnitParams{1, 3, 1};
  p.l1d = L1dParams{};
  p.l1d.sets = 32;
  p.l1d.ways = 4;
  p.l1d.line_bytes = 128;
  p.l1d.mshrs = 64;
  p.l1d.latency = 10;
  p.shared_mem_latency = 20;
  p.shared_mem_banks = 32;
  return p;
}

struct Rig {
  SmParams params;
  FakePort port;
  KernelDesc desc;
  KernelLaunch launch;
  std::unique_ptr<SmPipeline> pipe;
  std::vector<FinishedTb> done;

  // `edit` may change the parsed program (e.g. make a load local) before the pipeline sees it.
  explicit Rig(const std::string& yaml, uint32_t threads_per_tb = 32,
               const std::function<void(SmParams&)>& tweak = {}, const std::function<void(WarpProgram&)>& edit = {}) {
    params = base_params();
    if (tweak) tweak(params);
    desc.name = "k";
    desc.threads_per_tb = threads_per_tb;
    auto prog = std::make_shared<WarpProgram>(*program(yaml));
    if (edit) edit(*prog);
    desc.program = prog;
    launch.id = 7;
    launch.kernel = &desc;
    pipe = std::make_unique<SmPipeline>(params, port);
  }
  void start(uint32_t slot = 0, uint32_t tb = 0, uint64_t cycle = 0) {
    ASSERT_TRUE(pipe->launch_tb(slot, &launch, tb, cycle));
  }
  void drain() {
    for (const auto& f : pipe->finished()) done.push_back(f);
    pipe->finished().clear();
  }
  void run() {
    while (pipe->busy()) {
      pipe->run_until(pipe->cycle() + 1000);
      drain();
    }
    drain();
  }
  // Simulates every cycle < c; returns the warp instructions issued so far.
  uint64_t issued_before(uint64_t c) {
    while (pipe->cycle() < c) {
      pipe->run_until(c);
      drain();
    }
    return pipe->stats().warp_instructions;
  }
  const PipelineStats& st() const { return pipe->stats(); }
  size_t accesses(AccessKind k) const {
    size_t n = 0;
    for (const MemAccess& a : port.log) n += a.kind == k;
    return n;
  }
  uint64_t stall_sum() const {
    const PipelineStats& s = pipe->stats();
    return s.issue_cycles + s.stall_raw_memory + s.stall_raw_compute + s.stall_idle_control +
           s.stall_memory_pipe + s.stall_compute_pipe;
  }
};

// `n` independent sp instructions writing r1..rn.
inline std::string independent_sp(int n) {
  std::string y = "body:\n";
  for (int i = 1; i <= n; ++i) y += "  - {op: sp, dst: r" + std::to_string(i) + "}\n";
  return y;
}

}  // namespace mpgpu::test
