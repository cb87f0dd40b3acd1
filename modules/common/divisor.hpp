#pragma once
// Division by a platform constant (a set count, a line size, an interleave): a shift or a mask
// when it is a power of two (every bundled platform), a hardware divide otherwise. Address
// decoding and cache set selection run on every request.
#include <cstdint>

namespace mpgpu {

struct Divisor {
  uint64_t d = 1;
  int shift = 0;  // -1: not a power of two
  Divisor() = default;
  explicit Divisor(uint64_t v) : d(v ? v : 1), shift(d & (d - 1) ? -1 : __builtin_ctzll(d)) {}
  uint64_t div(uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
  uint64_t mod(uint64_t x) const { return shift >= 0 ? x & (d - 1) : x % d; }
};

}  // namespace mpgpu
