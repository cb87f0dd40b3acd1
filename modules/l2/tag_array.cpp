#include "l2/tag_array.hpp"

namespace mpgpu {

bool TagArray::contains(uint32_t set, uint64_t line) const {
  for (uint32_t w = 0; w < ways_; ++w)
    if (tags_[size_t(set) * ways_ + w] == line) return true;
  return false;
}

bool TagArray::access(uint32_t set, uint64_t line) {
  const size_t base = size_t(set) * ways_;
  size_t victim = base;
  for (uint32_t w = 0; w < ways_; ++w) {
    const size_t i = base + w;
    if (tags_[i] == line) {
      stamp_[i] = ++clock_;
      return true;
    }
    if (stamp_[i] < stamp_[victim]) victim = i;
  }
  tags_[victim] = line;
  stamp_[victim] = ++clock_;
  return false;
}

}  // namespace mpgpu
