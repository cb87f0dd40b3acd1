#pragma once
// One self-overwriting progress line on stderr, only when stderr is a terminal and not in CI.
#include <chrono>
#include <cstdint>
#include <string>

namespace mpgpu {

class ProgressLine {
 public:
  explicit ProgressLine(std::string label, bool wanted = true);
  ~ProgressLine();
  bool enabled() const { return enabled_; }
  // Cheap to call often: looks at the wall clock every 1024 calls.
  void tick(double sim_us, uint64_t done, uint64_t total) {
    if (enabled_ && (++calls_ & 1023) == 0) maybe_print(sim_us, done, total);
  }

 private:
  void maybe_print(double sim_us, uint64_t done, uint64_t total);
  std::string label_;
  bool enabled_ = false;
  bool printed_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace mpgpu
