#include "sm/sm_resources.hpp"

#include <cassert>

namespace mpgpu {

using Interval = boost::icl::interval<uint32_t>;

RangeAllocator::RangeAllocator(uint32_t capacity) : capacity_(0) { reset(capacity); }

void RangeAllocator::reset(uint32_t capacity) {
  assert(free_total() == capacity_ && "reset with live allocations");
  capacity_ = capacity;
  free_.clear();
  if (capacity) free_.insert(Interval::right_open(0, capacity));
}

std::optional<uint32_t> RangeAllocator::allocate(uint32_t size) {
  if (size == 0) return 0u;
  for (const auto& iv : free_) {
    const uint32_t lo = boost::icl::first(iv), len = boost::icl::length(iv);
    if (len >= size) {
      free_.erase(Interval::right_open(lo, lo + size));
      return lo;
    }
  }
  return std::nullopt;
}

bool RangeAllocator::allocate_at(uint32_t offset, uint32_t size) {
  if (size == 0) return true;
  const auto want = Interval::right_open(offset, offset + size);
  if (!boost::icl::contains(free_, want)) return false;
  free_.erase(want);
  return true;
}

void RangeAllocator::release(uint32_t offset, uint32_t size) {
  if (size) free_.insert(Interval::right_open(offset, offset + size));
}

uint32_t RangeAllocator::free_total() const { return boost::icl::length(free_); }

SmResources::SmResources(const SmParams& p)
    : p_(p), regs_(p.registers), shm_(p.shared_mem_default), slot_used_(p.max_tbs, false),
      free_threads_(p.max_threads) {}

template <typename Place>
std::optional<TbAllocation> SmResources::allocate_with(const TbResources& tb, uint32_t carve_out, Place place) {
  const uint32_t threads = warp_rounded_threads(p_, tb.threads);
  if (resident_ >= p_.max_tbs || threads > free_threads_) return std::nullopt;
  // The carve-out changes only on an empty SM; a resident kernel keeps its configuration.
  if (carve_out > shm_.capacity()) {
    if (resident_ != 0) return std::nullopt;
    shm_.reset(carve_out);
  }
  TbAllocation a;
  a.threads = threads;
  a.reg_size = rounded_registers(p_, tb.registers);
  a.shm_size = tb.shared_mem;
  if (!place(a)) return std::nullopt;
  for (uint32_t i = 0; i < slot_used_.size(); ++i)
    if (!slot_used_[i]) {
      slot_used_[i] = true;
      a.slot = i;
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

void SmResources::release(const TbAllocation& a) {
  regs_.release(a.reg_offset, a.reg_size);
  shm_.release(a.shm_offset, a.shm_size);
  slot_used_[a.slot] = false;
  --resident_;
  free_threads_ += a.threads;
  // Back to the default carve-out when the SM empties.
  if (resident_ == 0 && shm_.capacity() != p_.shared_mem_default) shm_.reset(p_.shared_mem_default);
}

}  // namespace mpgpu
