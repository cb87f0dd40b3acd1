#include "sm/sm_resources.hpp"

#include <algorithm>
#include <cassert>

namespace mpgpu {

RangeAllocator::RangeAllocator(uint32_t capacity) : capacity_(0) { reset(capacity); }

void RangeAllocator::reset(uint32_t capacity) {
  assert(free_total() == capacity_ && "reset with live allocations");
  capacity_ = capacity;
  free_.clear();
  if (capacity) free_.push_back({0, capacity});
}

void RangeAllocator::take(size_t i, uint32_t offset, uint32_t size) {
  Range& r = free_[i];
  if (offset == r.lo) {
    r.lo += size;
    if (r.lo == r.hi) free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
  } else if (offset + size == r.hi) {
    r.hi = offset;
  } else {  // from the middle: the range splits in two
    const Range after{offset + size, r.hi};
    r.hi = offset;
    free_.insert(free_.begin() + static_cast<std::ptrdiff_t>(i) + 1, after);
  }
}

std::optional<uint32_t> RangeAllocator::allocate(uint32_t size) {
  if (size == 0) return 0u;
  for (size_t i = 0; i < free_.size(); ++i)
    if (free_[i].hi - free_[i].lo >= size) {
      const uint32_t lo = free_[i].lo;
      take(i, lo, size);
      return lo;
    }
  return std::nullopt;
}

bool RangeAllocator::fits(uint32_t size) const {
  return size == 0 || std::any_of(free_.begin(), free_.end(), [&](const Range& r) { return r.hi - r.lo >= size; });
}

bool RangeAllocator::allocate_at(uint32_t offset, uint32_t size) {
  if (size == 0) return true;
  for (size_t i = 0; i < free_.size() && free_[i].lo <= offset; ++i)
    if (uint64_t{offset} + size <= free_[i].hi) {
      take(i, offset, size);
      return true;
    }
  return false;
}

void RangeAllocator::release(uint32_t offset, uint32_t size) {
  if (size == 0) return;
  uint32_t lo = offset, hi = offset + size;
  // The ranges it touches or overlaps join it (a union, as releasing a free range changes nothing).
  auto first = std::lower_bound(free_.begin(), free_.end(), lo, [](const Range& r, uint32_t v) { return r.hi < v; });
  auto last = first;
  while (last != free_.end() && last->lo <= hi) {
    lo = std::min(lo, last->lo), hi = std::max(hi, last->hi);
    ++last;
  }
  if (first == last) {
    free_.insert(first, Range{lo, hi});
  } else {
    *first = {lo, hi};
    free_.erase(first + 1, last);
  }
}

uint32_t RangeAllocator::free_total() const {  // tests and checks only: summed when asked
  uint32_t n = 0;
  for (const Range& r : free_) n += r.hi - r.lo;
  return n;
}

SmResources::SmResources(const SmParams& p)
    : p_(p), regs_(p.registers), shm_(p.shared_mem_default), slot_used_((p.max_tbs + 63) / 64, 0),
      free_threads_(p.max_threads) {}

template <typename Place>
std::optional<TbAllocation> SmResources::allocate_with(const TbResources& tb, uint32_t carve_out, Place place) {
  const uint32_t threads = warp_rounded_threads(p_, tb.threads);
  if (!admits(threads, carve_out)) return std::nullopt;
  if (carve_out > shm_.capacity()) shm_.reset(carve_out);  // an empty SM (admits())
  TbAllocation a;
  a.threads = threads;
  a.reg_size = rounded_registers(p_, tb.registers);
  a.shm_size = tb.shared_mem;
  if (!place(a)) return std::nullopt;
  for (size_t w = 0; w < slot_used_.size(); ++w)  // admits(): one is free
    if (const uint64_t free = ~slot_used_[w]) {
      const uint32_t bit = uint32_t(__builtin_ctzll(free));
      slot_used_[w] |= uint64_t{1} << bit;
      a.slot = uint32_t(w * 64) + bit;
      break;
    }
  ++resident_;
  free_threads_ -= a.threads;
  return a;
}

std::optional<TbAllocation> SmResources::try_allocate(const TbResources& tb, uint32_t carve_out) {
  return allocate_with(tb, carve_out, [&](TbAllocation& a) {
    auto r = regs_.allocate(a.reg_size);
    if (!r) return false;
    auto s = shm_.allocate(a.shm_size);
    if (!s) {
      regs_.release(*r, a.reg_size);
      return false;
    }
    a.reg_offset = *r;
    a.shm_offset = *s;
    return true;
  });
}

std::optional<TbAllocation> SmResources::try_allocate_at(const TbResources& tb, uint32_t carve_out,
                                                         const AllocationPosition& at) {
  return allocate_with(tb, carve_out, [&](TbAllocation& a) {
    if (a.reg_size > at.reg_size || a.shm_size > at.shm_size) return false;  // not this kernel's position
    if (!regs_.allocate_at(at.reg_offset, a.reg_size)) return false;
    if (!shm_.allocate_at(at.shm_offset, a.shm_size)) {
      regs_.release(at.reg_offset, a.reg_size);
      return false;
    }
    a.reg_offset = at.reg_offset;
    a.shm_offset = at.shm_offset;
    return true;
  });
}

bool SmResources::fits(const TbResources& tb, uint32_t carve_out) const {
  if (!admits(warp_rounded_threads(p_, tb.threads), carve_out)) return false;
  const bool shm_fits = carve_out > shm_.capacity() ? tb.shared_mem <= carve_out  // reset on an empty SM
                                                    : shm_.fits(tb.shared_mem);
  return shm_fits && regs_.fits(rounded_registers(p_, tb.registers));
}

void SmResources::release(const TbAllocation& a) {
  regs_.release(a.reg_offset, a.reg_size);
  shm_.release(a.shm_offset, a.shm_size);
  slot_used_[a.slot >> 6] &= ~(uint64_t{1} << (a.slot & 63));
  --resident_;
  free_threads_ += a.threads;
  // Back to the default carve-out when the SM empties.
  if (resident_ == 0 && shm_.capacity() != p_.shared_mem_default) shm_.reset(p_.shared_mem_default);
}

}  // namespace mpgpu
