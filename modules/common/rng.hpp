#pragma once
// Counter-based random numbers: a value depends only on (seed, stream, index), so a TB's run
// time is the same in the isolated and the multiprogrammed run, whatever the dispatch order.
#include <cmath>
#include <cstdint>

namespace mpgpu {

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t hash3(uint64_t a, uint64_t b, uint64_t c) {
  return splitmix64(a ^ splitmix64(b ^ splitmix64(c)));
}

// Uniform in (0, 1).
inline double unit_uniform(uint64_t h) { return ((h >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

// Standard normal by Box-Muller from two independent hashes.
inline double standard_normal(uint64_t h) {
  const double u1 = unit_uniform(h);
  const double u2 = unit_uniform(splitmix64(h));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace mpgpu
