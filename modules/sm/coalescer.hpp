#pragma once
// The ld/st unit's address front end: the coalescer merges the lanes of a global access into one
// request per cache line, and the shared-memory bank-conflict degree counts the passes a shared
// access needs (lanes reading the same word are served together, as a broadcast).
#include <algorithm>
#include <cstdint>

namespace mpgpu {

struct CoalescedLines {
  static constexpr int kMax = 64;  // 32 lanes, each may straddle two lines
  uint64_t line[kMax];
  uint32_t bytes[kMax];  // distinct bytes touched, at the granule below
  uint64_t touched[kMax];  // one bit per granule of the line (line_bytes / 64, at least 1 B)
  int count = 0;
};

// Granules [g0, g1] of a line as a mask.
inline uint64_t granule_mask(uint32_t g0, uint32_t g1) {
  return (g1 - g0 == 63 ? ~uint64_t{0} : ((uint64_t{1} << (g1 - g0 + 1)) - 1)) << g0;
}

// Lanes reading one contiguous range in lane order (the fully coalesced case): its lines in
// ascending order, each touched over the range's part of it; false (nothing written) otherwise.
// The same lines, order and granules as merging lane by lane.
// `known`: the caller knows the lanes are contiguous (the check is skipped).
inline bool coalesce_contiguous(const uint64_t* addrs, int lanes, uint32_t width, int line_shift,
                                int granule_shift, CoalescedLines& out, bool known = false) {
  if (lanes <= 0) return false;
  for (int l = 1; l < lanes && !known; ++l)
    if (addrs[l] != addrs[l - 1] + width) return false;
  const uint64_t lo = addrs[0], hi = addrs[lanes - 1] + width - 1;  // inclusive
  if (hi < lo) return false;  // wraps past 2^64
  const uint64_t offset_mask = (uint64_t{1} << line_shift) - 1;
  const uint64_t first = lo >> line_shift, last = hi >> line_shift;
  for (uint64_t line = first; line <= last; ++line) {
    const uint64_t b0 = line == first ? lo & offset_mask : 0, b1 = line == last ? hi & offset_mask : offset_mask;
    out.line[out.count] = line;
    out.touched[out.count++] = granule_mask(uint32_t(b0 >> granule_shift), uint32_t(b1 >> granule_shift));
  }
  return true;
}

// Distinct bytes of each line from its granules.
inline void count_line_bytes(uint32_t line_bytes, int granule_shift, CoalescedLines& out) {
  for (int i = 0; i < out.count; ++i)
    out.bytes[i] = std::min<uint32_t>(line_bytes, __builtin_popcountll(out.touched[i]) << granule_shift);
}

// The general coalescer: lanes merged one by one, lines in first-touch order.
inline void coalesce_lanes(const uint64_t* addrs, int lanes, uint32_t width, uint32_t line_bytes,
                           CoalescedLines& out) {
  out.count = 0;
  const int line_shift = __builtin_ctz(line_bytes);
  const int granule_shift = line_shift >= 6 ? line_shift - 6 : 0;  // 64 granules per line
  const uint64_t offset_mask = line_bytes - 1;
  auto add = [&](uint64_t line, uint32_t offset, uint32_t bytes) {
    const uint64_t mask = granule_mask(offset >> granule_shift, (offset + bytes - 1) >> granule_shift);
    for (int i = out.count - 1; i >= 0; --i)  // newest first: neighbouring lanes share lines
      if (out.line[i] == line) {
        out.touched[i] |= mask;
        return;
      }
    out.line[out.count] = line;
    out.touched[out.count++] = mask;
  };
  for (int l = 0; l < lanes; ++l) {
    const uint64_t first = addrs[l] >> line_shift, last = (addrs[l] + width - 1) >> line_shift;
    const uint32_t offset = static_cast<uint32_t>(addrs[l] & offset_mask);
    if (first == last) {
      add(first, offset, width);
    } else {
      const uint32_t head = line_bytes - offset;
      add(first, offset, head);
      add(last, 0, width - head);
    }
  }
  count_line_bytes(line_bytes, granule_shift, out);
}

// addrs: one address per active lane; width: bytes per lane. Lines in first-touch order.
// line_bytes must be a power of two (the platform checks): shifts, not divisions, per lane.
// `contiguous`: each lane's address is known to follow the previous one's by `width`.
inline void coalesce(const uint64_t* addrs, int lanes, uint32_t width, uint32_t line_bytes,
                     CoalescedLines& out, bool contiguous = false) {
  out.count = 0;
  const int line_shift = __builtin_ctz(line_bytes);
  const int granule_shift = line_shift >= 6 ? line_shift - 6 : 0;
  if (coalesce_contiguous(addrs, lanes, width, line_shift, granule_shift, out, contiguous))
    count_line_bytes(line_bytes, granule_shift, out);
  else
    coalesce_lanes(addrs, lanes, width, line_bytes, out);
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
