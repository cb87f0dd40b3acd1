// The SM pipeline's replay queue and operand log (SPEC 3) as linked tables: their pin views against
// their Verilog twins cycle by cycle (and an injected RTL bug caught), then whole runs on every
// bundled platform where the twins give the core run's stats, a slower table holds the ld/st unit,
// a context switch of faulted TBs takes their entries over the pins, and bad input is located.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "cosim_rig.hpp"
#include "test_util.hpp"
#include "twins/twin_registry.hpp"

using namespace mpgpu;
using mpgpu::test::cosim;
using mpgpu::test::expect_injected_bug_caught;
using mpgpu::test::Result;
using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::StuckError;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

ReplayQueueParams queue(uint32_t warps) {  // two entries per warp slot, as the platforms size it
  ReplayQueueParams p;
  p.max_warps = warps;
  p.entries = 2 * warps;
  return p;
}

// Fill phases (issue-heavy) and drain phases (commit- and take-heavy); slots and warps sometimes
// out of range, PCs sometimes a bit too wide.
void drive_queue(ReplayQueueBus& b, std::mt19937_64& g, uint64_t c, const ReplayQueueParams& p) {
  const bool fill = (c / (4 * p.entries)) % 2 == 0;
  const int x = static_cast<int>(g() % 100);
  b.req_op = x < (fill ? 70 : 25) ? 0 : x < 88 ? 1 : x < 97 ? 2 : 3;
  b.req_valid = g() % 10 != 0;
  b.req_warp = g() % (bits_for(p.max_warps) < 8 ? (uint64_t{1} << bits_for(p.max_warps)) + 2 : 256);
  b.req_pc = g() % 16 == 0 ? (uint64_t{1} << 32) | g() % 4096 : (g() % 4096) * 16;
  b.req_slot = g() % 4 == 0 ? g() % (p.entries + 2) : g() % 8;
}

void drive_log(OperandLogBus& b, std::mt19937_64& g, uint64_t, const OperandLogParams& p) {
  const int x = static_cast<int>(g() % 100);
  b.req_op = x < 8 ? 0 : x < 55 ? 1 : x < 90 ? 2 : 3;
  b.req_valid = g() % 10 != 0;
  b.req_tb = g() % 8 == 0 ? g() % (p.max_tbs + 2) : g() % 4;
  b.req_n = b.req_op == 0 ? g() % (p.max_tbs + 2) : g() % 4;  // 0 and 3: no such allocation
}

}  // namespace

TEST(TwinCosim, ReplayQueuePinViewMatchesVerilogTwinEveryCycleAndABugIsCaught) {
  for (uint32_t warps : {64u, 48u}) {  // 128 entries, and gtx480's 96 (warp index 6 bits either way)
    const ReplayQueueParams p = queue(warps);
    ReplayQueuePinView model(1, p);
    auto rtl = make_twin<ReplayQueueBus>("replay_queue", "replay_queue", replay_queue_twin_params(p));
    uint64_t full = 0, taken = 0, errors = 0, commits = 0;
    auto drive = [&](ReplayQueueBus& b, std::mt19937_64& g, uint64_t c) { drive_queue(b, g, c, p); };
    const Result r = cosim<ReplayQueueBus>(model, *rtl, 40 * p.entries, 17, drive, [&](const ReplayQueueBus& b) {
      full += b.resp_valid && b.resp_full;
      taken += b.resp_valid && !b.resp_error && b.resp_taken;
      errors += b.resp_valid && b.resp_error;
      commits += b.resp_valid && !b.resp_error && b.resp_count > 0 && b.resp_slot >= 8;
    });
    EXPECT_EQ(r.mismatches, 0u) << warps << " warps: " << r.first;
    EXPECT_GT(full, 50u);     // the queue filled (issues refused then)
    EXPECT_GT(taken, 20u);    // takes removed entries
    EXPECT_GT(errors, 500u);  // free slots committed, wide warps and PCs
    EXPECT_GT(commits, 20u);  // slots past the first few were used
    expect_injected_bug_caught<ReplayQueueBus, ReplayQueuePinView>(p, "replay_queue", replay_queue_twin_params(p), 17, drive);
  }
}

TEST(TwinCosim, OperandLogPinViewMatchesVerilogTwinEveryCycleAndABugIsCaught) {
  for (const auto& [bytes, tbs] : {std::pair{8192u, 16u}, std::pair{16384u, 32u}}) {
    OperandLogParams p;
    p.bytes = bytes;
    p.max_tbs = tbs;
    OperandLogPinView model(1, p);
    auto rtl = make_twin<OperandLogBus>("operand_log", "operand_log", operand_log_twin_params(p));
    uint64_t refused = 0, at_share = 0, taken = 0;
    auto drive = [&](OperandLogBus& b, std::mt19937_64& g, uint64_t c) { drive_log(b, g, c, p); };
    const Result r = cosim<OperandLogBus>(model, *rtl, 20000, 23, drive, [&](const OperandLogBus& b) {
      refused += b.resp_valid && b.resp_error;
      at_share += b.resp_valid && !b.resp_error && b.resp_share > 0 && b.resp_used == b.resp_share;
      taken += b.resp_valid && b.resp_taken;
    });
    EXPECT_EQ(r.mismatches, 0u) << bytes << " B: " << r.first;
    EXPECT_GT(refused, 1000u);
    EXPECT_GT(at_share, 100u);  // TBs used their whole share
    EXPECT_GT(taken, 100u);
    expect_injected_bug_caught<OperandLogBus, OperandLogPinView>(p, "operand_log", operand_log_twin_params(p), 23, drive);
  }
}

TEST(TwinCosim, RunningTbStatusPinViewMatchesVerilogTwinEveryCycleAndABugIsCaught) {
  for (uint32_t slots : {16u, 32u}) {
    DualKernelParams p;
    p.tb_slots = slots;
    RunningTbStatusPinView model(1, p);
    auto rtl = make_twin<RunningTbStatusBus>("running_tb_status", "running_tb_status", running_tb_status_twin_params(p));
    uint64_t refused = 0, flushable = 0, counted = 0;
    auto drive = [&](RunningTbStatusBus& b, std::mt19937_64& g, uint64_t) {
      const int x = static_cast<int>(g() % 100);
      b.req_op = x < 20 ? 0 : x < 40 ? 1 : x < 90 ? 2 : 3;
      b.req_valid = g() % 10 != 0;
      b.req_slot = g() % (slots + 2);
      b.req_idempotent = g() % 2;
      // Mostly small counts and cycles; sometimes one too wide for 32 bits, or one near 2^64.
      const int w = static_cast<int>(g() % 50);
      b.req_value = w == 0 ? ~uint64_t{0} - g() % 4 : w < 3 ? (uint64_t{1} << 32) + g() % 8 : w < 6 ? (uint64_t{1} << 31) + g() % 1000 : g() % 5000;
    };
    const Result r = cosim<RunningTbStatusBus>(model, *rtl, 20000, 29, drive, [&](const RunningTbStatusBus& b) {
      refused += b.resp_valid && b.resp_error;
      flushable += b.resp_valid && !b.resp_error && b.resp_flush;
      counted += b.resp_valid && !b.resp_error && b.resp_executed > 5000;
    });
    EXPECT_EQ(r.mismatches, 0u) << slots << " slots: " << r.first;
    EXPECT_GT(refused, 1000u);  // bad slots, wide cycles, counts past 32 bits
    EXPECT_GT(flushable, 1000u);
    EXPECT_GT(counted, 1000u);
    expect_injected_bug_caught<RunningTbStatusBus, RunningTbStatusPinView>(p, "running_tb_status",
                                                                          running_tb_status_twin_params(p), 29, drive);
  }
}

namespace {

// A memory-bound vector update, two waves of small TBs on any bundled GPU: loads and stores in
// flight from every warp, so both tables fill and drain.
const char* kVectorUpdate = R"(name: vu
policy: fcfs
kernels:
  k:
    grid: 400
    threads_per_tb: 128
    registers_per_thread: 12
    program:
      body:
        - loop: 4
          body:
            - {op: ld.global, dst: r1, src: [r5], addr: {base: 0x10000000, gtid: 4, iter: 204800}}
            - {op: ld.global, dst: r2, src: [r6], addr: {base: 0x20000000, gtid: 4, iter: 204800}}
            - {op: sp, dst: r3, src: [r1, r2]}
            - {op: st.global, src: [r3, r7], addr: {base: 0x30000000, gtid: 4, iter: 204800}}
processes:
  - name: p
    launches:
      - {kernel: k}
)";

// One SM holding 2 TBs of 1024 threads; every TB first writes a 64 KB chunk of a lazy heap (one
// fault each, handled on the GPU), then computes: block switching takes the faulted TBs' entries.
const char* kFaulting = R"(name: bs
policy: fcfs
kernels:
  k:
    grid: 8
    threads_per_tb: 1024
    registers_per_thread: 16
    program:
      body:
        - {op: st.global, src: [r1], addr: {base: 0x80000000, tb: 65536, tid: 4}}
        - {op: ld.global, dst: r2, src: [r1], addr: {base: 0x10000000, gtid: 4}}
        - loop: 16
          body:
            - {op: fma, dst: r2, src: [r2, r1]}
processes:
  - name: p
    memory:
      allocations:
        - {name: heap, va: 0x80000000, bytes: 16777216, placement: lazy}
        - {name: in, va: 0x10000000, bytes: 65536}
    launches:
      - {kernel: k}
)";

struct RunResult {
  int exit_code;
  std::string output;
  json stats;
};

RunResult run(const TempDir& d, const std::string& platform, const std::string& workload, const std::string& sets) {
  static int n = 0;
  const std::string out = (d.path / ("o" + std::to_string(n++))).string();
  auto r = run_mpgpu("run --platform " + source_path("platforms/" + platform + ".yaml") + " --workload " + workload +
                     " --out " + out + " --jobs 1 --set sm.fault_organization=operand_log"
                     " --set extensions.operand_log_bytes=16384 " + sets);
  json s;
  if (r.exit_code == 0) std::ifstream(out + "/stats.json") >> s;
  return {r.exit_code, r.output, s};
}

json comparable(json s) {  // without host figures and the switch itself
  s.erase("host");
  s["config"]["platform"]["content"].erase("extensions");
  return s;
}

std::string tables(const std::string& impl, const std::string& more = "") {
  return "--set extensions.replay_queue.impl=" + impl + " --set extensions.operand_log.impl=" + impl + " " + more;
}

uint64_t cycles_of(const json& s) { return s["sim"]["cycles"].get<uint64_t>(); }

}  // namespace

TEST(LinkedSmTables, EveryPlatformsTwinsGiveTheCoreRunsStats) {
  TempDir d;
  const std::string w = d.write("vu.yaml", kVectorUpdate);
  for (const std::string p : {"gtx1080", "gtx1080_accelsim", "gtx480", "k20c", "rtx2060", "sixteen_sm", "titanv"}) {
    const RunResult core = run(d, p, w, ""), verilog = run(d, p, w, tables("verilog"));
    ASSERT_EQ(core.exit_code, 0) << p << ": " << core.output;
    ASSERT_EQ(verilog.exit_code, 0) << p << ": " << verilog.output;
    EXPECT_EQ(comparable(core.stats), comparable(verilog.stats)) << p;
    for (const char* t : {"replay_queue", "operand_log"}) {
      const json& c = verilog.stats["host"]["cosim"][t];
      EXPECT_EQ(c["impl"], "verilog") << p << " " << t;
      EXPECT_EQ(c["instances"], core.stats["config"]["platform"]["content"]["sm"]["count"]) << p << " " << t;
      EXPECT_EQ(c["cycles"], c["accesses"]) << p << " " << t;  // one cycle each
      // Every global memory instruction issues into the queue, then commits: at least two per warp one.
      EXPECT_GT(c["accesses"].get<uint64_t>(), 400u * 4 * 4) << p << " " << t;
    }
  }
}

// Faulted TBs switched out take their squashed entries over the pins, and bring them back.
TEST(LinkedSmTables, ContextSwitchOfFaultedTbsGivesTheCoreRunsStats) {
  TempDir d;
  const std::string w = d.write("bs.yaml", kFaulting);
  const std::string bs = "--set sm.count=1 --set fill_unit.fault.lazy_pages=gpu --set sm.block_switching.enabled=true "
                         "--set sm.block_switching.extra_tbs=2";
  const RunResult core = run(d, "sixteen_sm", w, bs), verilog = run(d, "sixteen_sm", w, tables("verilog", bs));
  ASSERT_EQ(verilog.exit_code, 0) << verilog.output;
  EXPECT_EQ(comparable(core.stats), comparable(verilog.stats));
  EXPECT_GT(core.stats["sms"][0]["block_switching"]["switched_out"].get<uint64_t>(), 0u) << core.stats["sms"][0];
}

// Latency in the loop: a core and a pin view of the same latency give the same run, and a table
// that takes L cycles to answer holds the ld/st unit for L cycles per memory instruction: with
// L = 40 the 19200 global memory instructions (400 TBs x 4 warps x 4 x 3) need at least
// 40 x 1200 cycles on the busiest of the 16 SMs, and not much more than that plus the run at L = 1.
TEST(LinkedSmTables, ASlowerTableHoldsTheLdStUnit) {
  TempDir d;
  const std::string w = d.write("vu.yaml", kVectorUpdate);
  const RunResult one = run(d, "sixteen_sm", w, "");
  const RunResult core6 = run(d, "sixteen_sm", w, "--set extensions.replay_queue.latency_cycles=6");
  const RunResult pins6 = run(d, "sixteen_sm", w, "--set extensions.replay_queue.impl=pins --set extensions.replay_queue.latency_cycles=6");
  ASSERT_EQ(pins6.exit_code, 0) << pins6.output;
  EXPECT_EQ(comparable(core6.stats), comparable(pins6.stats));
  EXPECT_GT(cycles_of(core6.stats), cycles_of(one.stats));
  const RunResult core40 = run(d, "sixteen_sm", w, "--set extensions.replay_queue.latency_cycles=40");
  EXPECT_GE(cycles_of(core40.stats), 40u * 1200);
  EXPECT_LE(cycles_of(core40.stats), 40u * 1200 + cycles_of(one.stats));
  const json& c = pins6.stats["host"]["cosim"]["replay_queue"];
  EXPECT_EQ(c["cycles"], 6 * c["accesses"].get<uint64_t>());
  const RunResult log_pins1 = run(d, "sixteen_sm", w, "--set extensions.operand_log.impl=pins");
  EXPECT_EQ(comparable(one.stats), comparable(log_pins1.stats));
}

TEST(LinkedSmTables, VcdAndReportAndBadInput) {
  TempDir d;
  const std::string vcd = (d.path / "t.vcd").string();
  const RunResult r = run(d, "sixteen_sm", d.write("vu.yaml", kVectorUpdate), tables("verilog", "--vcd " + vcd));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string text = mpgpu::test::read_file(vcd);
  for (const char* scope : {"$scope module replay_queue0 $end", "$scope module operand_log15 $end"})
    EXPECT_NE(text.find(scope), std::string::npos) << scope;

  const std::string plat = "--platform " + source_path("platforms/gtx480.yaml");
  auto report = run_mpgpu("report " + plat + " --set sm.fault_organization=operand_log " + tables("verilog") + " --format json");
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const json rows = json::parse(report.output.substr(report.output.find('{')))["extensions"];
  for (const auto& row : rows)
    if (row["name"] == "replay_queue" || row["name"] == "operand_log") {
      EXPECT_EQ(row["impl"], "verilog") << row;
      EXPECT_EQ(row["latency_cycles"], 1) << row;
    }
  // Under stall_on_fault there is no replay queue to link; a table without the platform's widths.
  auto idle = run_mpgpu("validate " + plat + " --set extensions.replay_queue.impl=verilog");
  EXPECT_EQ(idle.exit_code, 2);
  EXPECT_NE(idle.output.find("extensions.replay_queue.impl: the replay_queue is used under sm.fault_organization "
                             "replay_queue or operand_log; this platform's is stall_on_fault"),
            std::string::npos)
      << idle.output;
  auto wide = run_mpgpu("validate " + plat + " --set sm.fault_organization=replay_queue --set extensions.replay_queue_entries=100 " +
                        "--set extensions.replay_queue.impl=verilog");
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_NE(wide.output.find("extensions.replay_queue.impl: no Verilog twin 'replay_queue' of the replay_queue is built for "
                             "this platform's E=100 WB=6 PCB=32"),
            std::string::npos)
      << wide.output;
}
