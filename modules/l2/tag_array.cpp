#include "l2/tag_array.hpp"

namespace mpgpu {

bool TagArray::contains(uint32_t set, uint64_t line) const {
  for (uint32_t w = 0; w < ways_; ++w)
    if (ways_data_[size_t(set) * ways_ + w].tag == line) return true;
  return false;
}

void TagArray::clean(uint32_t set, uint64_t line) {
  for (uint32_t w = 0; w < ways_; ++w)
    if (ways_data_[size_t(set) * ways_ + w].tag == line) dirty_[size_t(set) * ways_ + w] = false;
}

bool TagArray::access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                      uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  const size_t base = size_t(set) * ways_;
  size_t victim = base;
  if (evicted) *evicted = kInvalid;
  if (victim_owner) *victim_owner = kNoOwner;
  Way* ways = ways_data_.data();
  for (uint32_t w = 0; w < ways_; ++w) {
    const size_t i = base + w;
    if (ways[i].tag == line) {
      ways[i].stamp = ++clock_;
      dirty_[i] = dirty_[i] || write;
      if (way) *way = i;
      return true;
    }
    if (ways[i].stamp < ways[victim].stamp) victim = i;
  }
  Way& v = ways[victim];
  if (evicted && dirty_[victim] && v.tag != kInvalid) *evicted = v.tag;
  if (victim_owner && v.tag != kInvalid) *victim_owner = owner_[victim];
  if (way) *way = victim;
  if (replaced) *replaced = v.tag;
  v.tag = line;
  owner_[victim] = owner;
  v.stamp = ++clock_;
  dirty_[victim] = write;
  return false;
}

}  // namespace mpgpu
