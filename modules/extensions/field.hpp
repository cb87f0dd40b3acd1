#pragma once
// Field layouts of the hardware tables: every field has a width derived from the platform, and
// writes are checked against it, so the declared storage is the storage the model really uses.
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace mpgpu {

struct Field {
  std::string name;
  uint32_t bits;
};
using FieldLayout = std::vector<Field>;

// Bits to hold values 0 .. n-1 (at least 1).
inline uint32_t bits_for(uint64_t n) {
  uint32_t b = 1;
  while (b < 64 && (uint64_t{1} << b) < n) ++b;
  return b;
}

inline uint32_t total_bits(const FieldLayout& l) {
  uint32_t t = 0;
  for (const auto& f : l) t += f.bits;
  return t;
}

inline uint32_t field_bits(const FieldLayout& l, const std::string& name) {
  for (const auto& f : l)
    if (f.name == name) return f.bits;
  throw SimError("no field '" + name + "'");
}

// The error checked() throws, out of line: the check itself then inlines into every table write.
[[noreturn, gnu::cold, gnu::noinline]] inline void field_overflow(uint64_t value, uint32_t bits, const char* table,
                                                                  const char* field) {
  throw SimError(std::string(table) + "." + field + ": value " + std::to_string(value) + " exceeds " +
                 std::to_string(bits) + " bits");
}

// Throws when `value` does not fit an unsigned field of `bits`.
inline uint64_t checked(uint64_t value, uint32_t bits, const char* table, const char* field) {
  if (bits < 64 && value >> bits) field_overflow(value, bits, table, field);
  return value;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void signed_field_overflow(int64_t value, uint32_t bits, const char* table,
                                                                         const char* field) {
  throw SimError(std::string(table) + "." + field + ": value " + std::to_string(value) + " exceeds " +
                 std::to_string(bits) + " signed bits");
}

// Signed variant (two's complement field).
inline int64_t checked_signed(int64_t value, uint32_t bits, const char* table, const char* field) {
  const int64_t lo = -(int64_t{1} << (bits - 1)), hi = (int64_t{1} << (bits - 1)) - 1;
  if (value < lo || value > hi) signed_field_overflow(value, bits, table, field);
  return value;
}

}  // namespace mpgpu
