#include "l2/tag_array.hpp"

namespace mpgpu {

bool TagArray::contains(uint32_t set, uint64_t line) const {
  for (uint32_t w = 0; w < ways_; ++w)
    if (tags_[size_t(set) * ways_ + w] == line) return true;
  return false;
}

void TagArray::clean(uint32_t set, uint64_t line) {
  for (uint32_t w = 0; w < ways_; ++w)
    if (tags_[size_t(set) * ways_ + w] == line) dirty_[size_t(set) * ways_ + w] = false;
}

bool TagArray::access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                      uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  const size_t base = size_t(set) * ways_;
  size_t victim = base;
  if (evicted) *evicted = kInvalid;
  if (victim_owner) *victim_owner = kNoOwner;
  for (uint32_t w = 0; w < ways_; ++w) {
    const size_t i = base + w;
    if (tags_[i] == line) {
      stamp_[i] = ++clock_;
      dirty_[i] = dirty_[i] || write;
      if (way) *way = i;
      return true;
    }
    if (stamp_[i] < stamp_[victim]) victim = i;
  }
  if (evicted && dirty_[victim] && tags_[victim] != kInvalid) *evicted = tags_[victim];
  if (victim_owner && tags_[victim] != kInvalid) *victim_owner = owner_[victim];
  if (way) *way = victim;
  if (replaced) *replaced = tags_[victim];
  tags_[victim] = line;
  owner_[victim] = owner;
  stamp_[victim] = ++clock_;
  dirty_[victim] = write;
  return false;
}

}  // namespace mpgpu
