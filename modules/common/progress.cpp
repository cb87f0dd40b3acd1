#include "common/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace mpgpu {

ProgressLine::ProgressLine(std::string label, bool wanted) : label_(std::move(label)) {
  const char* ci = std::getenv("CI");
  enabled_ = wanted && isatty(STDERR_FILENO) && !(ci && *ci && std::string(ci) != "false");
  last_ = std::chrono::steady_clock::now();
}

ProgressLine::~ProgressLine() {
  if (printed_) std::fprintf(stderr, "\r\033[K");
}

void ProgressLine::maybe_print(double sim_us, uint64_t done, uint64_t total) {
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  printed_ = true;
  std::fprintf(stderr, "\r\033[K%s: %.1f us simulated, %llu/%llu TBs done", label_.c_str(), sim_us,
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
  std::fflush(stderr);
}

}  // namespace mpgpu
