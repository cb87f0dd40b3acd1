#pragma once
// Running simulations. SystemC elaborates once per OS process, so every simulation (the
// multiprogrammed run and each process's isolated run) runs in a forked child that reports its
// result as JSON; the parent never elaborates.
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/platform_config.hpp"
#include "platform/text_pieces.hpp"
#include "workload/workload.hpp"

namespace mpgpu {

// Checks every launched kernel fits the platform and turns TB times into core cycles (calibrated kernels:
// mean TB time = kernel time / waves at full occupancy). Throws ConfigError.
void resolve_workload(const PlatformConfig& cfg, WorkloadDesc& w);

enum class ListKind : char { kernels = 'K', preemptions = 'P' };  // the long stats lists

struct SimRequest {
  std::vector<uint32_t> processes;  // which of the workload's processes take part
  bool isolated = false;            // one run of the single process, no replay
  std::string timeline_path;        // empty: none
  std::string vcd_path;             // empty: none; traces the pin views in use
  bool progress = false;
  // Set by simulate_forked: the long lists are printed as the text stats.json prints and handed
  // to the sink piece by piece as they are printed, not put into the result (see RunStats).
  std::function<void(ListKind, std::string_view)> list_sink;
};

// One simulation in this OS process (call at most once per process). Result JSON, see run(); a
// run that could not finish returns {"error": message, "kind": "config" | "sim"} instead (not an
// exception: see simulation.cpp). Bad input found before elaborating still throws ConfigError.
nlohmann::json simulate_here(const PlatformConfig& cfg, const WorkloadDesc& w, const SimRequest& req);

// Several simulations in forked children, at most `jobs` at a time (forked_runs.cpp). Errors in a
// child are rethrown here as the same kind (ConfigError or SimError). With max_host_seconds > 0,
// the children still running at that host time are killed and SimError names them. A stop
// signal (common/stop_signals.hpp) kills the children and throws Stopped.
// Long lists travel from a child as the text stats.json prints them. With `list_texts`, they stay
// text (see RunStats) instead of being parsed: each result's "kernels" array (the result then holds
// "_kernel_records", its length) and its "scheduling.preemption_list".
struct ListTexts {
  TextPieces kernels, preemptions;  // empty: not sent
};
std::vector<nlohmann::json> simulate_forked(const PlatformConfig& cfg, const WorkloadDesc& w,
                                            const std::vector<SimRequest>& reqs, unsigned jobs,
                                            double max_host_seconds = 0,
                                            std::vector<ListTexts>* list_texts = nullptr);

struct RunOptions {
  std::string timeline_path;
  std::string vcd_path;
  unsigned jobs = 2;
  double max_host_seconds = 0;  // 0: no limit
  // Isolated times given by the caller (process name -> T_SP in ns): no isolated simulations.
  std::map<std::string, double> t_sp;
  // Simulate only this process, as its isolated run (what T_SP is measured on): the sweep runner
  // makes the isolated runs runs of their own and hands their T_SP to the others with --tsp.
  std::optional<uint32_t> isolated_process;
};

// A run's stats.json with the per-launch records ("kernels") kept as the text they are written as:
// with thousands of launches they are most of the file, and building them into a JSON tree in the
// simulation, sending them as text, parsing them in the parent and printing them again took most
// of such a run. The child prints them once; the parent splices the text into the file.
struct RunStats {
  nlohmann::json doc;        // everything but "kernels"
  TextPieces kernels_text;  // the "kernels" array as stats.json prints it (indent 2, depth 1)
  TextPieces preemptions_text;  // "scheduling.preemption_list" likewise (depth 2); empty: in doc
  size_t kernels = 0;        // records in it
  // The whole stats.json text, as doc-with-the-lists.dump(2) would give (doc unchanged): written
  // piece by piece, never held whole.
  void write(std::ostream& out);
  std::string dump();  // the same text as one string (tests)
};

// The multiprogrammed run plus isolated runs for T_SP.
RunStats run_workload_stats(const PlatformConfig& cfg, const WorkloadDesc& w, const RunOptions& opt);
// The same as one JSON document (the records parsed back; for tests and callers that read them).
nlohmann::json run_workload(const PlatformConfig& cfg, const WorkloadDesc& w, const RunOptions& opt);

}  // namespace mpgpu
