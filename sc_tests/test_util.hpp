#pragma once
// Helpers for tests: temporary files, running the mpgpu binary, project paths.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mpgpu::test {

inline std::string source_path(const std::string& rel) { return std::string(MPGPU_SOURCE_DIR) + "/" + rel; }

// A file's bytes ("" when it cannot be read).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// A fresh directory under the system temp dir, removed with the object.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/mpgpu_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = path / name;
    std::ofstream(p) << text;
    return p.string();
  }
};

struct CommandResult {
  int exit_code;
  std::string output;  // stdout and stderr
};

// A shell command line, its stderr with its stdout.
inline CommandResult run_command(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  CommandResult r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline CommandResult run_mpgpu(const std::string& args) { return run_command(std::string(MPGPU_BINARY) + " " + args); }

// A 4 KB YAML flow sequence of nested aliases that stands for 10^9 nodes once expanded.
inline std::string alias_bomb_yaml() {
  std::string b = "[&b0 [x, x, x, x, x, x, x, x, x, x]";
  for (int i = 1; i <= 8; ++i) {
    const std::string prev = "*b" + std::to_string(i - 1);
    b += ", &b" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) b += ", " + prev;
    b += "]";
  }
  return b + "]";
}

}  // namespace mpgpu::test
