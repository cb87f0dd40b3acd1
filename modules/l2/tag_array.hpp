#pragma once
// Set-associative tag array with true LRU: the functional core of the L2 slice.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpgpu {

class TagArray {
 public:
  TagArray(uint32_t sets, uint32_t ways)
      : sets_(sets), ways_(ways), lines_(size_t(sets) * ways) {}
  static constexpr uint32_t kNoOwner = ~0u;
  static constexpr uint64_t kInvalid = ~uint64_t{0};
  // Looks up `line` in `set`; on a miss allocates it over the LRU way. Returns true on a hit.
  bool access(uint32_t set, uint64_t line) { return access(set, line, false, nullptr); }
  // As above; `write` marks the line dirty. A dirty line evicted to make room is returned in
  // *evicted (when given), for the write-back.
  // `owner`: the context filling the line; *victim_owner (when given): the context whose valid
  // line was evicted, kNoOwner if none. *evicted_owner: the owner of the dirty line written back.
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
  size_t size() const { return lines_.size(); }  // ways in all (way indices run below it)
  uint32_t ways() const { return ways_; }

 private:
  uint32_t sets_, ways_;
  // What a way holds, in one place: a lookup reads the tag and last use of every way of its set,
  // which are then one run of adjacent lines rather than runs in separate arrays.
  struct Line {
    uint64_t tag = kInvalid;
    uint64_t stamp = 0;  // last use; 0 = never
    uint32_t owner = 0;  // context that brought the line in
    bool dirty = false;
  };
  std::vector<Line> lines_;  // set x ways + way
  uint64_t clock_ = 0;
};

}  // namespace mpgpu
