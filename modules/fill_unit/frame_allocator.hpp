#pragma once
// The driver's physical page allocator (SPEC 1, SPEC 6). Device memory is cut into frames of the
// platform's page size; a frame's colour is the set of memory modules (L2 slice + memory
// controller) its lines map to under the platform's address map. One free list per colour: an
// unconstrained request takes the lowest free frame, a constrained one the lowest free frame
// whose modules all lie in the allowed set (at most 64 modules: a platform with more has a
// single colour). Frames are never freed (a run's processes keep their
// memory until the end).
#include <boost/dynamic_bitset.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/address_map.hpp"

namespace mpgpu {

class FrameAllocator {
 public:
  FrameAllocator(uint64_t capacity_bytes, uint64_t page_bytes, const AddressMap& map);

  // The lowest free frame (as a frame number) whose modules are within `allowed_modules`
  // (bit i: module i; 0: any); none when memory (of that colour) is exhausted.
  std::optional<uint64_t> allocate(uint64_t allowed_modules = 0);
  // The lowest free run of `count` frames starting at a multiple of `align` frames (any colour),
  // all taken; none when no such run is free.
  std::optional<uint64_t> allocate_run(uint64_t count, uint64_t align);
  // Bit i set: some line of frame `frame` maps to memory module i.
  uint64_t modules_of(uint64_t frame) const { return modules_of(map_, page_bytes_, frame); }
  static uint64_t modules_of(const AddressMap& map, uint64_t page_bytes, uint64_t frame);
  // The distinct module sets frames have (the colours), from a scan of the first frames; the
  // address map repeats, so a few thousand frames show them all.
  std::vector<uint64_t> colours() const { return colours_of(map_, page_bytes_, frames_); }
  // The same without an allocator: the colours of `frames` frames of `page_bytes` under `map`.
  static std::vector<uint64_t> colours_of(const AddressMap& map, uint64_t page_bytes, uint64_t frames);

  uint64_t frames() const { return frames_; }
  uint64_t allocated() const { return allocated_; }
  uint64_t page_bytes() const { return page_bytes_; }

 private:
  uint64_t frames_, page_bytes_;
  const AddressMap& map_;
  boost::dynamic_bitset<> taken_;
  std::map<uint64_t, uint64_t> cursor_;  // per allowed-module set: no free match below it
  uint64_t allocated_ = 0;
};

}  // namespace mpgpu
