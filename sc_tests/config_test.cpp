// Bad input classes: each fails with file:line:col, the key path and what was expected, exit 2,
// and no stats written.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "common/error.hpp"
#include "platform/platform_config.hpp"
#include "test_util.hpp"
#include "workload/workload.hpp"

using namespace mpgpu;
using mpgpu::test::run_mpgpu;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;

namespace {

std::string tiny_text() { return mpgpu::test::read_file(source_path("sc_tests/data/tiny.yaml")); }

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}

const char* kWorkload = R"(name: w
kernels:
  k:
    grid: 4
    threads_per_tb: 128
    registers_per_tb: 2048
    tb_time: {kind: fixed, mean_cycles: 100}
processes:
  - name: p
    launches:
      - {kernel: k}
)";

// Loads and expects a ConfigError whose message matches `pattern`.
void expect_platform_error(const std::string& text, const std::string& pattern) {
  TempDir d;
  const std::string file = d.write("p.yaml", text);
  try {
    load_platform(file);
    FAIL() << "no error for " << pattern;
  } catch (const ConfigError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(pattern))) << e.what();
  }
}

void expect_workload_error(const std::string& text, const std::string& pattern) {
  TempDir d;
  const std::string file = d.write("w.yaml", text);
  try {
    load_workload(file);
    FAIL() << "no error for " << pattern;
  } catch (const ConfigError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(pattern))) << e.what();
  }
}

}  // namespace

TEST(PlatformValidation, TinyPlatformLoads) {
  PlatformConfig c = load_platform(source_path("sc_tests/data/tiny.yaml"));
  EXPECT_EQ(c.sm.count, 2u);
  EXPECT_EQ(c.sm.shared_mem_default, 16u * 1024);
  EXPECT_DOUBLE_EQ(c.dram_peak_gbps(), 32.0);  // 1 channel x 8 B x 4 x 1000 MHz
}

TEST(PlatformValidation, UnknownKeyNamesFileLineAndKey) {
  // Line 11 of tiny.yaml is "  max_threads: 512"; the unknown key goes just before it.
  expect_platform_error(replace(tiny_text(), "  max_threads: 512", "  bogus_key: 1\n  max_threads: 512"),
                        R"(p\.yaml:11:3: sm\.bogus_key: unknown key 'bogus_key')");
}

TEST(PlatformValidation, MissingKey) {
  expect_platform_error(replace(tiny_text(), "  count: 2\n", ""),
                        R"(p\.yaml:\d+:\d+: sm: missing required key 'count')");
}

TEST(PlatformValidation, WrongType) {
  expect_platform_error(replace(tiny_text(), "  count: 2\n", "  count: two\n"),
                        R"(p\.yaml:10:10: sm\.count: expected an integer in \[1, 1024\], got "two")");
}

TEST(PlatformValidation, OutOfRange) {
  expect_platform_error(replace(tiny_text(), "  count: 2\n", "  count: 0\n"),
                        R"(p\.yaml:10:10: sm\.count: value 0 out of range)");
}

TEST(PlatformValidation, UnknownEnumValue) {
  expect_platform_error(replace(tiny_text(), "kind: pcie", "kind: usb"),
                        R"(host\.link\.kind: unknown value "usb": expected one of pcie, nvlink)");
}

TEST(PlatformValidation, DeclaredPeakBandwidthMustMatch) {
  expect_platform_error(replace(tiny_text(), "  latency_cycles: 50\n", "  latency_cycles: 50\n  peak_gbps: 64\n"),
                        R"(dram\.peak_gbps: declared 64.* gives 32)");
}

TEST(PlatformValidation, SetOverrideErrorNamesTheFlag) {
  try {
    load_platform(source_path("sc_tests/data/tiny.yaml"), {{"sm.count", "many"}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(std::regex_search(e.what(), std::regex(R"(--set sm\.count=many: sm\.count: expected an integer)")))
        << e.what();
  }
}

TEST(PlatformValidation, SetOverrideChangesValue) {
  PlatformConfig c = load_platform(source_path("sc_tests/data/tiny.yaml"), {{"sm.count", "7"}, {"workload.seed", "3"}});
  EXPECT_EQ(c.sm.count, 7u);
}

TEST(PlatformValidation, XorEquationCountMustMatchPartitions) {
  expect_platform_error(
      replace(tiny_text(), "address_map: {kind: interleave, interleave_bytes: 256}",
              "address_map: {kind: xor, partition_bits: [[8], [9]], set_bits: [[7],[8]], bank_bits: [[10],[11]]}"),
      R"(address_map\.partition_bits: expected log2\(2\) equations, got 2)");
}

// A key given twice: yaml-cpp keeps both and readers saw the first while the echoed config showed
// the last. Rejected with both places (issue 18, repro dup_key_workload.yaml).
TEST(WorkloadValidation, DuplicateKeyNamesBothPlaces) {
  expect_workload_error(replace(kWorkload, "    grid: 4\n", "    grid: 4\n    grid: 100000\n"),
                        R"(w\.yaml:5:5: duplicate key 'grid' \(first at 4:5\))");
  // The same key in two different maps is not a duplicate.
  TempDir d;
  EXPECT_NO_THROW(load_workload(d.write("w.yaml", replace(kWorkload, "name: w\n", "name: w\nseed: 1\n"))));
}

// grid_stride: a grid-stride loop's step, g bytes per thread x the grid's threads, added to iter;
// it follows the grid (as --set of the grid changes it). Out of range: the key is named.
TEST(WorkloadValidation, GridStrideFollowsTheGrid) {
  const std::string prog = replace(kWorkload, "    tb_time: {kind: fixed, mean_cycles: 100}\n",
                                   "    program:\n      body:\n        - loop: 2\n          body:\n"
                                   "            - {op: ld.global, dst: r1, addr: {base: 0x1000, gtid: 4, iter: 8, grid_stride: 4}}\n");
  TempDir d;
  for (const auto& [grid, step] : {std::pair{"4", 8 + 4 * 4 * 128}, {"40", 8 + 4 * 40 * 128}}) {
    const auto w = load_workload(d.write("w.yaml", replace(prog, "grid: 4", std::string("grid: ") + grid)));
    const auto& k = w.kernels.at(w.find_kernel("k"));
    ASSERT_TRUE(k.program) << grid;
    ASSERT_EQ(k.program->addresses.size(), 1u);
    EXPECT_EQ(k.program->addresses[0].iter, step) << grid;
  }
  expect_workload_error(replace(prog, "grid_stride: 4", "grid_stride: 0x10000000000"),
                        R"(w\.yaml:11:92: kernels\.k\.program\.body\[0\]\.body\[0\]\.addr\.grid_stride: grid_stride x the grid's 512 threads is out of range)");
  // 2^40 x 2^24 threads is 2^64: wrapped in 64 bits it would read as a step of 0.
  expect_workload_error(replace(replace(prog, "grid: 4", "grid: 131072"), "grid_stride: 4", "grid_stride: 0x10000000000"),
                        R"(grid_stride x the grid's 16777216 threads is out of range)");
}

// Integers as YAML 1.2 reads them: a leading zero is still decimal (010 was octal 8 while 09 was
// rejected), 0o is octal, 0x hexadecimal.
TEST(WorkloadValidation, IntegersAreYaml12) {
  TempDir d;
  for (const auto& [text, grid] : {std::pair{"010", 10u}, {"09", 9u}, {"0o10", 8u}, {"0x10", 16u}, {"+7", 7u}}) {
    const auto w = load_workload(d.write("w.yaml", replace(kWorkload, "grid: 4", std::string("grid: ") + text)));
    EXPECT_EQ(w.kernels.at(w.find_kernel("k")).grid, grid) << text;
  }
  expect_workload_error(replace(kWorkload, "grid: 4", "grid: 0o9"), R"(grid: expected an integer)");
  expect_workload_error(replace(kWorkload, "grid: 4", "grid: 99999999999999999999"), R"(grid: expected an integer)");
}

// --out is checked before simulating (issue 18 items 6, 9): one that cannot be made, or that holds a
// directory named stats.json, is exit 2; a run that fails leaves no stats.json of an earlier run.
TEST(CommandLine, OutputDirectoryCheckedAndStaleStatsRemoved) {
  const std::string base = "run --platform " + source_path("platforms/gtx1080.yaml") + " --workload " +
                           source_path("configs/default.yaml") + " --jobs 1 --out ";
  auto r = run_mpgpu(base + "/proc/mpgpu-no-such-dir");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--out /proc/mpgpu-no-such-dir: cannot create the directory"), std::string::npos) << r.output;
  TempDir d;
  std::filesystem::create_directories(d.path / "a" / "stats.json");
  r = run_mpgpu(base + (d.path / "a").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("stats.json there is a directory"), std::string::npos) << r.output;
  std::filesystem::create_directories(d.path / "b");
  d.write("b/stats.json", "{\"status\": \"completed\"}\n");  // an earlier run's result
  r = run_mpgpu(base + (d.path / "b").string() + " --tsp " + (d.path / "missing.json").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(d.path / "b" / "stats.json"));
}

TEST(CommandLine, DirectoryAsInputFileExit2) {
  const auto r = run_mpgpu("validate --platform " + source_path("platforms/k20c.yaml") + " --workload /tmp");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/tmp: cannot open file"), std::string::npos) << r.output;
}

TEST(WorkloadValidation, UnknownKernelInLaunch) {
  expect_workload_error(replace(kWorkload, "- {kernel: k}", "- {kernel: nope}"),
                        R"(w\.yaml:11:18: processes\[0\]\.launches\[0\]\.kernel: unknown kernel 'nope')");
}

TEST(WorkloadValidation, UnknownKey) {
  expect_workload_error(replace(kWorkload, "    grid: 4\n", "    grid: 4\n    gird: 5\n"),
                        R"(w\.yaml:5:5: kernels\.k\.gird: unknown key 'gird')");
}

TEST(WorkloadValidation, MissingTbTime) {
  expect_workload_error(replace(kWorkload, "    tb_time: {kind: fixed, mean_cycles: 100}\n", ""),
                        R"(w\.yaml:4:5: kernels\.k: missing required key 'tb_time')");
}

TEST(WorkloadValidation, UnknownPolicyListsChoices) {
  expect_workload_error(replace(kWorkload, "name: w\n", "name: w\npolicy: fastest\n"),
                        R"(policy: unknown value "fastest": expected one of fcfs, npq)");
}

TEST(CommandLine, TbThatNeverFitsFailsWithExit2AndNoStats) {
  TempDir d;
  const std::string w = d.write("w.yaml", replace(kWorkload, "registers_per_tb: 2048", "registers_per_tb: 9000"));
  const auto out = d.path / "out";
  auto r = run_mpgpu("run --platform " + source_path("sc_tests/data/tiny.yaml") + " --workload " + w + " --out " +
                     out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(w\.yaml:4:5: kernels\.k: a TB .* never fits an SM .*limited by registers)")))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(out / "stats.json"));
}

TEST(CommandLine, PolicyMustBeOfferedByThePlatform) {
  TempDir d;
  const std::string p = d.write("p.yaml", replace(tiny_text(), "policies: [fcfs]", "policies: [npq]"));
  const std::string w = d.write("w.yaml", kWorkload);
  auto r = run_mpgpu("validate --platform " + p + " --workload " + w);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("policy 'fcfs' is not among the mechanisms of platform 'tiny'"), std::string::npos) << r.output;
}

TEST(CommandLine, BadPlatformExit2AndNoStats) {
  TempDir d;
  const std::string p = d.write("p.yaml", replace(tiny_text(), "  count: 2\n", "  count: -1\n"));
  const std::string w = d.write("w.yaml", kWorkload);
  const auto out = d.path / "out";
  auto r = run_mpgpu("run --platform " + p + " --workload " + w + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("p.yaml:10:10: sm.count"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out / "stats.json"));
}

TEST(CommandLine, UnknownFlagExit2) {
  auto r = run_mpgpu("run --platfrom x.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(CommandLine, HelpExit0) {
  auto r = run_mpgpu("run --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--timeline"), std::string::npos);
}

TEST(CommandLine, MissingFileExit2) {
  auto r = run_mpgpu("validate --platform /nonexistent.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/nonexistent.yaml: cannot open file"), std::string::npos) << r.output;
}

TEST(CommandLine, YamlSyntaxErrorHasLocation) {
  TempDir d;
  const std::string p = d.write("p.yaml", "name: x\nsm: [1, 2\n");
  auto r = run_mpgpu("validate --platform " + p);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(p\.yaml:\d+:\d+: YAML syntax error)"))) << r.output;
}
