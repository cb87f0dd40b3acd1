#pragma once
// The SM's TB admission state: TB slots, threads, and contiguous register-file and shared-memory
// ranges (first fit), so fragmentation is modelled as the hardware allocator sees it.
#include <cstdint>
#include <optional>
#include <vector>

#include "extensions/dual_kernel_tables.hpp"
#include "sm/occupancy.hpp"

namespace mpgpu {

struct TbAllocation {
  uint32_t slot = 0;
  uint32_t threads = 0;
  uint32_t reg_offset = 0, reg_size = 0;
  uint32_t shm_offset = 0, shm_size = 0;
};

// First-fit allocator over [0, capacity) with coalescing frees. The free ranges are a short sorted
// array (an SM holds at most a few dozen TBs, so a few dozen holes): a TB-level run allocates and
// frees once per TB, and a tree of intervals cost a node allocation per change.
class RangeAllocator {
 public:
  explicit RangeAllocator(uint32_t capacity);
  std::optional<uint32_t> allocate(uint32_t size);
  bool fits(uint32_t size) const;  // allocate(size) would succeed
  bool allocate_at(uint32_t offset, uint32_t size);  // exactly there, if that range is free
  void release(uint32_t offset, uint32_t size);
  uint32_t free_total() const;
  uint32_t capacity() const { return capacity_; }
  // Grow or shrink; only legal while nothing is allocated.
  void reset(uint32_t capacity);

 private:
  struct Range {
    uint32_t lo, hi;  // [lo, hi), free
  };
  uint32_t capacity_;
  std::vector<Range> free_;  // sorted, disjoint, never touching (adjacent ranges are joined)
  void take(size_t i, uint32_t offset, uint32_t size);  // [offset, offset + size) out of free_[i]
};

class SmResources {
 public:
  explicit SmResources(const SmParams& p);
  // Allocates one TB if it fits; `carve_out` is the shared-memory configuration it needs.
  std::optional<TbAllocation> try_allocate(const TbResources& tb, uint32_t carve_out);
  // The same at a predetermined position (dual-kernel preemption, SPEC 4): its register and
  // shared-memory offsets, or nothing.
  std::optional<TbAllocation> try_allocate_at(const TbResources& tb, uint32_t carve_out, const AllocationPosition& at);
  void release(const TbAllocation& a);
  // try_allocate(tb, carve_out) would succeed now (nothing changes).
  bool fits(const TbResources& tb, uint32_t carve_out) const;
  uint32_t resident_tbs() const { return resident_; }
  uint32_t free_threads() const { return free_threads_; }
  uint32_t shared_mem_config() const { return shm_.capacity(); }
  uint32_t free_registers() const { return regs_.free_total(); }
  uint32_t free_shared_mem() const { return shm_.free_total(); }

 private:
  const SmParams& p_;
  RangeAllocator regs_, shm_;
  // TB slots in use, a bit each: the lowest free one is found a word at a time (a TB-level run
  // takes one per TB).
  std::vector<uint64_t> slot_used_;
  uint32_t resident_ = 0;
  uint32_t free_threads_;
  // A TB slot and `threads` are free, and the carve-out fits: the SM's, or any on an empty SM (a
  // resident kernel keeps its configuration).
  bool admits(uint32_t threads, uint32_t carve_out) const {
    return resident_ < p_.max_tbs && threads <= free_threads_ && (carve_out <= shm_.capacity() || resident_ == 0);
  }
  // Threads, a TB slot and the carve-out; then the ranges from `place`, or none.
  template <typename Place>
  std::optional<TbAllocation> allocate_with(const TbResources& tb, uint32_t carve_out, Place place);
};

}  // namespace mpgpu
