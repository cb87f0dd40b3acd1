// Mutation fuzzer over the inputs `mpgpu` reads (platform YAML, workload YAML with imports,
// Accel-Sim traces). Each case mutates one file of the seed corpus in sc_tests/data/fuzz/ and
// checks the documented exit contract of `validate` (README, exit codes): 0, or 2 with a message
// starting `file:line[:col]:` at a line that file has. Never a signal, never exit 1 (internal
// error), never a hang. Some accepted cases are also run, which must end 0 or 3 with a stats.json
// saying so, or 2 leaving no stats.json.
//
// A dictionary stage (every boundary value once per target) comes first, then random stacked
// mutations from a fixed seed, so that a red run is reproducible. For longer sessions outside
// ctest, MPGPU_FUZZ_SEED, MPGPU_FUZZ_CASES (random cases) and MPGPU_FUZZ_RUNS (simulations per
// target) override the defaults and MPGPU_FUZZ_LOG=FILE appends one line per case. Failing inputs
// are kept under /tmp/mpgpu_fuzz_failures/, each with a REPRODUCE.txt.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"

namespace fs = std::filesystem;
using mpgpu::test::read_file;
using mpgpu::test::source_path;
using mpgpu::test::TempDir;

namespace {

const char* kFailureRoot = "/tmp/mpgpu_fuzz_failures";
constexpr int kTimeoutSeconds = 10;
// Once a campaign has seen one hang, later ones are the same finding nine times out of ten: they
// get a shorter limit so that a known hang does not make the test ten times slower.
constexpr int kTimeoutAfterHangSeconds = 3;
constexpr int kRunEvery = 5;  // one accepted case in five is also simulated, and all that only moved numbers
constexpr int kMaxRuns = 6;     // per target file, to bound the runtime (MPGPU_FUZZ_RUNS overrides)
constexpr int kDetailedFailures = 8;  // failures printed in full; later ones get one line

// ---------------------------------------------------------------------------------------------
// Running the binary

struct Outcome {
  int exit_code = -1;  // meaningful when signal == 0
  int signal = 0;
  int limit_seconds = 0;
  std::string output;  // stdout and stderr
  bool timed_out() const { return signal == 0 && (exit_code == 124 || exit_code == 137); }
  std::string describe() const {
    if (signal) return "killed by signal " + std::to_string(signal);
    if (timed_out()) return "timed out (no answer within " + std::to_string(limit_seconds) + " s)";
    return "exit " + std::to_string(exit_code);
  }
};

int g_timeout_seconds = kTimeoutSeconds;

// run_mpgpu has no time limit; a fuzzed input must not be able to hang the suite.
Outcome run_once(const std::string& args) {
  const std::string cmd =
      "timeout -k 2 " + std::to_string(g_timeout_seconds) + " " + MPGPU_BINARY + " " + args + " 2>&1";
  Outcome o;
  o.limit_seconds = g_timeout_seconds;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return o;
  char buf[8192];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) o.output.append(buf, n);
  const int status = pclose(p);
  if (WIFSIGNALED(status)) {
    o.signal = WTERMSIG(status);
  } else {
    o.exit_code = WEXITSTATUS(status);
    // timeout(1) and sh both turn a child's death by signal into 128 + signal.
    if (o.exit_code > 128 && o.exit_code < 160 && o.exit_code != 137) o.signal = o.exit_code - 128;
  }
  return o;
}

// 126/127 is the shell failing to start the binary (for one, while a build relinks it): not a
// finding about the input, so wait and retry, and stop the test if it persists.
Outcome run_bounded(const std::string& args) {
  for (int attempt = 0;; ++attempt) {
    Outcome o = run_once(args);
    if (o.timed_out()) g_timeout_seconds = kTimeoutAfterHangSeconds;
    if (o.signal || (o.exit_code != 126 && o.exit_code != 127)) return o;
    if (attempt == 5) throw std::runtime_error("cannot start " + std::string(MPGPU_BINARY) + ": " + o.output);
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}


void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Non-printable bytes escaped, so a failure report shows NULs and 0xff as they are.
std::string printable(const std::string& s, size_t limit = 4000) {
  std::string out;
  for (size_t i = 0; i < s.size() && out.size() < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
      out += static_cast<char>(c);
    } else {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\x%02x", c);
      out += esc;
    }
  }
  if (out.size() >= limit) out += "\n... (" + std::to_string(s.size()) + " bytes in all)";
  return out;
}

// ---------------------------------------------------------------------------------------------
// Random choices. Modulo instead of std::uniform_int_distribution: the distributions are
// implementation-defined, and the same seed must give the same cases with any standard library.

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(uint64_t seed) : gen(seed) {}
  size_t below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(gen() % n); }
  bool percent(unsigned p) { return below(100) < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// ---------------------------------------------------------------------------------------------
// Line-aware text

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

size_t indent_of(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

// The part of a YAML line before its comment (mutating comments tests nothing).
size_t code_end(const std::string& line) {
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ')) return i;
  return line.size();
}

struct Span {
  size_t line, begin, end;  // [begin, end) within the line
};

// Keys and scalar values of a YAML file: runs of characters between the flow and mapping
// indicators, trimmed. A key replaced by a strange value is as useful a case as a value.
std::vector<Span> yaml_scalars(const std::vector<std::string>& lines) {
  std::vector<Span> spans;
  for (size_t li = 0; li < lines.size(); ++li) {
    const std::string& l = lines[li];
    const size_t end = code_end(l);
    size_t i = 0;
    while (i < end) {
      while (i < end && (std::string(":,[]{} ").find(l[i]) != std::string::npos)) ++i;
      if (i < end && l[i] == '-' && (i + 1 == end || l[i + 1] == ' ')) {  // sequence entry
        ++i;
        continue;
      }
      size_t j = i;
      while (j < end && std::string(":,[]{}").find(l[j]) == std::string::npos) ++j;
      size_t k = j;
      while (k > i && l[k - 1] == ' ') --k;
      if (k > i) spans.push_back({li, i, k});
      i = j;
    }
  }
  return spans;
}

bool parse_int(const std::string& s, long long& v) {
  if (s.empty()) return false;
  char* e = nullptr;
  errno = 0;
  v = std::strtoll(s.c_str(), &e, 0);
  return errno == 0 && e && *e == '\0';
}

// ---------------------------------------------------------------------------------------------
// Mutations

struct Mutant {
  std::string text;
  std::vector<std::string> what;  // one description per mutation applied
  size_t line = 0;                // 1-based line of the last mutation, 0 when not line-bound
  size_t numbers_moved = 0;       // mutations that only changed a number
  // Still well-formed, so worth simulating and not only validating.
  bool only_numbers_moved() const { return !what.empty() && numbers_moved == what.size(); }
};

const std::string& huge_string() {
  static const std::string s(100000, 'A');
  return s;
}

// A 4 KB YAML value that stands for 10^9 nodes when its aliases are expanded.
const std::string& alias_bomb() {
  static const std::string s = mpgpu::test::alias_bomb_yaml();
  return s;
}

const std::vector<std::string>& interesting_yaml_values() {
  static const std::vector<std::string> v = {
      "0", "-1", "1", "1e300", "-1e300", "1e-300", "4294967296", "4294967295", "18446744073709551616",
      "18446744073709551615", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
      "2147483648", "65536", "0.5", "-0", "\"\"", "''", "x", "010", "0o10", "0x10", "0xffffffffffffffff", "0b1",
      "1_000", ".nan", ".inf", "-.inf", "~", "null", "true", "[]", "{}", "[1, 2]", "{a: 1}", "!!str 5",
      "!!binary AAAA", "\"\\0\"", "\"\\xff\"", "|\n  block", "*nope", "&anchor", "'unterminated",
      "\"unterminated", "-", "?", "@", "`"};
  return v;
}

const std::vector<std::string>& inserted_yaml_lines() {
  static const std::vector<std::string> v = {"---", "...", "%YAML 1.2", "%TAG ! tag:x,2000:", "? x", ": y",
                                             "- x", "x: y", "<<: {}", "!!map", "key: !!int x", "{", "]", "\"",
                                             "'", "&a", "*a", "\t", " ", "#", "name: again"};
  return v;
}

unsigned char strange_byte(Rng& rng) {
  static const std::vector<unsigned char> v = {0x00, 0xff, 0xfe, 0x80, 0xc3, 0xef, 0x7f, '\t', '\r', '\v', '\f',
                                               0x01, 0x1b, 0x08, ':', '&', '*', '!', '%', '|', '>', '"'};
  return rng.percent(70) ? rng.pick(v) : static_cast<unsigned char>(rng.below(256));
}

using MutationFn = std::function<void(Mutant&, Rng&)>;

// --- generic, any text ---

void delete_line(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  if (lines.empty()) return;
  const size_t i = rng.below(lines.size());
  m.what.push_back("delete line " + std::to_string(i + 1) + ": " + lines[i].substr(0, 120));
  lines.erase(lines.begin() + static_cast<long>(i));
  m.text = join_lines(lines);
  m.line = i + 1;
}

void duplicate_line(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  if (lines.empty()) return;
  const size_t i = rng.below(lines.size());
  m.what.push_back("duplicate line " + std::to_string(i + 1) + ": " + lines[i].substr(0, 120));
  lines.insert(lines.begin() + static_cast<long>(i), lines[i]);
  m.text = join_lines(lines);
  m.line = i + 1;
}

void swap_lines(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  if (lines.size() < 2) return;
  const size_t i = rng.below(lines.size());
  // Mostly neighbours: far swaps are nearly always a plain parse error.
  const size_t j = rng.percent(60) ? (i + 1) % lines.size() : rng.below(lines.size());
  m.what.push_back("swap lines " + std::to_string(i + 1) + " and " + std::to_string(j + 1));
  std::swap(lines[i], lines[j]);
  m.text = join_lines(lines);
  m.line = std::min(i, j) + 1;
}

void truncate_text(Mutant& m, Rng& rng) {
  const size_t at = rng.below(m.text.size() + 1);
  m.what.push_back("truncate at byte " + std::to_string(at) + " of " + std::to_string(m.text.size()));
  m.line = static_cast<size_t>(std::count(m.text.begin(), m.text.begin() + static_cast<long>(at), '\n')) + 1;
  m.text.resize(at);
}

void flip_byte(Mutant& m, Rng& rng) {
  const size_t at = rng.below(m.text.size() + 1);
  const unsigned char b = strange_byte(rng);
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", b);
  m.line = static_cast<size_t>(std::count(m.text.begin(), m.text.begin() + static_cast<long>(at), '\n')) + 1;
  if (at < m.text.size() && rng.percent(50)) {
    m.what.push_back("byte " + std::to_string(at) + " (line " + std::to_string(m.line) + ") set to " + hex);
    m.text[at] = static_cast<char>(b);
  } else {
    m.what.push_back("byte " + std::string(hex) + " inserted at " + std::to_string(at) + " (line " +
                     std::to_string(m.line) + ")");
    m.text.insert(m.text.begin() + static_cast<long>(at), static_cast<char>(b));
  }
}

void change_indent(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  if (lines.empty()) return;
  const size_t i = rng.below(lines.size());
  std::string& l = lines[i];
  const size_t ind = indent_of(l);
  switch (rng.below(4)) {
    case 0: l.insert(0, 1 + rng.below(2), ' '); break;
    case 1: l.erase(0, std::min(ind, 1 + rng.below(2))); break;
    case 2: l = "\t" + l.substr(ind); break;  // tabs are not YAML indentation
    default: l = std::string(rng.below(3) * 2, ' ') + l.substr(ind); break;
  }
  m.what.push_back("re-indent line " + std::to_string(i + 1) + " to: " + printable(l.substr(0, 120)));
  m.text = join_lines(lines);
  m.line = i + 1;
}

// --- YAML ---

void replace_span(Mutant& m, std::vector<std::string>& lines, const Span& s, const std::string& value,
                  const std::string& label) {
  const std::string old = lines[s.line].substr(s.begin, s.end - s.begin);
  lines[s.line].replace(s.begin, s.end - s.begin, value);
  m.what.push_back("line " + std::to_string(s.line + 1) + ": " + label + " '" + printable(old.substr(0, 60)) +
                   "' -> '" + printable(value.substr(0, 60)) +
                   (value.size() > 60 ? "...' (" + std::to_string(value.size()) + " bytes)" : "'"));
  m.text = join_lines(lines);
  m.line = s.line + 1;
}

void replace_scalar(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  const auto spans = yaml_scalars(lines);
  if (spans.empty()) return flip_byte(m, rng);
  const Span s = rng.pick(spans);
  std::string value = rng.percent(6) ? huge_string() : rng.pick(interesting_yaml_values());
  if (rng.percent(3)) value = alias_bomb();
  replace_span(m, lines, s, value, "scalar");
}

// Small moves of a number keep the document well-formed and probe the semantic checks, which is
// where validate and run can disagree.
void perturb_number(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  std::vector<Span> numbers;
  long long v = 0;
  for (const auto& s : yaml_scalars(lines))
    if (parse_int(lines[s.line].substr(s.begin, s.end - s.begin), v)) numbers.push_back(s);
  if (numbers.empty()) return replace_scalar(m, rng);
  const Span s = rng.pick(numbers);
  const std::string old = lines[s.line].substr(s.begin, s.end - s.begin);
  parse_int(old, v);
  // Off-by-one, halves and non-powers of two (v / 2 + 1: 256 threads -> 129, five warps, one
  // partly filled), and a few far-off values. long double: exact past 2^64, and no overflow.
  const long double x = static_cast<long double>(v);
  const std::vector<long double> moves = {
      x + 1, x - 1, x * 2, std::floor(x / 2), std::floor(x / 2) + 1, std::floor(x * 3 / 2),
      1,     0,     -x,    x * 1000,          x + 31,                x * 1024 * 1024};
  char value[64];
  std::snprintf(value, sizeof value, "%.0Lf", rng.pick(moves));
  replace_span(m, lines, s, value, "number");
  ++m.numbers_moved;
}

// Values chosen for what a key means (a dictionary, as AFL has): thread counts that are not warp
// multiples, sizes one past a power of two, counts of 0..3, clocks far off.
struct KeyedValues {
  std::vector<std::string> keys, values;
};

const std::vector<KeyedValues>& yaml_dictionary() {
  static const std::vector<KeyedValues> d = {
      {{"threads_per_tb", "max_threads"}, {"1", "31", "33", "65", "129", "150", "200", "1000", "1023", "1025", "2049"}},
      {{"warp_size"}, {"1", "16", "31", "33", "64"}},
      {{"registers_per_thread", "registers_per_tb", "registers"}, {"0", "1", "255", "256", "257", "65535", "65537"}},
      {{"shared_mem_per_tb"}, {"1", "49151", "49152", "49153", "98305"}},
      {{"grid", "count", "max_tbs", "slices", "channels", "banks", "sets", "ways", "mshrs", "entries", "walkers",
        "hardware_queues", "max_contexts", "warp_schedulers", "issue_width", "ii", "loop", "seed"},
       {"0", "1", "2", "3", "7", "13"}},
      {{"line_bytes", "interleave_bytes", "page_bytes", "flit_bytes", "bus_bytes", "row_bytes", "burst_bytes",
        "width_bytes", "granularity_bytes", "gtid", "iter"},
       {"1", "3", "24", "96", "127", "129", "4097"}},
      {{"core", "icnt", "l2", "dram", "clock_mhz"}, {"1", "3", "7", "100000"}},
      {{"latency", "latency_cycles", "hit_latency_cycles", "tb_dispatch_cycles", "kernel_launch_cycles", "CL", "RCD",
        "RAS", "RP", "RC", "WL", "WR", "CCD", "RRD", "mean_cycles"},
       {"0", "1", "1000000"}}};
  return d;
}

// The values (same line as their key) of any of `keys`.
std::vector<Span> values_of(const std::vector<std::string>& lines, const std::vector<std::string>& keys) {
  std::vector<Span> found;
  const auto spans = yaml_scalars(lines);
  for (size_t i = 0; i + 1 < spans.size(); ++i) {
    const Span& key = spans[i];
    const Span& value = spans[i + 1];
    if (key.line != value.line || lines[key.line].compare(key.end, 1, ":") != 0) continue;
    if (std::find(keys.begin(), keys.end(), lines[key.line].substr(key.begin, key.end - key.begin)) != keys.end())
      found.push_back(value);
  }
  return found;
}

void dictionary_value(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  std::vector<std::pair<Span, const std::vector<std::string>*>> hits;
  for (const auto& kv : yaml_dictionary())
    for (const Span& s : values_of(lines, kv.keys)) hits.push_back({s, &kv.values});
  if (hits.empty()) return perturb_number(m, rng);
  const auto& [span, values] = rng.pick(hits);
  replace_span(m, lines, span, rng.pick(*values), "number");
  ++m.numbers_moved;
}

void anchor_alias(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  const auto spans = yaml_scalars(lines);
  std::vector<size_t> headers;  // block mapping keys: "  name:" with nothing after
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string code = lines[i].substr(0, code_end(lines[i]));
    const size_t last = code.find_last_not_of(' ');
    if (last != std::string::npos && code[last] == ':' && code.find_first_not_of(' ') < last) headers.push_back(i);
  }
  const size_t variant = rng.below(3);
  if (variant == 0 && spans.size() >= 2) {
    // An anchored scalar reused elsewhere; an alias before its anchor is undefined.
    const Span a = rng.pick(spans), b = rng.pick(spans);
    if (a.line == b.line) return anchor_alias(m, rng);
    lines[b.line].replace(b.begin, b.end - b.begin, "*fz");
    lines[a.line].insert(a.begin, "&fz ");
    m.what.push_back("anchor &fz at line " + std::to_string(a.line + 1) + ", alias *fz at line " +
                     std::to_string(b.line + 1));
    m.line = b.line + 1;
  } else if (variant == 1 && headers.size() >= 2) {
    // A whole block anchored, then merged (<<) into another block or standing in for it.
    const size_t a = rng.pick(headers), b = rng.pick(headers);
    lines[a] = lines[a].substr(0, code_end(lines[a])) + " &fz";
    if (rng.percent(50)) {
      lines.insert(lines.begin() + static_cast<long>(b) + 1, std::string(indent_of(lines[b]) + 2, ' ') + "<<: *fz");
      m.what.push_back("anchor block at line " + std::to_string(a + 1) + ", merge <<: *fz after line " +
                       std::to_string(b + 1));
    } else {
      lines[b] = lines[b].substr(0, code_end(lines[b])) + " *fz";
      m.what.push_back("anchor block at line " + std::to_string(a + 1) + ", alias it at line " + std::to_string(b + 1));
    }
    m.line = b + 1;
  } else {
    return replace_scalar(m, rng);
  }
  m.text = join_lines(lines);
}

// Values naming other files (imports, traces): what the file system can hand back instead of a
// small text file, the importing file itself, and names that are not files at all.
const std::vector<std::string>& path_values() {
  static const std::vector<std::string> v = {
      "\"\"", ".", "/", "..", "parboil/", "/dev/null", "/dev/zero", "missing.yaml", "default.yaml",
      "../platforms/k20c.yaml", "../../traces/vectoradd-100-32/kernelslist.g", "~/parboil.yaml",
      std::string(5000, 'p') + ".yaml"};  // longer than NAME_MAX and PATH_MAX
  return v;
}

std::vector<Span> path_spans(const std::vector<std::string>& lines) {
  std::vector<Span> paths;
  for (const auto& s : yaml_scalars(lines)) {
    const std::string v = lines[s.line].substr(s.begin, s.end - s.begin);
    const bool named_file = v.find('/') != std::string::npos || v.find(".yaml") != std::string::npos ||
                            v.find(".traceg") != std::string::npos;
    if (named_file && v.find(' ') == std::string::npos) paths.push_back(s);  // not a description
  }
  return paths;
}

void replace_path(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  const auto paths = path_spans(lines);
  if (paths.empty()) return replace_scalar(m, rng);
  replace_span(m, lines, rng.pick(paths), rng.pick(path_values()), "path");
}

void insert_yaml_line(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  const size_t i = rng.below(lines.size() + 1);
  const size_t ind = i < lines.size() ? indent_of(lines[i]) : 0;
  const std::string l = std::string(rng.percent(50) ? ind : 0, ' ') + rng.pick(inserted_yaml_lines());
  lines.insert(lines.begin() + static_cast<long>(i), l);
  m.what.push_back("insert line " + std::to_string(i + 1) + ": " + printable(l));
  m.text = join_lines(lines);
  m.line = i + 1;
}

// --- Accel-Sim traces ---

const std::vector<std::string>& interesting_trace_numbers() {
  static const std::vector<std::string> v = {"0", "-1", "1", "2", "31", "32", "33", "255", "256", "1023", "1024",
                                             "1025", "65536", "49152", "98304", "2147483647", "2147483648",
                                             "4294967295", "4294967296", "18446744073709551615",
                                             "18446744073709551616", "99999999999999999999999", "1e300", "0x10",
                                             "010", "x", "", " ", "-0", "+1", "1.5", "nan"};
  return v;
}

const std::vector<std::string>& interesting_dims() {
  static const std::vector<std::string> v = {"(0,1,1)", "(1,0,1)", "(1,1,0)", "(-1,1,1)", "(2,1,1)", "(1,2,1)",
                                             "(1,1,2)", "(1024,1,1)", "(1025,1,1)", "(2048,1,1)", "(33,1,1)",
                                             "(1,1,1)", "(32,32,2)", "(65536,65536,64)", "(4294967295,1,1)",
                                             "(4294967296,1,1)", "(2147483648,2147483648,1)",
                                             "(18446744073709551616,1,1)", "(1,1)", "(1,1,1,1)", "()", "(x,1,1)",
                                             "1,1,1", "(1,1,1", "", "( 1 , 1 , 1 )", "(0x10,1,1)", "(010,1,1)"};
  return v;
}

const std::vector<KeyedValues>& trace_header_dictionary() {
  static const std::vector<KeyedValues> d = {
      {{"-grid dim", "-block dim"},
       {"(0,1,1)", "(2,1,1)", "(33,1,1)", "(1025,1,1)", "(65536,65536,64)", "(4294967296,1,1)", "(1,1)", "(x,1,1)"}},
      {{"-nregs"}, {"0", "1", "255", "256", "65536", "4294967296"}},
      {{"-shmem"}, {"1", "49152", "98304", "98305", "4294967296"}}};
  return d;
}

// The values of header lines "-key = value" with a key in `keys`.
std::vector<Span> header_values_of(const std::vector<std::string>& lines, const std::vector<std::string>& keys) {
  std::vector<Span> found;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t eq = lines[i].find(" = ");
    if (eq != std::string::npos && std::find(keys.begin(), keys.end(), lines[i].substr(0, eq)) != keys.end())
      found.push_back({i, eq + 3, lines[i].size()});
  }
  return found;
}

// "-grid dim = (1,1,1)" and friends: the values a trace's kernel is checked against the platform by.
void mutate_trace_header(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  std::vector<size_t> header;
  for (size_t i = 0; i < lines.size(); ++i)
    if (!lines[i].empty() && lines[i][0] == '-' && lines[i].find(" = ") != std::string::npos) header.push_back(i);
  if (header.empty()) return flip_byte(m, rng);
  // Weighted toward the four values the brief of the format revolves around.
  std::vector<size_t> key_lines;
  for (size_t i : header)
    for (const char* k : {"-grid dim", "-block dim", "-nregs", "-shmem ="})
      if (lines[i].rfind(k, 0) == 0) key_lines.push_back(i);
  const size_t i = (!key_lines.empty() && rng.percent(75)) ? rng.pick(key_lines) : rng.pick(header);
  const size_t eq = lines[i].find(" = ") + 3;
  const bool is_dim = lines[i].find(" dim ") != std::string::npos;
  std::string value = is_dim && rng.percent(85) ? rng.pick(interesting_dims()) : rng.pick(interesting_trace_numbers());
  if (rng.percent(4)) value = huge_string();
  m.what.push_back("trace header line " + std::to_string(i + 1) + ": '" + lines[i] + "' -> value '" +
                   value.substr(0, 40) + (value.size() > 40 ? "...'" : "'"));
  lines[i] = lines[i].substr(0, eq) + value;
  m.text = join_lines(lines);
  m.line = i + 1;
}

bool is_instruction(const std::string& l) {
  return l.size() > 5 && std::isxdigit(static_cast<unsigned char>(l[0])) && l.find(' ') == 4;
}

// "PC mask ndst [dsts] opcode nsrc [srcs] width [compress addrs]": any field replaced, dropped or
// repeated, or the structural lines (warp =, insts =, thread block =) given odd numbers.
void mutate_trace_body(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  std::vector<size_t> instrs, counts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (is_instruction(lines[i])) instrs.push_back(i);
    for (const char* k : {"warp = ", "insts = ", "thread block = "})
      if (lines[i].rfind(k, 0) == 0) counts.push_back(i);
  }
  if (!counts.empty() && rng.percent(25)) {
    const size_t i = rng.pick(counts);
    const size_t eq = lines[i].find(" = ") + 3;
    const std::string value = lines[i][0] == 't' && rng.percent(60)
                                  ? rng.pick(std::vector<std::string>{"1,0,0", "0,1,0", "0,0,1", "5,5,5", "-1,0,0",
                                                                      "0,0", "0,0,0,0", "4294967296,0,0", ""})
                                  : rng.pick(interesting_trace_numbers());
    m.what.push_back("line " + std::to_string(i + 1) + ": '" + lines[i] + "' -> value '" + value + "'");
    lines[i] = lines[i].substr(0, eq) + value;
    m.text = join_lines(lines);
    m.line = i + 1;
    return;
  }
  if (instrs.empty()) return flip_byte(m, rng);
  const size_t i = rng.pick(instrs);
  std::vector<std::string> tok;
  std::istringstream in(lines[i]);
  for (std::string t; in >> t;) tok.push_back(t);
  const size_t t = rng.below(tok.size());
  const std::string before = lines[i];
  static const std::vector<std::string> values = {
      "0", "1", "-1", "2", "3", "4", "8", "16", "32", "64", "128", "255", "1024", "4294967296",
      "18446744073709551616", "x", "R0", "R254", "R255", "R256", "R-1", "R4294967296", "P0", "UR5", "RZ",
      "ffffffff", "00000000", "fffffffff", "zz", "0x0", "0x7f2b2d500000", "0xffffffffffffffff", "FOO", "EXIT",
      "BRA", "BAR.SYNC", "LDG.E", "STG.E", "LDS", "STS", "ATOM.E.ADD", "RED.E.ADD", "MEMBAR", "LDL", "LD.E"};
  switch (rng.below(4)) {
    case 0: tok.erase(tok.begin() + static_cast<long>(t)); break;
    case 1: tok.insert(tok.begin() + static_cast<long>(t), tok[t]); break;
    default: tok[t] = rng.percent(3) ? huge_string() : rng.pick(values); break;
  }
  std::string after;
  for (const auto& s : tok) after += s + " ";
  lines[i] = after;
  m.what.push_back("instruction line " + std::to_string(i + 1) + ": '" + before + "' -> '" + after.substr(0, 160) +
                   "'");
  m.text = join_lines(lines);
  m.line = i + 1;
}

// kernelslist.g: MemcpyHtoD,0xADDR,BYTES lines and the kernel file names they launch.
void mutate_kernelslist(Mutant& m, Rng& rng) {
  auto lines = split_lines(m.text);
  if (lines.empty()) return flip_byte(m, rng);
  const size_t i = rng.below(lines.size());
  std::string& l = lines[i];
  const std::string before = l;
  if (l.rfind("Memcpy", 0) == 0) {
    std::vector<std::string> f;
    std::stringstream ss(l);
    for (std::string s; std::getline(ss, s, ',');) f.push_back(s);
    const size_t k = rng.below(f.size() + 1);
    static const std::vector<std::string> values = {"0", "-1", "1", "0x0", "0xffffffffffffffff", "18446744073709551616",
                                                    "4294967296", "1e300", "x", "", "MemcpyDtoH", "0x", "400 "};
    if (k == f.size()) f.push_back(rng.pick(values));
    else f[k] = rng.pick(values);
    l.clear();
    for (size_t j = 0; j < f.size(); ++j) l += (j ? "," : "") + f[j];
  } else {
    static const std::vector<std::string> names = {"", ".", "/", "kernel-2.traceg", "kernel-1.traceg.mpgpu",
                                                   "../vectoradd-100-32/kernel-1.traceg", "/dev/null", "/dev/zero",
                                                   "kernel-1.traceg ", " kernel-1.traceg", "kernelslist.g",
                                                   "kernel-1.traceg,x", "MemcpyHtoD"};
    l = rng.percent(5) ? huge_string() : rng.pick(names);
  }
  m.what.push_back("kernelslist line " + std::to_string(i + 1) + ": '" + before + "' -> '" + l.substr(0, 80) + "'");
  m.text = join_lines(lines);
  m.line = i + 1;
}

struct Weighted {
  unsigned weight;
  MutationFn fn;
};

void apply_one(Mutant& m, Rng& rng, const std::vector<Weighted>& table) {
  unsigned total = 0;
  for (const auto& w : table) total += w.weight;
  size_t r = rng.below(total);
  for (const auto& w : table) {
    if (r < w.weight) return w.fn(m, rng);
    r -= w.weight;
  }
}

const std::vector<Weighted>& yaml_mutations() {
  static const std::vector<Weighted> t = {
      {30, replace_scalar}, {14, perturb_number}, {8, delete_line},   {8, duplicate_line}, {5, swap_lines},
      {8, anchor_alias},    {4, truncate_text},   {9, flip_byte},     {7, change_indent},  {7, insert_yaml_line},
      {4, replace_path},    {8, dictionary_value}};
  return t;
}

// Workloads name other files (imports, traces): those values get a larger share.
const std::vector<Weighted>& workload_mutations() {
  static const std::vector<Weighted> t = [] {
    auto w = yaml_mutations();
    w.push_back({10, replace_path});
    return w;
  }();
  return t;
}

const std::vector<Weighted>& traceg_mutations() {
  static const std::vector<Weighted> t = {{30, mutate_trace_header}, {35, mutate_trace_body}, {8, delete_line},
                                          {6, duplicate_line},       {5, swap_lines},         {5, truncate_text},
                                          {8, flip_byte},            {3, change_indent}};
  return t;
}

const std::vector<Weighted>& kernelslist_mutations() {
  static const std::vector<Weighted> t = {{50, mutate_kernelslist}, {10, delete_line}, {10, duplicate_line},
                                          {5, swap_lines},          {10, truncate_text}, {15, flip_byte}};
  return t;
}

// ---------------------------------------------------------------------------------------------
// One fuzz campaign: a target file in the corpus, the validate command it is read by, mutations.

enum class Format { yaml, traceg, kernelslist };

struct Target {
  unsigned weight;           // how often this file is the one mutated
  Format format;
  std::string file;          // relative to the corpus root: the file mutated
  std::string validate_args; // with {dir} for the case's copy of the corpus
  std::string run_args;      // same inputs for `run` (without --out)
  unsigned run_bound_us;     // max_sim_time_us for the run, 4-10x what the seed needs; 0: cannot be set
  const std::vector<Weighted>* mutations;
};

std::string expand(std::string s, const std::string& dir) {
  for (size_t p; (p = s.find("{dir}")) != std::string::npos;) s.replace(p, 5, dir);
  return s;
}

// The first error line starts with "file:LINE[:COL]: " naming a file that exists, and every
// location in it is a line its file has (a message may nest one, e.g. an imported trace's).
// `--set` errors name their override instead (not produced here, accepted for completeness).
bool has_location(const std::string& output, std::string& why) {
  static const std::regex loc(R"((\S+?):(\d+)(?::(\d+))?: )");
  std::string error_line;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("error: ", 0) == 0) {
      error_line = line.substr(7, 2000);  // std::regex recurses per character: keep it short
      break;
    }
  if (error_line.rfind("--set ", 0) == 0) return true;
  bool first = true;
  for (auto it = std::sregex_iterator(error_line.begin(), error_line.end(), loc); it != std::sregex_iterator(); ++it) {
    const auto& mt = *it;
    const fs::path file = mt[1].str();
    const long long line_no = std::atoll(mt[2].str().c_str());
    std::error_code ec;
    const bool exists = fs::exists(file, ec);
    if (first && (mt.position(0) != 0 || !exists)) {
      why = "exit 2 whose message does not start with an existing file:line";
      return false;
    }
    first = false;
    long long lines = 0;
    if (exists && fs::is_regular_file(file, ec)) {  // not /dev/zero: it has no end
      const std::string text = read_file(file);
      lines = static_cast<long long>(std::count(text.begin(), text.end(), '\n')) + 1;
    }
    if (line_no < 1 || (lines > 0 && line_no > lines)) {
      why = "exit 2 naming line " + std::to_string(line_no) + " of " + mt[1].str() +
            (lines > 0 ? ", which has " + std::to_string(lines) + " lines" : "");
      return false;
    }
  }
  if (first) why = "exit 2 without a file:line location";
  return !first;
}

// A short class name for a failure: same defect, same signature, whatever the numbers and paths.
std::string signature(const std::string& kind, const std::string& output) {
  std::string first;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (line.find("rror") != std::string::npos || line.find("terminate") != std::string::npos ||
        line.find("ssert") != std::string::npos) {
      first = line;
      break;
    }
  if (first.empty()) {  // the last line says most about a crash
    std::istringstream again(output);
    for (std::string line; std::getline(again, line);)
      if (!line.empty()) first = line;
  }
  first = first.substr(0, 400);
  first = std::regex_replace(first, std::regex(R"('[^']*')"), "'...'");
  first = std::regex_replace(first, std::regex(R"("[^"]*")"), "\"...\"");
  first = std::regex_replace(first, std::regex(R"([^\s:']*/[^\s:']*)"), "<path>");  // "." or "/dev/zero": one class
  first = std::regex_replace(first, std::regex(R"(\d+)"), "N");
  // Hangs differ only by the limit they ran into (see kTimeoutAfterHangSeconds).
  const std::string kind_class = std::regex_replace(kind, std::regex(R"(within \d+ s)"), "within the limit");
  return kind_class + " | " + printable(first.substr(0, 160));
}

struct Campaign {
  std::string name;
  uint64_t seed;
  size_t random_cases;  // after the dictionary stage
  std::vector<Target> targets;
};

struct Tally {
  size_t cases = 0, accepted = 0, rejected = 0, runs = 0, runs_bounded = 0, failures = 0;
  std::map<std::string, std::pair<size_t, std::string>> classes;  // signature -> count, first reproducer
};

// Copies the case to the failure folder and prints what is needed to reproduce it.
void report_failure(Tally& tally, const std::string& campaign, size_t case_no, const std::string& kind,
                    const fs::path& dir, const Target& target, const Mutant& m, const std::string& args,
                    const Outcome& o) {
  ++tally.failures;
  const fs::path keep = fs::path(kFailureRoot) / campaign / ("case-" + std::to_string(case_no));
  std::error_code ec;
  fs::remove_all(keep, ec);
  fs::create_directories(keep, ec);
  fs::copy(dir, keep, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  const std::string kept_args = expand(args, keep.string());
  const std::string command = std::string(MPGPU_BINARY) + " " + kept_args;
  std::string mutations;
  for (const auto& w : m.what) mutations += "  - " + printable(w, 300) + "\n";
  std::string output = o.output;  // naming the kept copy, not the temporary directory now gone
  for (size_t p; (p = output.find(dir.string())) != std::string::npos;)
    output.replace(p, dir.string().size(), keep.string());
  write_file(keep / "REPRODUCE.txt", kind + "\n" + command + "\n\nmutations:\n" + mutations + "\noutput:\n" + output);

  const std::string sig = signature(kind, o.output);
  auto& cls = tally.classes[sig];
  if (cls.first++ == 0) cls.second = command;

  if (tally.failures > kDetailedFailures) {
    ADD_FAILURE() << campaign << " case " << case_no << ": " << kind << " (" << sig << "), kept in " << keep.string();
    return;
  }
  // The mutated file: whole when small, else the lines around the mutation.
  std::string excerpt;
  if (m.text.size() <= 3000) {
    excerpt = printable(m.text);
  } else {
    const auto lines = split_lines(m.text);
    const size_t from = m.line > 6 ? m.line - 6 : 0;
    for (size_t i = from; i < std::min(lines.size(), from + 11); ++i)
      excerpt += std::to_string(i + 1) + (i + 1 == m.line ? " >" : "  ") + printable(lines[i], 300) + "\n";
  }
  ADD_FAILURE() << campaign << " case " << case_no << ": " << kind << "\n  command: " << command
                << "\n  mutated file: " << (keep / target.file).string() << "\n  mutations:\n"
                << mutations << "  file excerpt:\n" << excerpt << "\n  output:\n" << printable(output, 3000);
}

// `run` on an accepted case: 0 completed, 3 aborted (both with stats.json saying so), 2 refused
// with no stats.json left behind. Anything else (1, a signal, a hang) is a defect.
// A mutation can legitimately ask for a long simulation (grid: 160 -> 160000), so the simulated
// time is bounded and running into that bound (exit 1 with its own message) is no finding.
void check_run(Tally& tally, const std::string& campaign, size_t case_no, const fs::path& dir, const Target& target,
               const Mutant& m) {
  ++tally.runs;
  const fs::path out = dir / "out";
  std::string args = target.run_args + " --jobs 1 --out {dir}/out";
  const std::string bound = "max_sim_time_us = " + std::to_string(target.run_bound_us);
  if (target.run_bound_us) args += " --set workload.max_sim_time_us=" + std::to_string(target.run_bound_us);
  const Outcome o = run_bounded(expand(args, dir.string()));
  const fs::path stats = out / "stats.json";
  const bool hit_bound = target.run_bound_us && o.signal == 0 && o.exit_code == 1 &&
                         o.output.find("not finished within " + bound) != std::string::npos;
  std::string kind;
  if (hit_bound) {
    ++tally.runs_bounded;
  } else if (o.signal || o.timed_out() || (o.exit_code != 0 && o.exit_code != 2 && o.exit_code != 3)) {
    kind = "run: " + o.describe();
  } else if (o.exit_code == 2 && fs::exists(stats)) {
    kind = "run: exit 2 left a stats.json";
  } else if (o.exit_code == 0 || o.exit_code == 3) {
    const char* expected = o.exit_code == 0 ? "completed" : "aborted";
    std::ifstream f(stats);
    const auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("status", "") != expected)
      kind = "run: " + o.describe() + " without a stats.json saying \"status\": \"" + expected + "\"";
  }
  if (!kind.empty()) report_failure(tally, campaign, case_no, kind, dir, target, m, args, o);
}

// AFL runs deterministic stages before its random "havoc"; likewise every dictionary value is tried
// once in each target (on one occurrence of its key, picked by the seed) and every path value on
// every path, so the boundary classes are covered whatever the seed.
std::vector<Mutant> dictionary_stage(const std::string& text, Format format, Rng& rng) {
  std::vector<Mutant> out;
  const auto lines = split_lines(text);
  auto add = [&](const Span& s, const std::string& value, const char* label, bool numeric) {
    Mutant m{text, {}, 0};
    auto copy = lines;
    replace_span(m, copy, s, value, label);
    if (numeric) ++m.numbers_moved;
    out.push_back(std::move(m));
  };
  if (format == Format::kernelslist) return out;  // its few lines are covered by the random stage
  const auto& dictionary = format == Format::yaml ? yaml_dictionary() : trace_header_dictionary();
  for (const auto& kv : dictionary) {
    const auto spans = format == Format::yaml ? values_of(lines, kv.keys) : header_values_of(lines, kv.keys);
    if (!spans.empty())
      for (const auto& v : kv.values) add(rng.pick(spans), v, format == Format::yaml ? "number" : "header value", true);
  }
  if (format == Format::yaml)
    for (const Span& s : path_spans(lines))
      for (const auto& v : path_values()) add(s, v, "path", false);
  return out;
}

const Target& pick_target(const std::vector<Target>& targets, Rng& rng) {
  unsigned total = 0;
  for (const auto& t : targets) total += t.weight;
  size_t r = rng.below(total);
  for (const auto& t : targets) {
    if (r < t.weight) return t;
    r -= t.weight;
  }
  return targets.back();
}

void run_campaign(const Campaign& c) {
  const fs::path corpus = source_path("sc_tests/data/fuzz");
  ASSERT_TRUE(fs::exists(corpus / "platforms/k20c.yaml")) << corpus;
  std::map<std::string, std::string> originals;
  for (const auto& t : c.targets) originals[t.file] = read_file(corpus / t.file);

  std::error_code ec;
  fs::remove_all(fs::path(kFailureRoot) / c.name, ec);  // failures of an earlier run would mislead

  const uint64_t seed = env_or("MPGPU_FUZZ_SEED", c.seed);
  const size_t random_cases = static_cast<size_t>(env_or("MPGPU_FUZZ_CASES", c.random_cases));
  const size_t max_runs = static_cast<size_t>(env_or("MPGPU_FUZZ_RUNS", kMaxRuns));
  std::map<const Target*, size_t> runs_per_target;  // each target gets its share of simulations
  g_timeout_seconds = kTimeoutSeconds;
  Rng rng(seed);
  Tally tally;
  std::ofstream log;
  if (const char* path = std::getenv("MPGPU_FUZZ_LOG"); path && *path) log.open(path, std::ios::app);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::pair<const Target*, Mutant>> planned;
  for (const auto& t : c.targets)
    for (auto& m : dictionary_stage(originals[t.file], t.format, rng)) planned.emplace_back(&t, std::move(m));
  const size_t dictionary_cases = planned.size();
  for (size_t n = 0; n < dictionary_cases + random_cases; ++n) {
    const bool from_dictionary = n < dictionary_cases;
    const Target& target = from_dictionary ? *planned[n].first : pick_target(c.targets, rng);
    Mutant m = from_dictionary ? planned[n].second : Mutant{originals[target.file], {}, 0};
    if (!from_dictionary) {  // one to three stacked random mutations
      const size_t stacked = rng.percent(75) ? 1 : rng.percent(80) ? 2 : 3;
      for (size_t k = 0; k < stacked; ++k) apply_one(m, rng, *target.mutations);
    }
    const bool try_run = rng.below(kRunEvery) == 0 || m.only_numbers_moved();  // drawn every case: fixed sequence

    TempDir dir;
    fs::copy(corpus, dir.path, fs::copy_options::recursive);
    write_file(dir.path / target.file, m.text);
    const Outcome o = run_bounded(expand(target.validate_args, dir.path.string()));
    ++tally.cases;
    if (log) {  // one line per case: what was done and how the binary answered
      std::string first_line = o.output.substr(0, o.output.find('\n'));
      for (const auto& l : split_lines(o.output))
        if (l.rfind("error", 0) == 0) first_line = l;
      log << c.name << " " << n << " " << o.describe() << " | " << printable(m.what.empty() ? "" : m.what.front(), 200)
          << " | " << printable(first_line, 300) << "\n";
    }

    std::string kind, why;
    if (o.signal || o.timed_out()) kind = "validate: " + o.describe();
    else if (o.exit_code == 2 && !has_location(o.output, why)) kind = "validate: " + why;
    else if (o.exit_code != 0 && o.exit_code != 2) kind = "validate: " + o.describe();
    if (!kind.empty()) {
      report_failure(tally, c.name, n, kind, dir.path, target, m, target.validate_args, o);
      continue;
    }
    if (o.exit_code == 2) {
      ++tally.rejected;
      continue;
    }
    ++tally.accepted;
    if (try_run && runs_per_target[&target]++ < max_runs) check_run(tally, c.name, n, dir.path, target, m);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  ::testing::Test::RecordProperty("cases", static_cast<int>(tally.cases));
  ::testing::Test::RecordProperty("dictionary_cases", static_cast<int>(dictionary_cases));
  ::testing::Test::RecordProperty("accepted", static_cast<int>(tally.accepted));
  ::testing::Test::RecordProperty("runs", static_cast<int>(tally.runs));
  ::testing::Test::RecordProperty("failures", static_cast<int>(tally.failures));
  std::cout << "[ fuzz     ] " << c.name << ": " << tally.cases << " cases (" << dictionary_cases << " dictionary, "
            << random_cases << " random, seed " << seed << "), " << tally.accepted << " accepted, " << tally.rejected
            << " rejected with a location, " << tally.runs << " also run (" << tally.runs_bounded
            << " reached the simulated-time bound), " << tally.failures << " failures, " << seconds << " s\n";
  for (const auto& [sig, cls] : tally.classes)
    std::cout << "[ fuzz     ]   " << cls.first << " x " << sig << "\n[ fuzz     ]     e.g. " << cls.second << "\n";
}

const std::string kK20c = " --platform {dir}/platforms/k20c.yaml";
const std::string kGtx1080 = " --platform {dir}/platforms/gtx1080.yaml";
const std::string kDefault = " --workload {dir}/configs/default.yaml";
const std::string kComputeBound = " --workload {dir}/configs/warp/compute_bound.yaml";
const std::string kTraceWorkload = " --workload {dir}/configs/warp/vectoradd_trace.yaml";
const std::string kTrace = " --trace {dir}/traces/vectoradd-100-32/kernelslist.g";

}  // namespace

// Platforms, each validated with the unmodified default workload (TB level). Accepted ones are
// run with the trace workload instead: warp level, it goes through the pipeline, caches, crossbar,
// DRAM and paging that a platform describes, and takes a fraction of a second.
TEST(FuzzPlatform, MutatedInputsKeepTheExitContract) {
  run_campaign({"FuzzPlatform", 0x5eed0001, 80,
                {{1, Format::yaml, "platforms/k20c.yaml", "validate" + kK20c + kDefault, "run" + kK20c + kTraceWorkload,
                  30, &yaml_mutations()},
                 {1, Format::yaml, "platforms/gtx1080.yaml", "validate" + kGtx1080 + kDefault,
                  "run" + kGtx1080 + kTraceWorkload, 30, &yaml_mutations()}}});
}

// Workloads on the unmodified k20c; parboil.yaml is reached through default.yaml's import, so its
// errors must name the imported file.
TEST(FuzzWorkload, MutatedInputsKeepTheExitContract) {
  run_campaign({"FuzzWorkload", 0x5eed0002, 110,
                {{1, Format::yaml, "configs/default.yaml", "validate" + kK20c + kDefault, "run" + kK20c + kDefault,
                  100000, &workload_mutations()},
                 {1, Format::yaml, "configs/parboil/parboil.yaml", "validate" + kK20c + kDefault,
                  "run" + kK20c + kDefault, 100000, &workload_mutations()},
                 {1, Format::yaml, "configs/warp/compute_bound.yaml", "validate" + kK20c + kComputeBound,
                  "run" + kK20c + kComputeBound, 200, &workload_mutations()},
                 {1, Format::yaml, "configs/warp/vectoradd_trace.yaml", "validate" + kK20c + kTraceWorkload,
                  "run" + kK20c + kTraceWorkload, 30, &workload_mutations()}}});
}

// The vecAdd trace and its kernelslist on the unmodified gtx1080 (a --trace run takes no
// workload override, so its runs are bounded by the wall-clock timeout alone).
TEST(FuzzTrace, MutatedInputsKeepTheExitContract) {
  const std::string validate = "validate" + kGtx1080 + kTrace, run = "run" + kGtx1080 + kTrace;
  run_campaign({"FuzzTrace", 0x5eed0003, 120,
                {{3, Format::traceg, "traces/vectoradd-100-32/kernel-1.traceg", validate, run, 0, &traceg_mutations()},
                 {1, Format::kernelslist, "traces/vectoradd-100-32/kernelslist.g", validate, run, 0,
                  &kernelslist_mutations()}}});
}
