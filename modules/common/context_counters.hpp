#pragma once
// Counters of a shared block (L2 slice, memory controller) by the contexts that used it: bytes
// per context and, per (requester, displaced owner) pair, the lines or rows one context took
// from another (SPEC 6: interference between partitions is counted from these).
#include <cstdint>
#include <vector>

namespace mpgpu {

class ContextCounters {
 public:
  void add_bytes(uint32_t context, uint64_t bytes) { grow(context) , bytes_[context] += bytes; }
  void displaced(uint32_t requester, uint32_t owner) {
    grow(requester > owner ? requester : owner);
    ++displaced_[requester][owner];
  }
  uint64_t bytes(uint32_t context) const { return context < bytes_.size() ? bytes_[context] : 0; }
  // Lines/rows of `owner` displaced by `requester`'s accesses.
  uint64_t displaced(uint32_t requester, uint32_t owner) const {
    return requester < displaced_.size() && owner < displaced_.size() ? displaced_[requester][owner] : 0;
  }
  uint32_t contexts() const { return static_cast<uint32_t>(bytes_.size()); }

 private:
  void grow(uint32_t c) {
    if (c < bytes_.size()) return;
    bytes_.resize(c + 1, 0);
    displaced_.resize(c + 1);
    for (auto& row : displaced_) row.resize(c + 1, 0);
  }
  std::vector<uint64_t> bytes_;
  std::vector<std::vector<uint64_t>> displaced_;
};

}  // namespace mpgpu
