#include "common/config_schema.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mpgpu {

ConfigSchema* ConfigSchema::active = nullptr;

namespace {
int rank(const std::string& type) {
  if (type == "value") return 0;
  if (type == "list" || type == "map") return 1;
  return 2;
}
std::string integer(int64_t v) {
  if (v == std::numeric_limits<int64_t>::max()) return "2^63-1";
  if (v == std::numeric_limits<int64_t>::min()) return "-2^63";
  if (v < 0) return "-" + integer(-v);
  if ((v & (v - 1)) == 0 && v >= (int64_t{1} << 16)) return fmt::format("2^{}", __builtin_ctzll(v));
  return std::to_string(v);
}
// Loop bodies nest: `body[].body[]` reads the same keys as `body[]`.
std::string collapse(std::string p) {
  for (size_t at; (at = p.find("body[].body[]")) != std::string::npos;) p.erase(at, 7);
  return p;
}
}  // namespace

void ConfigSchema::record(const std::string& pattern, const std::string& type, const std::string& def,
                          const std::string& range) {
  SchemaKey& k = keys_[collapse(pattern)];
  if (k.type.empty() || rank(type) > rank(k.type) || (rank(type) == rank(k.type) && type != k.type && rank(type) < 2))
    k.type = type;
  if (!def.empty()) k.def = k.def.empty() || k.def == def ? def : "(varies)";  // e.g. the file's name
  if (!range.empty() && rank(type) == 2) k.range = range;
}

void ConfigSchema::presence(const std::string& pattern, bool required) {
  SchemaKey& k = keys_[collapse(pattern)];
  if (k.type.empty()) k.type = "value";
  if (required) k.required = true;
}

std::string ConfigSchema::int_range(int64_t lo, int64_t hi) { return "[" + integer(lo) + ", " + integer(hi) + "]"; }

std::string ConfigSchema::number(double v) {
  if (std::fabs(v) >= 1e6 && std::fabs(v) < 1e300) return fmt::format("{:.6g}", v);
  return fmt::format("{}", v);
}

std::string ConfigSchema::num_range(double lo, double hi) { return "[" + number(lo) + ", " + number(hi) + "]"; }

}  // namespace mpgpu
