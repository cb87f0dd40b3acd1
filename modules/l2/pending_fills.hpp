#pragma once
// Lines on their way from DRAM (line -> fill time) that later requests to the same line merge
// into: the L2 slice keeps here those whose way another miss took before the fill came back (a
// resident line's fill time sits with its way). An open-addressing table (linear probing,
// deletion by backward shift) in one array: no node allocation per entry, no pointer chase.
#include <systemc>

#include <cstdint>
#include <vector>

namespace mpgpu {

class PendingFills {
 public:
  // The fill time recorded for `line`, or null.
  const sc_core::sc_time* find(uint64_t line) const {
    for (size_t i = home(line);; i = (i + 1) & mask()) {
      if (slots_[i].line == line) return &slots_[i].fill;
      if (slots_[i].line == kEmpty) return nullptr;
    }
  }
  void set(uint64_t line, const sc_core::sc_time& fill) {
    if (2 * (count_ + 1) > slots_.size()) rehash(2 * slots_.size());
    size_t i = home(line);
    for (; slots_[i].line != kEmpty; i = (i + 1) & mask())
      if (slots_[i].line == line) {
        slots_[i].fill = fill;
        return;
      }
    slots_[i] = {line, fill};
    ++count_;
  }
  void erase(uint64_t line) {
    size_t i = home(line);
    while (slots_[i].line != line) {
      if (slots_[i].line == kEmpty) return;
      i = (i + 1) & mask();
    }
    // Backward shift: an entry further along the run moves into the hole unless its home lies
    // (cyclically) after the hole, where a lookup would no longer reach it.
    for (size_t j = i;;) {
      j = (j + 1) & mask();
      if (slots_[j].line == kEmpty) break;
      const size_t h = home(slots_[j].line);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].line = kEmpty;
    --count_;
  }
  // Drops every fill done by `now`.
  void forget_done(const sc_core::sc_time& now) {
    std::vector<Slot> live;
    for (const Slot& s : slots_)
      if (s.line != kEmpty && s.fill > now) live.push_back(s);
    std::fill(slots_.begin(), slots_.end(), Slot{});
    count_ = 0;
    for (const Slot& s : live) set(s.line, s.fill);
  }
  size_t size() const { return count_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // no line number (an address over 2^64 / line)
  struct Slot {
    uint64_t line = kEmpty;
    sc_core::sc_time fill;
  };
  size_t mask() const { return slots_.size() - 1; }
  size_t home(uint64_t line) const { return size_t((line * 0x9E3779B97F4A7C15ull) >> shift_); }
  void rehash(size_t n) {
    std::vector<Slot> old(n);
    old.swap(slots_);
    shift_ = 64 - __builtin_ctzll(n);
    count_ = 0;
    for (const Slot& s : old)
      if (s.line != kEmpty) set(s.line, s.fill);
  }
  std::vector<Slot> slots_ = std::vector<Slot>(64);  // a power of two, at most half full
  int shift_ = 64 - 6;
  size_t count_ = 0;
};

}  // namespace mpgpu
