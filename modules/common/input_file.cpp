#include "common/input_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace mpgpu {

std::string unreadable_kind(unsigned mode) {
  if (S_ISREG(mode) || S_ISFIFO(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a file";
  return "not a regular file";
}

void check_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw ConfigError(path + ": cannot open file (" + std::strerror(errno) + ")");
  if (const std::string kind = unreadable_kind(st.st_mode); !kind.empty())
    throw ConfigError(path + ": cannot open file (" + kind + ")");
}

}  // namespace mpgpu
