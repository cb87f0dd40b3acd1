#pragma once
// Chrome trace-event JSON (opens in Perfetto), streamed to its file while simulating. The command
// line gives a temporary name and renames it only when the whole run succeeds; a timeline never
// committed (the simulation failed) is removed.
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

namespace mpgpu {

class Timeline {
 public:
  // Track groups ("processes" in trace-event terms).
  static constexpr int kProcessesPid = 1;
  static constexpr int kKernelsPid = 2;
  static constexpr int kHostLinkPid = 3;
  static constexpr int kFillUnitPid = 4;  // walks per walker, faults per context
  static constexpr int kBlockSchedulerPid = 5;  // TB-mix phases (SPEC 5)
  static int sm_pid(int sm) { return 100 + sm; }

  explicit Timeline(const std::string& path);  // empty path: disabled
  ~Timeline();
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  bool enabled() const { return file_ != nullptr; }
  void name_group(int pid, const std::string& name);
  void name_track(int pid, int tid, const std::string& name);
  // A complete event ("X"); times in ns.
  void span(int pid, int tid, const std::string& name, const std::string& category, double start_ns,
            double end_ns, const std::string& args_json = "");
  void instant(int pid, int tid, const std::string& name, double at_ns);
  // Close the JSON: the file is complete.
  void commit();

 private:
  void emit(const std::string& event);
  std::string path_;
  std::FILE* file_ = nullptr;
  bool first_ = true;
  std::set<std::pair<int, int>> named_;
};

std::string json_escape(const std::string& s);

}  // namespace mpgpu
