#pragma once
// The SM's TB-level TBs, earliest end first (ties: launch id, then TB), as a sorted array of
// small keys over the TBs kept by TB slot. A TB-level run pushes and pops one TB per TB: a heap
// of the whole records moved 64 bytes per step and read each launch's id through its pointer on
// every comparison; an SM holds a few dozen TBs at most, so one short shift per push is cheaper.
// T: a record with `end` (sc_time), `launch` (->id), `tb` and `alloc.slot` (distinct among the
// TBs held: each holds its own TB slot).
#include <algorithm>
#include <cstdint>
#include <vector>

namespace mpgpu {

template <class T>
class ResidentQueue {
 public:
  bool empty() const { return order_.empty(); }
  size_t size() const { return order_.size(); }
  const T& top() const { return by_slot_[order_.back().slot]; }
  void push(const T& r) {
    const uint32_t slot = r.alloc.slot;
    if (slot >= by_slot_.size()) by_slot_.resize(slot + 1);
    by_slot_[slot] = r;
    const Key k{r.end.value(), uint64_t{r.launch->id} << 32 | r.tb, slot};
    // Latest first: a new TB mostly ends after those running, near the front.
    auto at = order_.begin();
    while (at != order_.end() && !(at->order() < k.order())) ++at;
    order_.insert(at, k);
  }
  void pop() { order_.pop_back(); }

 private:
  struct Key {
    uint64_t end, launch_tb;  // launch id << 32 | TB
    uint32_t slot;
    unsigned __int128 order() const { return static_cast<unsigned __int128>(end) << 64 | launch_tb; }
  };
  std::vector<Key> order_;  // by (end, launch, TB), latest first: the earliest is popped off the back
  std::vector<T> by_slot_;
};

}  // namespace mpgpu
