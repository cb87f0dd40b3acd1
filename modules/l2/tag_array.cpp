#include "l2/tag_array.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace mpgpu {

namespace {
size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
constexpr uint64_t kNarrowInvalid = 0xffffffffu;  // an empty way's 4-byte tag
}  // namespace

TagArray::TagArray(uint32_t sets, uint32_t ways) : sets_(sets), ways_(ways) {
  if (ways == 0 || ways > kWayBits) throw std::invalid_argument("tag array: ways must be 1..32767");
  lay_out(4);
  for (uint32_t s = 0; s < sets; ++s) {
    const SetView<uint32_t> v = view<uint32_t>(s);
    std::fill(v.tags, v.tags + ways, uint32_t(kNarrowInvalid));
    for (uint32_t k = 0; k < ways; ++k) v.order[k] = uint16_t(ways - 1 - k);  // way 0 least recent, all clean
  }
}

void TagArray::lay_out(size_t tag_bytes) {
  order_at_ = size_t(ways_) * tag_bytes;
  owners_at_ = order_at_ + size_t(ways_) * 2;
  stride_ = round_up(owners_at_ + size_t(ways_) * 2, 64);
  words_.assign(size_t(sets_) * stride_ / 8 + 8, 0);
  base_ = (64 - reinterpret_cast<uintptr_t>(words_.data()) % 64) % 64 / 8;
}

void TagArray::widen() {
  const size_t old_stride = stride_, old_order_at = order_at_;
  const std::vector<uint64_t> old = std::move(words_);  // lay_out() allocates anew
  const auto* old_base = reinterpret_cast<const uint8_t*>(old.data() + base_);
  lay_out(8);
  wide_ = true;
  for (uint32_t s = 0; s < sets_; ++s) {
    const uint8_t* rec = old_base + size_t(s) * old_stride;
    const SetView<uint64_t> v = view<uint64_t>(s);
    for (uint32_t w = 0; w < ways_; ++w) {
      uint32_t t;
      std::memcpy(&t, rec + size_t(w) * 4, 4);
      v.tags[w] = t == kNarrowInvalid ? kInvalid : t;
    }
    std::memcpy(v.order, rec + old_order_at, size_t(ways_) * 4);  // order, then owners, as before
  }
}

template <class Tag>
TagArray::SetView<Tag> TagArray::view(uint32_t set) const {
  auto* rec = reinterpret_cast<uint8_t*>(const_cast<uint64_t*>(words_.data() + base_)) + size_t(set) * stride_;
  return {reinterpret_cast<Tag*>(rec), reinterpret_cast<uint16_t*>(rec + order_at_),
          reinterpret_cast<uint16_t*>(rec + owners_at_)};
}

uint32_t TagArray::rank(const uint16_t* order, uint32_t w) {
  uint32_t at = 0;
  while ((order[at] & kWayBits) != w) ++at;
  return at;
}

bool TagArray::contains(uint32_t set, uint64_t line) const {
  if (wide_) return contains_as<uint64_t>(set, line);
  return line < kNarrowInvalid && contains_as<uint32_t>(set, line);  // a narrow array holds no larger line
}

template <class Tag>
bool TagArray::contains_as(uint32_t set, uint64_t line) const {
  const SetView<Tag> v = view<Tag>(set);
  return std::find(v.tags, v.tags + ways_, Tag(line)) != v.tags + ways_;
}

void TagArray::clean(uint32_t set, uint64_t line) {
  if (wide_) return clean_as<uint64_t>(set, line);
  if (line < kNarrowInvalid) clean_as<uint32_t>(set, line);
}

template <class Tag>
void TagArray::clean_as(uint32_t set, uint64_t line) {
  const SetView<Tag> v = view<Tag>(set);
  const Tag* hit = std::find(v.tags, v.tags + ways_, Tag(line));  // a line is in one way at most
  if (hit != v.tags + ways_) v.order[rank(v.order, uint32_t(hit - v.tags))] &= kWayBits;
}

bool TagArray::access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                      uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  if (owner > 0xffff) throw std::out_of_range("tag array: owner context " + std::to_string(owner) + " beyond 65535");
  if (!wide_ && line >= kNarrowInvalid) widen();
  return wide_ ? access_as<uint64_t>(set, line, write, evicted, owner, victim_owner, way, replaced)
               : access_as<uint32_t>(set, line, write, evicted, owner, victim_owner, way, replaced);
}

template <class Tag>
bool TagArray::access_as(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner,
                         uint32_t* victim_owner, size_t* way, uint64_t* replaced) {
  constexpr Tag kEmpty = Tag(~Tag{0});
  const SetView<Tag> v = view<Tag>(set);
  if (evicted) *evicted = kInvalid;
  if (victim_owner) *victim_owner = kNoOwner;
  const Tag* hit = std::find(v.tags, v.tags + ways_, Tag(line));
  const uint16_t dirty = write ? kDirty : 0;
  // The way used moves to the front of the order; a miss takes the last (least recent) one.
  uint32_t w, at;
  uint16_t entry;
  if (hit != v.tags + ways_) {
    w = uint32_t(hit - v.tags);
    at = rank(v.order, w);
    entry = v.order[at] | dirty;
  } else {
    at = ways_ - 1;
    w = v.order[at] & kWayBits;
    const Tag tag = v.tags[w];
    const uint64_t old = tag == kEmpty ? kInvalid : uint64_t{tag};
    if (evicted && (v.order[at] & kDirty) && old != kInvalid) *evicted = old;
    if (victim_owner && old != kInvalid) *victim_owner = v.owners[w];
    if (replaced) *replaced = old;
    v.tags[w] = Tag(line);
    v.owners[w] = uint16_t(owner);
    entry = uint16_t(w) | dirty;
  }
  std::memmove(v.order + 1, v.order, size_t(at) * sizeof(uint16_t));
  v.order[0] = entry;
  if (way) *way = size_t(set) * ways_ + w;
  return hit != v.tags + ways_;
}

}  // namespace mpgpu
