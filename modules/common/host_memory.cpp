#include "common/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

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

namespace {
constexpr const char* kHugePageTunable = "glibc.malloc.hugetlb=1";
}  // namespace

bool heap_huge_pages() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  return t && (":" + std::string(t) + ":").find(":" + std::string(kHugePageTunable) + ":") != std::string::npos;
}

void exec_with_huge_page_heap(char** argv) {
  if (std::getenv("MPGPU_HEAP_HUGE_PAGES")) return;
  setenv("MPGPU_HEAP_HUGE_PAGES", "1", 1);  // the new image does not exec again
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);  // valgrind answers with its client
  if (n <= 0) return;
  self[n] = '\0';
  const char* had = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = (had && *had ? std::string(had) + ":" : std::string()) + kHugePageTunable;
  setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  execv(self, argv);
  if (had) setenv("GLIBC_TUNABLES", had, 1);  // the exec failed: run on as we are
  else unsetenv("GLIBC_TUNABLES");
}

}  // namespace mpgpu
