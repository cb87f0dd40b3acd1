#include "common/host_memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace mpgpu {

double peak_rss_mib() {
  double self_kib = 0;
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) self_kib = std::stod(line.substr(6));
  // The children were forked from this small process, so their maxrss is their own.
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  return std::max(self_kib, static_cast<double>(children.ru_maxrss)) / 1024.0;
}

}  // namespace mpgpu
