// Flushing (SPEC 4, relaxed idempotence) on the tiny platform (1 ns cycles): which TBs may be
// flushed, what a flush costs and wastes, the fallback for the others, and restarts, through
// the full SystemC model; at TB level (idempotent fraction) and at warp level (the pipeline
// tracks atomics and global stores per TB).
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "platform/simulation.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;
using nlohmann::json;

namespace {

// A low-priority kernel filling both SMs (4 TBs each, 10000 cycles, 10000 instructions each) and
// a high-priority kernel needing one SM, arriving at 1 us: the request reaches the SM at 1002 ns
// (arrival + 2 cycles of SMST search). The low TBs started at 4 ns (launch and dispatch), so
// each has run 998 cycles then.
std::string workload(const std::string& idempotent, const std::string& fallback) {
  return "policy: ppq_exclusive\npreemption: flush\n" + (fallback.empty() ? "" : "flush_fallback: " + fallback + "\n") +
         R"(kernels:
  lo: {grid: 8, threads_per_tb: 128, registers_per_tb: 2048, shared_mem_per_tb: 960, idempotent: )" + idempotent +
         R"(, instructions_per_tb: 10000, tb_time: {kind: fixed, mean_cycles: 10000}}
  hi: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}
processes:
  - {name: low, launches: [{kernel: lo}]}
  - {name: high, priority: 1, arrival_us: 1, launches: [{kernel: hi}]}
)";
}

PlatformConfig tiny() {
  return load_platform(source_path("sc_tests/data/tiny.yaml"),
                       {{"mechanisms.policies", "[fcfs, ppq_exclusive]"},
                        {"mechanisms.preemption", "[context_switch, draining, flush]"}});
}

json simulate(const std::string& text) {
  TempDir d;
  PlatformConfig cfg = tiny();
  WorkloadDesc w = load_workload(d.write("w.yaml", text));
  resolve_workload(cfg, w);
  SimRequest r;
  r.processes = {0, 1};
  return simulate_here(cfg, w, r);
}

std::string resolve_error(const std::string& text) {
  TempDir d;
  PlatformConfig cfg = tiny();
  try {
    WorkloadDesc w = load_workload(d.write("w.yaml", text));
    resolve_workload(cfg, w);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const json& kernel(const json& r, const std::string& name) {
  for (const auto& k : r["kernels"])
    if (k["name"] == name) return k;
  throw std::runtime_error("no kernel " + name);
}

}  // namespace

// Every low TB is idempotent throughout: the SM drops all four at the request (latency 0), each
// losing the 998 cycles and 998 of its 10000 instructions it had run; no context moves; they
// come back from the PTBQ as new TBs and run their whole 10000 cycles again.
TEST(Flush, IdempotentTbsAreDroppedAtOnceAndRestartFromTheBeginning) {
  json r = simulate(workload("true", ""));
  const auto& s = r["scheduling"];
  ASSERT_EQ(s["preemptions"], 1);
  const auto& p = s["preemption_list"][0];
  EXPECT_DOUBLE_EQ(p["request_ns"].get<double>(), 1002.0);
  EXPECT_DOUBLE_EQ(p["latency_ns"].get<double>(), 0.0);
  ASSERT_EQ(p["tbs"].size(), 4u);
  for (const auto& t : p["tbs"]) {
    EXPECT_EQ(t["technique"], "flush");
    EXPECT_EQ(t["kernel"], "lo");
    EXPECT_EQ(t["wasted_cycles"], 998);
    EXPECT_EQ(t["wasted_instructions"], 998);
    EXPECT_EQ(t["bytes"], 0);
  }
  EXPECT_EQ(s["bytes_saved"], 0);
  EXPECT_EQ(s["tbs_saved"], 0);
  EXPECT_EQ(s["flush"]["tbs_flushed"], 4);
  EXPECT_EQ(s["flush"]["tbs_restarted"], 4);
  EXPECT_EQ(s["flush"]["wasted_instructions"], 4 * 998);
  // The high-priority kernel starts on the freed SM at the request; the restarted TBs run
  // from scratch after it, so the low kernel ends a whole TB time after they restart.
  EXPECT_DOUBLE_EQ(kernel(r, "hi")["start_ns"].get<double>(), 1002.0);
  const double hi_end = kernel(r, "hi")["end_ns"].get<double>();
  EXPECT_GE(kernel(r, "lo")["end_ns"].get<double>(), hi_end + 10000.0);
}

// The idempotent fraction places the TB's first non-idempotent instruction: at 998 of 10000
// cycles (0.0998) the TBs have reached it at the request and take the fallback (a context
// switch here); one cycle later (0.0999) they are still idempotent and are flushed.
TEST(Flush, TbsPastTheirFirstNonIdempotentInstructionTakeTheFallback) {
  json past = simulate(workload("0.0998", "context_switch"));
  const auto& ps = past["scheduling"];
  EXPECT_EQ(ps["flush"]["tbs_flushed"], 0);
  EXPECT_EQ(ps["tbs_saved"], 4);
  for (const auto& t : ps["preemption_list"][0]["tbs"]) {
    EXPECT_EQ(t["technique"], "switch");
    EXPECT_EQ(t["bytes"], 2048 * 4 + 960 + 64);  // registers, shared memory, TB state
  }
}

TEST(Flush, TbsBeforeTheirFirstNonIdempotentInstructionAreFlushed) {
  json before = simulate(workload("0.0999", "context_switch"));
  EXPECT_EQ(before["scheduling"]["flush"]["tbs_flushed"], 4);
  EXPECT_EQ(before["scheduling"]["tbs_saved"], 0);
}

// Draining as the fallback: the non-idempotent TBs stay and finish; the SM is free when the
// last of them ends, and the preemption lists them as drained.
TEST(Flush, DrainingFallbackKeepsTheTbsThatCannotBeFlushed) {
  json r = simulate(workload("false", "draining"));
  const auto& p = r["scheduling"]["preemption_list"][0];
  EXPECT_EQ(r["scheduling"]["flush"]["tbs_flushed"], 0);
  ASSERT_EQ(p["tbs"].size(), 4u);
  for (const auto& t : p["tbs"]) EXPECT_EQ(t["technique"], "drain");
  EXPECT_DOUBLE_EQ(p["done_ns"].get<double>(), 10004.0);  // started at 4 ns, 10000 cycles
}

// Flushing needs a fallback as soon as a kernel can lose its idempotence; a fallback without
// flushing is a mistake too. Both are input errors naming where.
TEST(Flush, NonIdempotentKernelWithoutFallbackIsRefusedWithItsLocation) {
  const std::string e = resolve_error(workload("0.5", ""));
  EXPECT_NE(e.find("w.yaml:4:7: kernel 'lo' can lose its idempotence (idempotent below 1)"), std::string::npos) << e;
  EXPECT_NE(e.find("w.yaml:2:13: preemption needs flush_fallback: draining or context_switch"), std::string::npos) << e;
  const std::string f = resolve_error("policy: ppq_exclusive\npreemption: draining\nflush_fallback: draining\n"
                                      "kernels:\n  k: {grid: 1, threads_per_tb: 32, registers_per_tb: 0, tb_time: "
                                      "{kind: fixed, mean_cycles: 1}}\nprocesses:\n  - {name: p, launches: [{kernel: k}]}\n");
  EXPECT_NE(f.find("w.yaml:3:17: flush_fallback: flush_fallback is for preemption: flush"), std::string::npos) << f;
  EXPECT_NE(resolve_error(workload("1.5", "draining")).find("idempotent"), std::string::npos);
  // An unknown technique, as the mechanism or as the fallback: located, naming the bad value.
  std::string bad = workload("1", "draining");
  bad.replace(bad.find("preemption: flush"), 17, "preemption: flsh");
  const std::string m = resolve_error(bad);
  EXPECT_NE(m.find("w.yaml:2:13"), std::string::npos) << m;
  EXPECT_NE(m.find("flsh"), std::string::npos) << m;
  const std::string fb = resolve_error(workload("0.5", "switch"));
  EXPECT_NE(fb.find("w.yaml:3:17"), std::string::npos) << fb;
  EXPECT_NE(fb.find("switch"), std::string::npos) << fb;
}

// Warp level: the pipeline clears a TB's flush bit when it issues a global store. With the store
// after a long compute loop, every TB is flushed at the request, losing what it issued (GTO
// lets the two older TBs issue about 1000 instructions each by then; the younger two none). With
// the store first, a TB that issued anything has stored: only TBs that issued nothing are
// flushed, the others are switched out (the fallback).
namespace {
std::string warp_workload(bool store_first) {
  const std::string store = "        - {op: st.global, src: [r1], addr: {base: 0x80000000, tb: 65536, tid: 4}}\n";
  const std::string loop = "        - loop: 4000\n          body:\n            - {op: fma, dst: r2, src: [r2, r1]}\n";
  return "policy: ppq_exclusive\npreemption: flush\nflush_fallback: context_switch\nkernels:\n"
         "  lo:\n    grid: 8\n    threads_per_tb: 128\n    registers_per_thread: 16\n    program:\n      body:\n" +
         (store_first ? store + loop : loop + store) +
         "  hi: {grid: 4, threads_per_tb: 128, registers_per_tb: 2048, tb_time: {kind: fixed, mean_cycles: 100}}\n"
         "processes:\n  - name: low\n    memory:\n      allocations:\n"
         "        - {name: heap, va: 0x80000000, bytes: 16777216}\n    launches: [{kernel: lo}]\n"
         "  - {name: high, priority: 1, arrival_us: 1, launches: [{kernel: hi}]}\n";
}
}  // namespace

TEST(Flush, WarpLevelTbsBeforeTheirFirstGlobalStoreAreFlushed) {
  json late = simulate(warp_workload(false));
  const auto& ls = late["scheduling"];
  ASSERT_GE(ls["preemptions"].get<int>(), 1);
  const auto& lt = ls["preemption_list"][0]["tbs"];
  ASSERT_EQ(lt.size(), 4u);
  uint64_t wasted = 0;
  for (const auto& t : lt) {
    EXPECT_EQ(t["technique"], "flush");
    wasted += t["wasted_instructions"].get<uint64_t>();
  }
  EXPECT_GT(lt[0]["wasted_instructions"].get<uint64_t>(), 900u);
  EXPECT_EQ(ls["flush"]["wasted_instructions"], wasted);
  EXPECT_EQ(ls["tbs_saved"], 0);
  EXPECT_EQ(ls["flush"]["tbs_restarted"], ls["flush"]["tbs_flushed"]);
  EXPECT_EQ(late["tbs_done"], 12);  // every TB of both kernels completes once
}

TEST(Flush, WarpLevelTbsPastTheirFirstGlobalStoreTakeTheFallback) {
  json early = simulate(warp_workload(true));
  const auto& es = early["scheduling"];
  ASSERT_GE(es["preemptions"].get<int>(), 1);
  int switched = 0;
  for (const auto& t : es["preemption_list"][0]["tbs"]) {
    if (t["technique"] == "flush") {
      EXPECT_EQ(t["wasted_instructions"], 0);  // issued nothing, so not its store
    } else {
      EXPECT_EQ(t["technique"], "switch");
      ++switched;
    }
  }
  EXPECT_GT(switched, 0);
  EXPECT_EQ(es["tbs_saved"], switched);
  EXPECT_EQ(early["tbs_done"], 12);
}
