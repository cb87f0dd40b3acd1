#pragma once
// The ld/st unit's address front end: the coalescer merges the lanes of a global access into one
// request per cache line, and the shared-memory bank-conflict degree counts the passes a shared
// access needs (lanes reading the same word are served together, as a broadcast).
#include <cstdint>

namespace mpgpu {

struct CoalescedLines {
  static constexpr int kMax = 64;  // 32 lanes, each may straddle two lines
  uint64_t line[kMax];
  uint32_t bytes[kMax];
  int count = 0;
};

// addrs: one address per active lane; width: bytes per lane. Lines in first-touch order.
inline void coalesce(const uint64_t* addrs, int lanes, uint32_t width, uint32_t line_bytes,
                     CoalescedLines& out) {
  out.count = 0;
  auto add = [&](uint64_t line, uint32_t bytes) {
    for (int i = 0; i < out.count; ++i)
      if (out.line[i] == line) {
        out.bytes[i] += bytes;
        return;
      }
    out.line[out.count] = line;
    out.bytes[out.count++] = bytes;
  };
  for (int l = 0; l < lanes; ++l) {
    const uint64_t first = addrs[l] / line_bytes, last = (addrs[l] + width - 1) / line_bytes;
    if (first == last) {
      add(first, width);
    } else {
      const uint32_t head = static_cast<uint32_t>(last * line_bytes - addrs[l]);
      add(first, head);
      add(last, width - head);
    }
  }
  for (int i = 0; i < out.count; ++i)
    if (out.bytes[i] > line_bytes) out.bytes[i] = line_bytes;  // lanes overlapping within a line
}

// Passes a shared-memory access needs: the most distinct 4-byte words any one bank must serve.
inline uint32_t shared_bank_conflicts(const uint64_t* addrs, int lanes, uint32_t banks) {
  uint64_t word[32];
  uint32_t bank_of[32];
  int distinct = 0;
  for (int l = 0; l < lanes && l < 32; ++l) {
    const uint64_t w = addrs[l] / 4;
    bool seen = false;
    for (int i = 0; i < distinct; ++i) seen |= word[i] == w;
    if (!seen) {
      word[distinct] = w;
      bank_of[distinct++] = static_cast<uint32_t>(w % banks);
    }
  }
  uint32_t worst = lanes > 0 ? 1 : 0;
  for (int i = 0; i < distinct; ++i) {
    uint32_t n = 0;
    for (int j = 0; j < distinct; ++j) n += bank_of[j] == bank_of[i];
    if (n > worst) worst = n;
  }
  return worst;
}

}  // namespace mpgpu
