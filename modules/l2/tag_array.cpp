#include "l2/tag_array.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mpgpu {

namespace {
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
}  // namespace

TagArray::TagArray(uint32_t sets, uint32_t ways) : sets_(sets), ways_(ways) {
  if (ways == 0 || ways > kWayBits) throw std::invalid_argument("tag array: ways must be 1..32767");
  order_at_ = size_t(ways) * 8;
  owners_at_ = order_at_ + size_t(ways) * 2;
  stride_ = round_up(owners_at_ + size_t(ways) * 2, 64);
  words_.assign(size_t(sets) * stride_ / 8 + 8, 0);
  base_ = (64 - reinterpret_cast<uintptr_t>(words_.data()) % 64) % 64 / 8;
  for (uint32_t s = 0; s < sets; ++s) {
    const SetView v = view(s);
    std::fill(v.tags, v.tags + ways, kInvalid);
    for (uint32_t k = 0; k < ways; ++k) v.order[k] = uint16_t(ways - 1 - k);  // way 0 least recent, all clean
  }
}

TagArray::SetView TagArray::view(uint32_t set) const {
  auto* rec = reinterpret_cast<uint8_t*>(const_cast<uint64_t*>(words_.data() + base_)) + size_t(set) * stride_;
  return {reinterpret_cast<uint64_t*>(rec), reinterpret_cast<uint16_t*>(rec + order_at_),
          reinterpret_cast<uint16_t*>(rec + owners_at_)};
}

uint32_t TagArray::rank(const SetView& v, uint32_t w) const {
  uint32_t at = 0;
  while ((v.order[at] & kWayBits) != w) ++at;
  return at;
}

bool TagArray::contains(uint32_t set, uint64_t line) const {
  const SetView v = view(set);
  return std::find(v.tags, v.tags + ways_, line) != v.tags + ways_;
}

void TagArray::clean(uint32_t set, uint64_t line) {
  const SetView v = view(set);
  const uint64_t* hit = std::find(v.tags, v.tags + ways_, line);  // a line is in one way at most
  if (hit != v.tags + ways_) v.order[rank(v, uint32_t(hit - v.tags))] &= kWayBits;
}

bool TagArray::access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                      uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  if (owner > 0xffff) throw std::out_of_range("tag array: owner context " + std::to_string(owner) + " beyond 65535");
  const SetView v = view(set);
  if (evicted) *evicted = kInvalid;
  if (victim_owner) *victim_owner = kNoOwner;
  const uint64_t* hit = std::find(v.tags, v.tags + ways_, line);
  const uint16_t dirty = write ? kDirty : 0;
  // The way used moves to the front of the order; a miss takes the last (least recent) one.
  uint32_t w, at;
  uint16_t entry;
  if (hit != v.tags + ways_) {
    w = uint32_t(hit - v.tags);
    at = rank(v, w);
    entry = v.order[at] | dirty;
  } else {
    at = ways_ - 1;
    w = v.order[at] & kWayBits;
    const uint64_t old = v.tags[w];
    if (evicted && (v.order[at] & kDirty) && old != kInvalid) *evicted = old;
    if (victim_owner && old != kInvalid) *victim_owner = v.owners[w];
    if (replaced) *replaced = old;
    v.tags[w] = line;
    v.owners[w] = uint16_t(owner);
    entry = uint16_t(w) | dirty;
  }
  std::memmove(v.order + 1, v.order, size_t(at) * sizeof(uint16_t));
  v.order[0] = entry;
  if (way) *way = size_t(set) * ways_ + w;
  return hit != v.tags + ways_;
}

}  // namespace mpgpu
