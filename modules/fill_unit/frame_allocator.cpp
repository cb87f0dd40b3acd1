#include "fill_unit/frame_allocator.hpp"

#include <algorithm>
#include <set>

namespace mpgpu {

FrameAllocator::FrameAllocator(uint64_t capacity_bytes, uint64_t page_bytes, const AddressMap& map)
    : frames_(capacity_bytes / page_bytes), page_bytes_(page_bytes), map_(map), taken_(frames_) {}

uint64_t FrameAllocator::modules_of(const AddressMap& map, uint64_t page_bytes, uint64_t frame) {
  // Every line of the frame, at the address map's finest granule (a line, or an interleave chunk).
  const AddressMapParams& p = map.params();
  const uint64_t step = p.kind == AddressMapParams::Kind::interleave
                            ? std::min<uint64_t>(p.interleave_bytes, p.line_bytes)
                            : p.line_bytes;
  uint64_t mask = 0;
  const uint64_t all = p.partitions >= 64 ? ~uint64_t{0} : (uint64_t{1} << p.partitions) - 1;
  if (p.partitions > 64) return all;  // module sets are 64-bit masks: one colour beyond 64 modules
  for (uint64_t off = 0; off < page_bytes && mask != all; off += step)
    mask |= uint64_t{1} << (map.decode(frame * page_bytes + off).partition % 64);
  return mask;
}

std::optional<uint64_t> FrameAllocator::allocate(uint64_t allowed) {
  // Frames are never freed, so every frame of this colour below the cursor is taken.
  uint64_t& cur = cursor_[allowed];
  for (uint64_t f = cur; f < frames_; ++f) {
    if (taken_.test(f) || (allowed != 0 && (modules_of(f) & ~allowed) != 0)) continue;
    taken_.set(f);
    cur = f + 1;
    ++allocated_;
    return f;
  }
  cur = frames_;
  return std::nullopt;
}

std::optional<uint64_t> FrameAllocator::allocate_run(uint64_t count, uint64_t align) {
  if (count == 0 || align == 0) return std::nullopt;
  const auto first_taken_from = [&](uint64_t i) { return i == 0 ? taken_.find_first() : taken_.find_next(i - 1); };
  for (uint64_t start = 0; start + count <= frames_;) {
    const uint64_t t = first_taken_from(start);
    if (t == boost::dynamic_bitset<>::npos || t >= start + count) {
      for (uint64_t f = start; f < start + count; ++f) taken_.set(f);
      allocated_ += count;
      return start;
    }
    start = (t / align + 1) * align;  // the next aligned start past the taken frame
  }
  return std::nullopt;
}

std::vector<uint64_t> FrameAllocator::colours_of(const AddressMap& map, uint64_t page_bytes, uint64_t frames) {
  std::set<uint64_t> seen;
  const uint64_t scan = std::min<uint64_t>(frames, 4096);
  for (uint64_t f = 0; f < scan; ++f) seen.insert(modules_of(map, page_bytes, f));
  return {seen.begin(), seen.end()};
}

}  // namespace mpgpu
