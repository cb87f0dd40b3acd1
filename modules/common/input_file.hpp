#pragma once
// Input files are read to their end: only a regular file or a pipe qualifies. A directory, a
// device that never ends (/dev/zero) or a name the system refuses (too long) is bad input.
#include <string>

namespace mpgpu {

// Throws ConfigError "<path>: cannot open file (<why>)" unless `path` is a regular file or a pipe.
void check_input_file(const std::string& path);

// Why a file with this st_mode cannot be input ("" when it can): shared with readers that fstat.
std::string unreadable_kind(unsigned mode);

}  // namespace mpgpu
