#pragma once
// Set-associative tag array with true LRU: the functional core of the L2 slice.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpgpu {

class TagArray {
 public:
  TagArray(uint32_t sets, uint32_t ways);
  static constexpr uint32_t kNoOwner = ~0u;
  static constexpr uint64_t kInvalid = ~uint64_t{0};
  // Looks up `line` in `set`; on a miss allocates it over the LRU way. Returns true on a hit.
  bool access(uint32_t set, uint64_t line) { return access(set, line, false, nullptr); }
  // As above; `write` marks the line dirty. A dirty line evicted to make room is returned in
  // *evicted (when given), for the write-back.
  // `owner`: the context filling the line (below 65536, or std::out_of_range); *victim_owner
  // (when given): the context whose valid line was evicted, kNoOwner if none.
  // *way (when given): the index (set x ways + way) of the way hit or allocated; *replaced (when
  // given): on a miss, the line that way held before (kInvalid if none).
  bool access(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner = 0,
              uint32_t* victim_owner = nullptr, size_t* way = nullptr, uint64_t* replaced = nullptr);
  bool contains(uint32_t set, uint64_t line) const;
  // Makes `line` resident and clean (most recently used); a dirty victim's data is dropped: a
  // functional fill, used for copies that write the same data to DRAM.
  void install(uint32_t set, uint64_t line) {
    access(set, line, false, nullptr);
    clean(set, line);
  }
  // Marks `line` clean (its data was written through), if present.
  void clean(uint32_t set, uint64_t line);
  uint32_t sets() const { return sets_; }
  size_t size() const { return size_t(sets_) * ways_; }  // ways in all (way indices run below it)
  uint32_t ways() const { return ways_; }
  bool wide() const { return wide_; }  // tags of 8 bytes (a line at or past 2^32 - 1 was seen)

 private:
  // A set is one record of adjacent cache lines: its ways' tags, then the recency order (way
  // numbers, most recent first, each with its way's dirty flag in the top bit), then the ways'
  // owners. A miss reads the tags and takes the last way of the order; a hit moves its way to the
  // front. The order is exact LRU, as per-way time stamps would be (unused ways leave lowest
  // number first), without reading a stamp per way: with hundreds of SMs the L2's sets are cold,
  // and each line read is a host cache miss.
  // Tags are 4 bytes while every line seen is below 2^32 - 1 (the all-ones tag marks an empty
  // way), which holds for physical addresses below 512 GiB; the first line past that widens the
  // array to 8-byte tags, once. At 16 ways a record is then two lines (tags; order and owners)
  // rather than three, and every access reads both.
  static constexpr uint16_t kDirty = 0x8000, kWayBits = 0x7fff;  // an order entry: way | dirty
  template <class Tag>
  struct SetView {
    Tag* tags;
    uint16_t* order;
    uint16_t* owners;  // contexts: below 65536 (access() checks)
  };
  template <class Tag>
  SetView<Tag> view(uint32_t set) const;
  template <class Tag>
  bool access_as(uint32_t set, uint64_t line, bool write, uint64_t* evicted, uint32_t owner, uint32_t* victim_owner,
                 size_t* way, uint64_t* replaced);
  template <class Tag>
  bool contains_as(uint32_t set, uint64_t line) const;
  template <class Tag>
  void clean_as(uint32_t set, uint64_t line);
  // Lays the records out for tags of `tag_bytes` (the constructor, widen()).
  void lay_out(size_t tag_bytes);
  void widen();  // 4-byte tags to 8-byte ones, the records' contents kept
  static uint32_t rank(const uint16_t* order, uint32_t w);  // where way w stands in the order
  uint32_t sets_, ways_;
  bool wide_ = false;
  size_t order_at_ = 0, owners_at_ = 0, stride_ = 0;  // byte offsets in a record; its size
  std::vector<uint64_t> words_;  // the records, from the first 64-byte boundary
  size_t base_ = 0;              // words_ index of the first record
};

}  // namespace mpgpu
