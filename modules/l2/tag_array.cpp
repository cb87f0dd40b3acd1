#include "l2/tag_array.hpp"

namespace mpgpu {

bool TagArray::contains(uint32_t set, uint64_t line) const {
  for (uint32_t w = 0; w < ways_; ++w)
    if (lines_[size_t(set) * ways_ + w].tag == line) return true;
  return false;
}

void TagArray::clean(uint32_t set, uint64_t line) {
  for (uint32_t w = 0; w < ways_; ++w)
    if (Line& l = lines_[size_t(set) * ways_ + w]; l.tag == line) l.dirty = false;
}

bool TagArray::access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                      uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  const size_t base = size_t(set) * ways_;
  size_t victim = base;
  if (evicted) *evicted = kInvalid;
  if (victim_owner) *victim_owner = kNoOwner;
  Line* lines = lines_.data();
  for (uint32_t w = 0; w < ways_; ++w) {
    const size_t i = base + w;
    if (lines[i].tag == line) {
      lines[i].stamp = ++clock_;
      lines[i].dirty = lines[i].dirty || write;
      if (way) *way = i;
      return true;
    }
    if (lines[i].stamp < lines[victim].stamp) victim = i;
  }
  Line& v = lines[victim];
  if (evicted && v.dirty && v.tag != kInvalid) *evicted = v.tag;
  if (victim_owner && v.tag != kInvalid) *victim_owner = v.owner;
  if (way) *way = victim;
  if (replaced) *replaced = v.tag;
  v = {line, ++clock_, owner, write};
  return false;
}

}  // namespace mpgpu
