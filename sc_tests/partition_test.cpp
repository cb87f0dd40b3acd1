// Known-answer tests of SPEC 6 partitioning: page colours per page size, coloured address spaces
// (every line of every page, data and page table, in the partition's modules; two partitions
// never share an L2 set or DRAM bank), compute partitions (TBs only on the partition's SMs),
// the MPS-style thread limit, per-partition statistics and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "common/address_map.hpp"
#include "fill_unit/frame_allocator.hpp"
#include "fill_unit/memory_manager.hpp"
#include "platform/platform_config.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using namespace mpgpu::test;
using nlohmann::json;

namespace {
const std::string kDriverPolicies =
    " --set 'mechanisms.policies=[fcfs, npq, ppq_exclusive]' --set 'mechanisms.preemption=[context_switch]'";
std::string platform(const std::string& name) { return source_path("platforms/" + name + ".yaml"); }

size_t colours(const std::string& name, uint64_t page) {
  const PlatformConfig cfg = load_platform(platform(name));
  const AddressMap map(cfg.address_map);
  return FrameAllocator(uint64_t{1} << 30, page, map).colours().size();
}
}  // namespace

// GTX 1080 (module = b0..b2 of SPEC 6): bits 10 and 11 inside a 4 KB page leave one module bit
// to the frame, 2 colours; at 8 KB bit 12 joins them, 1 colour. TITAN V-like (256 B chunks over
// 48 slices): a 4 KB page covers 16 consecutive slices, 3 colours; 64 KB pages cover all, 1.
TEST(PageColours, FollowFromPageSizeAndAddressMap) {
  EXPECT_EQ(colours("gtx1080", 4096), 2u);
  EXPECT_EQ(colours("gtx1080", 8192), 1u);
  EXPECT_EQ(colours("gtx1080", 65536), 1u);
  EXPECT_EQ(colours("titanv", 4096), 3u);
  EXPECT_EQ(colours("titanv", 65536), 1u);
}

// Two contexts coloured 0 and 1 on GTX 1080: every line of every resident page and of every
// page-table node decodes to the context's own modules; their (slice, set) and (module, bank)
// sets are disjoint.
TEST(PageColours, ColouredContextsUseOnlyTheirModules) {
  const PlatformConfig cfg = load_platform(platform("gtx1080"));
  const AddressMap map(cfg.address_map);
  MemoryManager mm({4096, uint64_t{1} << 30}, map);
  const auto cols = mm.frames().colours();
  ASSERT_EQ(cols.size(), 2u);
  std::set<std::pair<uint32_t, uint32_t>> sets[2], banks[2];
  for (int c = 0; c < 2; ++c) {
    AddressSpaceDesc d;
    d.allowed_modules = cols[c];
    d.allocations = {{"data", 0x10000000, 300 * 4096, Placement::device, "test"}};
    const uint32_t ctx = mm.create_context(d);
    std::vector<uint64_t> pages;
    for (uint64_t vpn = 0x10000; vpn < 0x10000 + 300; ++vpn) {
      pages.push_back(*mm.frame_of(ctx, vpn) * 4096);
      const PageWalk w = mm.walk(ctx, vpn);
      for (uint32_t i = 0; i < w.reads; ++i) pages.push_back(w.pte_address[i] / 4096 * 4096);
    }
    for (uint64_t base : pages)
      for (uint64_t off = 0; off < 4096; off += 128) {
        const DecodedAddress a = map.decode(base + off);
        ASSERT_TRUE(cols[c] >> a.partition & 1) << "context " << c << " line " << std::hex << base + off;
        sets[c].insert({a.partition, a.set});
        banks[c].insert({a.partition, a.bank});
      }
  }
  for (const auto& s : sets[0]) EXPECT_FALSE(sets[1].count(s));
  for (const auto& b : banks[0]) EXPECT_FALSE(banks[1].count(b));
}

namespace {
// Two processes streaming through their own data, one kernel name each, on GTX 1080.
std::string stream_workload(const std::string& partitions, const std::string& p1, const std::string& p2) {
  const std::string kernel =
      "    grid: 80\n    threads_per_tb: 256\n    registers_per_thread: 16\n    program:\n      body:\n"
      "        - loop: 8\n          body:\n"
      "            - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4, iter: 2621440}}\n"
      "            - {op: fma, dst: r2, src: [r1, r2]}\n"
      "        - {op: st.global, src: [r2], addr: {base: 0x40000000, gtid: 4}}\n";
  return "name: parts\npolicy: fcfs\nkernels:\n  ka:\n" + kernel + "  kb:\n" + kernel + partitions +
         "processes:\n  - {name: A, " + p1 + "launches: [{kernel: ka}]}\n  - {name: B, " + p2 +
         "launches: [{kernel: kb}]}\n";
}
const char* kHalves =
    "partitions:\n"
    "  - {name: P1, sms: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]COL1}\n"
    "  - {name: P2, sms: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]COL2}\n";
std::string halves(bool coloured) {
  std::string s = kHalves;
  s.replace(s.find("COL1"), 4, coloured ? ", colours: [0]" : "");
  s.replace(s.find("COL2"), 4, coloured ? ", colours: [1]" : "");
  return s;
}
json run(const TempDir& d, const std::string& name, const std::string& text, const std::string& extra = "") {
  const auto wl = d.write(name + ".yaml", text);
  const auto out = d.path / name;
  const auto r = run_mpgpu("run --platform " + platform("gtx1080") + " --workload " + wl + " --out " + out.string() +
                           " --timeline " + (out / "tl.json").string() + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  json s = json::parse(std::ifstream(out / "stats.json"));
  s["_timeline"] = json::parse(std::ifstream(out / "tl.json"));
  return s;
}
// The TB spans etc. of run()'s timeline (a trace-event object or a bare array).
const json& timeline_events(const json& s) {
  return s["_timeline"].is_object() ? s["_timeline"]["traceEvents"] : s["_timeline"];
}
}  // namespace

// CP: process A's TBs run only on SMs 0..9, B's only on 10..19 (from the timeline's TB spans).
// CMP: no line or open row of one partition is displaced by the other; CP alone shares modules.
TEST(PartitionRun, ComputeAndMemoryPartitionsIsolate) {
  TempDir d;
  for (bool coloured : {false, true}) {
    const json s = run(d, coloured ? "cmp" : "cp", stream_workload(halves(coloured), "partition: P1, ", "partition: P2, "));
    const json& ev = timeline_events(s);
    size_t spans = 0;
    for (const auto& e : ev) {
      if (e.value("ph", "") != "X" || e.value("pid", 0) < 100) continue;
      const int sm = e["pid"].get<int>() - 100;
      const std::string name = e["name"];
      if (name.rfind("ka ", 0) == 0) {
        EXPECT_LT(sm, 10) << name;
        ++spans;
      }
      if (name.rfind("kb ", 0) == 0) {
        EXPECT_GE(sm, 10) << name;
        ++spans;
      }
    }
    EXPECT_EQ(spans, 160u);
    const json& p = s["partitions"];
    ASSERT_EQ(p.size(), 2u);
    uint64_t displaced = 0;
    for (const auto& part : p)
      displaced += part["l2_lines_evicted_by_others"].get<uint64_t>() + part["dram_rows_closed_by_others"].get<uint64_t>();
    if (coloured) {
      EXPECT_EQ(displaced, 0u);
      EXPECT_EQ(p[0]["modules"], json({0, 1, 2, 3}));
      EXPECT_EQ(p[1]["modules"], json({4, 5, 6, 7}));
      EXPECT_GT(p[0]["pages"].get<uint64_t>(), 0u);
    } else {
      EXPECT_GT(displaced, 0u);  // both stream through every module
    }
  }
}

// MPS-style share: thread_limit 0.5 of 2048 threads keeps at most 4 TBs of 256 threads per SM
// (8 fit otherwise: grid 160 over 20 SMs).
TEST(PartitionRun, ThreadLimitCapsResidentTbsPerSm) {
  TempDir d;
  const std::string parts = "partitions:\n  - {name: M, thread_limit: 0.5}\n";
  std::string w = stream_workload(parts, "partition: M, ", "partition: M, ");
  w.replace(w.find("grid: 80"), 8, "grid: 160");
  const json s = run(d, "mps", w);
  uint32_t peak = 0;
  for (const auto& sm : s["sms"]) peak = std::max(peak, sm["peak_resident_tbs"].get<uint32_t>());
  EXPECT_EQ(peak, 4u);
  const json u = run(d, "free", stream_workload("", "", ""));
  uint32_t free_peak = 0;
  for (const auto& sm : u["sms"]) free_peak = std::max(free_peak, sm["peak_resident_tbs"].get<uint32_t>());
  EXPECT_GT(free_peak, 4u);
}

// A coloured partition whose colour runs out of frames at run time: the kernel aborts (exit 3)
// naming the exhaustion (1 MiB of device memory: 128 frames per colour, the kernel needs more).
TEST(PartitionRun, ColourExhaustedAtRunTimeAborts) {
  TempDir d;
  const auto wl = d.write("w.yaml", stream_workload(halves(true), "partition: P1, ", "partition: P2, "));
  const auto r = run_mpgpu("run --platform " + platform("gtx1080") + " --workload " + wl + " --out " +
                           (d.path / "o").string() + " --set fill_unit.device_memory_bytes=1048576");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("device memory exhausted"), std::string::npos) << r.output;
}

// Bad partitions: exit 2 naming file:line:col, nothing written.
TEST(PartitionRun, BadPartitionsAreRejected) {
  TempDir d;
  auto expect_rejected = [&](const std::string& text, const std::string& what, const std::string& extra = "") {
    const auto out = d.path / ("o" + std::to_string(std::hash<std::string>{}(what)));
    const auto r = run_mpgpu("run --platform " + platform("gtx1080") + " --workload " + d.write("bad.yaml", text) +
                             " --out " + out.string() + extra);
    EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\.yaml:\d+:\d+)"))) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out / "stats.json")) << what;
  };
  const std::string a = "partition: P1, ", b = "partition: P2, ";
  std::string overlap = halves(false);
  overlap.replace(overlap.find("[10, 11"), 7, "[9, 11");
  expect_rejected(stream_workload(overlap, a, b), "shares SMs with partition 'P1'");
  std::string colour = halves(true);
  colour.replace(colour.find("colours: [1]"), 12, "colours: [2]");
  expect_rejected(stream_workload(colour, a, b), "colour 2 does not exist: 4096 B pages on platform 'gtx1080' give 2");
  expect_rejected(stream_workload(halves(true), a, b), "give 1 colour(s)", " --set fill_unit.page_bytes=65536");
  std::string sm = halves(false);
  sm.replace(sm.find("19]"), 3, "20]");
  expect_rejected(stream_workload(sm, a, b), "SM 20 does not exist");
  expect_rejected(stream_workload(halves(false), a, "partition: P3, "), "no partition named 'P3'");
  expect_rejected(stream_workload(halves(false), a, ""), "is in no partition and every SM belongs to one");
  std::string npq = stream_workload("partitions:\n  - {name: P1, thread_limit: 0.5}\n  - {name: P2, thread_limit: 0.5}\n", a, b);
  npq.replace(npq.find("policy: fcfs"), 12, "policy: npq");
  expect_rejected(npq, "thread_limit (an MPS-style share of each SM) needs policy fcfs", kDriverPolicies);
}

namespace {
// TB-level PPQ (exclusive, context switch) with compute partitions: P1 = SMs 0..9 runs process
// `low`; P2 = SMs 10..19 runs `other` and, from 2 us, the high-priority `high`. Each partition's
// framework schedules only its SMs, so `high` preempts only P2's SMs and `low` runs exactly as
// it does without `high` (unpartitioned, exclusive PPQ would preempt and hold back `low` too).
std::string ppq_workload(bool partitioned, bool with_high) {
  std::string w = R"(name: ppq_parts
policy: ppq_exclusive
preemption: context_switch
kernels:
  lo: {grid: 160, threads_per_tb: 256, registers_per_tb: 4096, tb_time: {kind: fixed, mean_cycles: 4000}}
  hi: {grid: 20, threads_per_tb: 1024, registers_per_tb: 16384, tb_time: {kind: fixed, mean_cycles: 1000}}
)";
  if (partitioned)
    w += "partitions:\n  - {name: P1, sms: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}\n"
         "  - {name: P2, sms: [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]}\n";
  const std::string p1 = partitioned ? "partition: P1, " : "", p2 = partitioned ? "partition: P2, " : "";
  w += "processes:\n  - {name: low, " + p1 + "launches: [{kernel: lo}]}\n  - {name: other, " + p2 +
       "launches: [{kernel: lo}]}\n";
  if (with_high) w += "  - {name: high, priority: 1, arrival_us: 2, " + p2 + "launches: [{kernel: hi}]}\n";
  return w;
}
double kernel_end(const json& s, const std::string& process) {
  for (const auto& k : s["kernels"])
    if (k["process"] == process) return k["end_ns"].get<double>();
  ADD_FAILURE() << "no kernel of " << process;
  return 0;
}
}  // namespace

TEST(PartitionRun, DriverPoliciesScheduleEachPartitionOnItsOwnSms) {
  TempDir d;
  const json alone = run(d, "alone", ppq_workload(true, false), kDriverPolicies);
  const json both = run(d, "both", ppq_workload(true, true), kDriverPolicies);
  const json& pre = both["scheduling"]["preemption_list"];
  ASSERT_GT(pre.size(), 0u);
  for (const auto& p : pre) EXPECT_GE(p["sm"].get<int>(), 10) << p.dump();
  EXPECT_DOUBLE_EQ(kernel_end(both, "low"), kernel_end(alone, "low"));
  EXPECT_GT(kernel_end(both, "other"), kernel_end(alone, "other"));
  const json& ev = timeline_events(both);
  size_t hi_spans = 0;
  for (const auto& e : ev)
    if (e.value("ph", "") == "X" && e.value("pid", 0) >= 100 && e["name"].get<std::string>().rfind("hi ", 0) == 0) {
      EXPECT_GE(e["pid"].get<int>() - 100, 10);
      ++hi_spans;
    }
  EXPECT_EQ(hi_spans, 20u);
  // The same workload without partitions: `low` owns SMs that `high` takes (and exclusive PPQ
  // holds its other TBs back meanwhile), so it ends later.
  const json open = run(d, "open", ppq_workload(false, true), kDriverPolicies);
  EXPECT_GT(open["scheduling"]["preemptions"].get<int>(), 0);
  EXPECT_GT(kernel_end(open, "low"), kernel_end(alone, "low"));
}
