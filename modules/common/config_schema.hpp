#pragma once
// The configuration schema as the readers themselves declare it: while a ConfigSchema is active,
// every key a reader asks for (and the type, default and range it asks with) is recorded under
// its pattern (list items as `[]`, user-named map entries as `<name>`). `mpgpu schema` loads the
// bundled platforms and workloads with one active and prints the reference from it, so the
// reference cannot list a key the code does not read or miss one it does (for the files loaded).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mpgpu {

struct SchemaKey {
  std::string type;   // integer, number, bool, string, one of .., list, map, value
  std::string def;    // the default when the key is left out; empty: required or no single default
  std::string range;  // [lo, hi] of numbers
  bool required = false;
};

class ConfigSchema {
 public:
  // The recorder in use, if any (one per process; `mpgpu schema` only).
  static ConfigSchema* active;

  // A key read with a type (rank: typed > list/map > value; a later, better-typed read wins).
  void record(const std::string& pattern, const std::string& type, const std::string& def = "",
              const std::string& range = "");
  void presence(const std::string& pattern, bool required);
  const std::map<std::string, SchemaKey>& keys() const { return keys_; }

  static std::string int_range(int64_t lo, int64_t hi);
  static std::string num_range(double lo, double hi);
  static std::string number(double v);

 private:
  std::map<std::string, SchemaKey> keys_;
};

}  // namespace mpgpu
