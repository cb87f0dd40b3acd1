#include "l2/tag_array.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mpgpu {

namespace {
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
}  // namespace

TagArray::TagArray(uint32_t sets, uint32_t ways) : sets_(sets), ways_(ways) {
  if (ways == 0 || ways > 65535) throw std::invalid_argument("tag array: ways must be 1..65535");
  owners_at_ = size_t(ways) * 8;
  order_at_ = owners_at_ + round_up(size_t(ways) * 4, 8);
  dirty_at_ = order_at_ + size_t(ways) * 2;
  stride_ = round_up(dirty_at_ + ways, 64);
  words_.assign(size_t(sets) * stride_ / 8 + 8, 0);
  base_ = (64 - reinterpret_cast<uintptr_t>(words_.data()) % 64) % 64 / 8;
  for (uint32_t s = 0; s < sets; ++s) {
    const SetView v = view(s);
    std::fill(v.tags, v.tags + ways, kInvalid);
    for (uint32_t k = 0; k < ways; ++k) v.order[k] = uint16_t(ways - 1 - k);  // way 0 least recent
  }
}

TagArray::SetView TagArray::view(uint32_t set) const {
  auto* rec = reinterpret_cast<uint8_t*>(const_cast<uint64_t*>(words_.data() + base_)) + size_t(set) * stride_;
  return {reinterpret_cast<uint64_t*>(rec), reinterpret_cast<uint32_t*>(rec + owners_at_),
          reinterpret_cast<uint16_t*>(rec + order_at_), rec + dirty_at_};
}

bool TagArray::contains(uint32_t set, uint64_t line) const {
  const SetView v = view(set);
  return std::find(v.tags, v.tags + ways_, line) != v.tags + ways_;
}

void TagArray::clean(uint32_t set, uint64_t line) {
  const SetView v = view(set);
  for (uint32_t w = 0; w < ways_; ++w)
    if (v.tags[w] == line) v.dirty[w] = 0;
}

bool TagArray::access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                      uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  const SetView v = view(set);
  if (evicted) *evicted = kInvalid;
  if (victim_owner) *victim_owner = kNoOwner;
  const uint64_t* hit = std::find(v.tags, v.tags + ways_, line);
  // The way used moves to the front of the order; a miss takes the last (least recent) one.
  uint32_t w, at;
  if (hit != v.tags + ways_) {
    w = uint32_t(hit - v.tags);
    at = uint32_t(std::find(v.order, v.order + ways_, uint16_t(w)) - v.order);
    v.dirty[w] |= uint8_t(write);
  } else {
    at = ways_ - 1;
    w = v.order[at];
    const uint64_t old = v.tags[w];
    if (evicted && v.dirty[w] && old != kInvalid) *evicted = old;
    if (victim_owner && old != kInvalid) *victim_owner = v.owners[w];
    if (replaced) *replaced = old;
    v.tags[w] = line;
    v.owners[w] = owner;
    v.dirty[w] = uint8_t(write);
  }
  std::memmove(v.order + 1, v.order, size_t(at) * sizeof(uint16_t));
  v.order[0] = uint16_t(w);
  if (way) *way = size_t(set) * ways_ + w;
  return hit != v.tags + ways_;
}

}  // namespace mpgpu
