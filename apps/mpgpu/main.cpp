// mpgpu: the command-line front end. validate | run | report | schema.
#include <systemc>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "common/input_file.hpp"
#include "common/stop_signals.hpp"
#include "platform/extension_report.hpp"
#include "platform/platform_config.hpp"
#include "platform/simulation.hpp"
#include "report.hpp"
#include "schema.hpp"
#include "twins.hpp"
#include "workload/trace_workload.hpp"

using namespace mpgpu;

namespace {

struct Args {
  std::string platform, workload, trace, out = "out", timeline, format = "table", tsp, vcd, isolated;
  std::vector<std::string> sets;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  double max_host_seconds = 0;
};

// Outputs besides stats.json (timeline, VCD) are written under a temporary name and moved into
// place only once the whole run has succeeded; otherwise they are removed.
class PendingOutputs {
 public:
  // Returns the temporary name to write `final_path` under; the previous run's file is removed.
  std::string add(const std::string& final_path, const std::string& partial_path) {
    std::error_code ec;
    std::filesystem::remove(final_path, ec);
    files_.push_back({partial_path, final_path});
    return partial_path;
  }
  void commit() {
    for (const auto& [partial, final_path] : files_)
      if (std::filesystem::exists(partial)) std::filesystem::rename(partial, final_path);
    files_.clear();
  }
  ~PendingOutputs() {
    std::error_code ec;
    for (const auto& f : files_) std::filesystem::remove(f.first, ec);
  }

 private:
  std::vector<std::pair<std::string, std::string>> files_;  // (partial, final)
};

std::vector<std::pair<std::string, std::string>> overrides(const Args& a) {
  std::vector<std::pair<std::string, std::string>> o;
  for (const auto& s : a.sets) o.push_back(split_override(s));
  return o;
}

// The platform, with its implausible values reported on stderr (they are not errors).
PlatformConfig load_checked_platform(const Args& a) {
  PlatformConfig cfg = load_platform(a.platform, overrides(a));
  for (const auto& w : cfg.doc->warnings) std::cerr << "warning: " << w << "\n";
  return cfg;
}

void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& print) {
  const auto tmp = path.string() + ".partial";
  std::ofstream f(tmp);
  print(f);
  f.close();
  if (!f) throw ConfigError(path.string() + ": cannot write");
  std::filesystem::rename(tmp, path);
}

// The output directory, checked before anything is simulated: it can be created and written, and
// the previous run's stats.json is gone (a failed run must not leave it to be taken for its own).
void prepare_out_dir(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec || !fs::is_directory(out)) throw ConfigError("--out " + out.string() + ": cannot create the directory" +
                                                      (ec ? ": " + ec.message() : ""));
  const fs::path stats = out / "stats.json";
  if (fs::is_directory(stats)) throw ConfigError("--out " + out.string() + ": stats.json there is a directory");
  const fs::path probe = out / ".mpgpu-write-probe";
  if (!std::ofstream(probe)) throw ConfigError("--out " + out.string() + ": cannot write in the directory");
  fs::remove(probe, ec);
  fs::remove(stats, ec);
  if (fs::exists(stats)) throw ConfigError("--out " + out.string() + ": cannot remove the previous stats.json");
}

// Messages echo input text: control characters, NUL and bytes that are not UTF-8 are shown as
// \xNN so that a message is one readable line whatever the input held.
std::string printable(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    // Length of a well-formed UTF-8 sequence starting here (0: not one).
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    for (size_t k = 1; k < n; ++k)
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) n = 0;
    if (n == 1 && (c >= 0x20 && c != 0x7f)) {
      out += s[i];
    } else if (n > 1 && !(n == 2 && c < 0xc2)) {  // overlong 2-byte forms are not UTF-8 either
      out.append(s, i, n);
    } else {
      out += fmt::format("\\x{:02x}", c);
      n = 1;
    }
    i += n;
  }
  return out;
}

// The workload of a run: a YAML file, or an Accel-Sim kernelslist.g replayed as one process.
WorkloadDesc load_run_workload(const Args& a) {
  if (a.workload.empty() == a.trace.empty()) throw ConfigError("give exactly one of --workload FILE and --trace kernelslist.g");
  if (!a.trace.empty()) {
    for (const auto& [k, v] : overrides(a))
      if (k.rfind("workload.", 0) == 0) throw ConfigError("--set " + k + ": a --trace run has no workload file to override");
    return workload_from_trace(a.trace);
  }
  return load_workload(a.workload, overrides(a));
}

// validate --format json: what a sweep runner needs to plan runs (the processes, for isolated
// runs), once every input has been checked.
int validate_json(const Args& a, const PlatformConfig& cfg) {
  nlohmann::json out = {{"platform", {{"file", a.platform}, {"name", cfg.name}, {"sms", cfg.sm.count}}}};
  if (!a.workload.empty() || !a.trace.empty()) {
    WorkloadDesc w = load_run_workload(a);
    resolve_workload(cfg, w);
    nlohmann::json procs = nlohmann::json::array();
    for (const auto& p : w.processes) procs.push_back(p.name);
    out["workload"] = {{"file", w.file}, {"name", w.name}, {"processes", procs}, {"kernels", w.kernels.size()},
                       {"launches", w.total_launches()}};
  }
  fmt::print("{}\n", out.dump());
  return 0;
}

int cmd_validate(const Args& a) {
  PlatformConfig cfg = load_checked_platform(a);
  if (a.format == "json") return validate_json(a, cfg);
  fmt::print("{}: platform '{}' is valid: {} SMs at {} MHz, {} L2 slices, {} memory channels, {:.1f} GB/s\n",
             a.platform, cfg.name, cfg.sm.count, cfg.clocks.core, cfg.l2.slices, cfg.dram.channels,
             cfg.dram_peak_gbps());
  if (cfg.fill_unit.translation) {
    const auto colours = page_colours(cfg);
    std::string list;
    for (uint64_t c : colours) {
      std::string mods;
      for (int m = 0; m < 64; ++m)
        if (c >> m & 1) mods += (mods.empty() ? "" : ",") + std::to_string(m);
      list += (list.empty() ? "" : " ") + ("{" + mods + "}");
    }
    fmt::print("translation: paged, {} B pages, {} MiB device memory, {} page colour(s) (memory modules per page): {}\n",
               cfg.fill_unit.paging.page_bytes, cfg.fill_unit.paging.device_memory_bytes >> 20, colours.size(), list);
  } else {
    fmt::print("translation: none (addresses are physical)\n");
  }
  if (!a.workload.empty() || !a.trace.empty()) {
    WorkloadDesc w = load_run_workload(a);
    resolve_workload(cfg, w);
    fmt::print("{}: workload '{}' is valid: {} processes, {} kernels, {} launches\n", w.file, w.name,
               w.processes.size(), w.kernels.size(), w.total_launches());
  }
  return 0;
}

// --tsp: T_SP in ns for every process of the workload, checked before anything is simulated.
std::map<std::string, double> read_tsp(const std::string& file, const WorkloadDesc& w) {
  std::map<std::string, double> t_sp;
  try {
    check_input_file(file);
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("--tsp ") + e.what());
  }
  std::ifstream f(file);
  if (!f) throw ConfigError("--tsp " + file + ": cannot open file");
  nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw ConfigError("--tsp " + file + ": expected a JSON object {process: T_SP ns}");
  for (auto& [name, v] : j.items()) {
    if (!v.is_number() || !(v.get<double>() > 0))
      throw ConfigError("--tsp " + file + ": " + name + ": expected a positive number of ns");
    t_sp[name] = v.get<double>();
  }
  for (const auto& p : w.processes)
    if (!t_sp.count(p.name)) throw ConfigError("--tsp " + file + ": no T_SP for process '" + p.name + "' (" + p.source + ")");
  return t_sp;
}

// --isolated NAME: the index of that process; its isolated run is its own T_SP, so no --tsp.
uint32_t isolated_process(const Args& a, const WorkloadDesc& w) {
  if (!a.tsp.empty()) throw ConfigError("--isolated " + a.isolated + ": an isolated run measures its own T_SP; drop --tsp");
  std::string names;
  for (uint32_t i = 0; i < w.processes.size(); ++i) {
    if (w.processes[i].name == a.isolated) return i;
    names += (names.empty() ? "" : ", ") + w.processes[i].name;
  }
  throw ConfigError("--isolated " + a.isolated + ": " + w.file + " has no such process (it has: " + names + ")");
}

int cmd_run(const Args& a) {
  install_stop_signals();
  PlatformConfig cfg = load_checked_platform(a);
  WorkloadDesc w = load_run_workload(a);
  resolve_workload(cfg, w);
  prepare_out_dir(a.out);  // first: whatever fails from here on leaves no earlier stats.json
  RunOptions opt;
  if (!a.isolated.empty()) opt.isolated_process = isolated_process(a, w);
  if (!a.tsp.empty()) opt.t_sp = read_tsp(a.tsp, w);
  PendingOutputs pending;
  if (!a.timeline.empty()) opt.timeline_path = pending.add(a.timeline, a.timeline + ".partial");
  std::string vcd_file;
  if (!a.vcd.empty()) {
    vcd_file = a.vcd;
    opt.vcd_path = pending.add(vcd_file, a.vcd + ".partial");
  }
  opt.jobs = a.jobs;
  opt.max_host_seconds = a.max_host_seconds;
  RunStats run = run_workload_stats(cfg, w, opt);
  const nlohmann::json& stats = run.doc;
  throw_if_stopped();
  // Written piece by piece: the text of a long run is tens of MB.
  write_atomically(std::filesystem::path(a.out) / "stats.json", [&](std::ostream& f) { run.write(f), f << '\n'; });
  pending.commit();
  if (stats.value("status", "") == "aborted") {
    const auto& ab = stats["abort"];
    std::cerr << fmt::format("error: kernel '{}' of process '{}' aborted at {:.1f} ns: {} (virtual address {}, SM {}, "
                             "TB {}, warp {}); {} has \"status\": \"aborted\" and no metrics\n",
                             ab["kernel"].get<std::string>(), ab["process"].get<std::string>(), ab["at_ns"].get<double>(),
                             ab["reason"].get<std::string>(), ab["vaddr"].get<std::string>(), ab["sm"].get<uint32_t>(),
                             ab["tb"].get<uint32_t>(), ab["warp"].get<uint32_t>(),
                             (std::filesystem::path(a.out) / "stats.json").string());
    return 3;
  }
  print_summary(stats, run.kernels);
  fmt::print("stats: {}\n", (std::filesystem::path(a.out) / "stats.json").string());
  if (!a.timeline.empty()) fmt::print("timeline: {} (open in https://ui.perfetto.dev)\n", a.timeline);
  if (stats["host"].contains("cosim"))
    for (const auto& [table, c] : stats["host"]["cosim"].items())
      fmt::print("{}: {} ({}), {} accesses in {} cycles{}\n", table, c["impl"].get<std::string>(),
                 c["instances"].get<int>() > 1 ? fmt::format("{} instances", c["instances"].get<int>()) : "one instance",
                 c["accesses"].get<uint64_t>(), c["cycles"].get<uint64_t>(),
                 c["impl"] == "core" ? "" : ", every response matched the C++ core");
  if (!vcd_file.empty()) fmt::print("vcd: {} (open in GTKWave)\n", vcd_file);
  return 0;
}

int cmd_report(const Args& a) {
  PlatformConfig cfg = load_checked_platform(a);
  nlohmann::json out = extension_report(cfg);
  if (!a.workload.empty()) {
    // No resolve: a kernel that never fits is reported with 0 TBs per SM, not rejected.
    nlohmann::json k = kernel_report(cfg, load_workload(a.workload, overrides(a)));
    for (auto& [key, v] : k.items()) out[key] = v;
  }
  if (a.format == "json") {
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (!a.workload.empty()) {
    print_kernel_table(out);
    fmt::print("\n");
  }
  print_extension_table(out);
  return 0;
}

}  // namespace

// The banner would pollute stdout; SystemC reads this variable when it first prints.
int main(int argc, char** argv) {
  mpgpu::exec_with_huge_page_heap(argv);
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char** argv) {
  CLI::App app{"mpgpu: SystemC/TLM-2.0 model of a multiprogrammed GPU"};
  app.require_subcommand(1);
  Args a;
  auto* validate = app.add_subcommand("validate", "check a platform (and a workload) without simulating");
  auto* run = app.add_subcommand("run", "simulate a workload on a platform; writes DIR/stats.json");
  auto* report = app.add_subcommand("report", "per-kernel occupancy, storage fraction and context-save time");
  for (auto* sc : {validate, run, report}) {
    sc->add_option("--platform", a.platform, "platform YAML file")->required();
    sc->add_option("--set", a.sets, "override a key: a.b.c=value (prefix workload. for the workload)");
  }
  validate->add_option("--workload", a.workload, "workload YAML file");
  validate->add_option("--trace", a.trace, "Accel-Sim kernelslist.g, validated as a workload");
  validate->add_option("--format", a.format, "table, or json: one line naming the platform and the workload's processes")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  run->add_option("--workload", a.workload, "workload YAML file");
  run->add_option("--trace", a.trace, "Accel-Sim kernelslist.g: replay its copies and kernels as one process");
  run->add_option("--out", a.out, "output directory")->capture_default_str();
  run->add_option("--timeline", a.timeline, "write a Chrome trace-event JSON timeline (Perfetto)");
  run->add_option("--vcd", a.vcd, "dump the pins of the extension tables swapped for pins or verilog (extensions.<table>.impl) to a VCD file");
  run->add_option("--tsp", a.tsp, "JSON {process: T_SP ns}: use these isolated times instead of simulating them");
  run->add_option("--isolated", a.isolated,
                  "simulate only this process of the workload, as its isolated run (the run T_SP is measured on)");
  run->add_option("--jobs", a.jobs, "simulations run in parallel (isolated runs for T_SP)")->capture_default_str();
  run->add_option("--max-host-seconds", a.max_host_seconds,
                  "stop the run (exit 1, naming the simulations still running) after this many host seconds; 0: none")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  report->add_option("--workload", a.workload, "workload YAML file");
  SchemaArgs sa;
  auto* schema = app.add_subcommand("schema", "print the platform and workload key reference (Markdown)");
  schema->add_option("--platform", sa.platforms, "platform files whose loading shows the keys")->required();
  schema->add_option("--workload", sa.workloads, "workload files whose loading shows the keys");
  schema->add_option("--set", sa.sets, "platform override for every platform loaded (to show optional sections)");
  schema->add_option("--notes", sa.notes, "YAML of each key's unit and meaning (docs/key-notes.yaml)");
  schema->add_flag("--check", sa.check, "exit 1 when a key has no note or a note names no key");
  std::vector<std::string> twin_platforms;
  auto* twins = app.add_subcommand("twins", "print the Verilog twin parameter sets the platforms need (rtl/twin_params.cmake)");
  twins->add_option("--platform", twin_platforms, "platform files")->required();
  report->add_option("--format", a.format, "table or json")->capture_default_str()->check(CLI::IsMember({"table", "json"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    if (*validate) return cmd_validate(a);
    if (*run) return cmd_run(a);
    if (*schema) return cmd_schema(sa);
    if (*twins) return cmd_twins(twin_platforms);
    return cmd_report(a);
  } catch (const ConfigError& e) {
    std::string what = e.what();
    // A check across keys (a derived value, a workload against the platform) names a file's key,
    // but an override may be the cause: say which were in force.
    if (!a.sets.empty() && what.find("--set ") == std::string::npos) {
      std::string sets;
      for (const auto& s : a.sets) sets += (sets.empty() ? "" : ", ") + ("--set " + s);
      what += " (overrides in force: " + sets + ")";
    }
    std::cerr << "error: " << printable(what) << "\n";
    return 2;
  } catch (const Stopped& e) {
    std::cerr << "error: " << e.what() << ": simulations stopped, no result written\n";
    return 128 + e.signal;
  } catch (const SimError& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << printable(e.what()) << "\n";
    return 1;
  }
}
