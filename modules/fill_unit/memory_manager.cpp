#include "fill_unit/memory_manager.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgpu {

namespace {
constexpr uint64_t kNodeBytes = 4096;  // 512 PTEs of 8 B per node, whatever the page size
constexpr int kIndexBits = 9;
struct OutOfDeviceMemory {};  // thrown by the allocation helpers, turned into a result here
uint64_t node_key(uint32_t level, uint64_t prefix) { return uint64_t{level} << 56 | prefix; }
}  // namespace

MemoryManager::MemoryManager(const PagingParams& p, const AddressMap& map)
    : p_(p), page_shift_(__builtin_ctzll(p.page_bytes)),
      levels_((kVirtualAddressBits - page_shift_ + kIndexBits - 1) / kIndexBits),
      frames_(p.device_memory_bytes, p.page_bytes, map) {}

uint64_t MemoryManager::new_node(Context& c) {
  // A context's page table lives in frames of its own colours: its walks stay in its modules.
  if (c.nodes_left == 0) {
    const auto f = frames_.allocate(c.desc.allowed_modules);
    if (!f) throw OutOfDeviceMemory{};
    c.node_frame = *f * p_.page_bytes;
    c.nodes_left = p_.page_bytes / kNodeBytes;
  }
  return c.node_frame + (p_.page_bytes / kNodeBytes - c.nodes_left--) * kNodeBytes;
}

uint64_t MemoryManager::new_frame(const Context& c) {
  const auto f = frames_.allocate(c.desc.allowed_modules);
  if (!f) throw OutOfDeviceMemory{};
  return *f;
}

void MemoryManager::build_path(Context& c, uint64_t vpn) {
  for (uint32_t level = 1; level < levels_; ++level) {
    const uint64_t key = node_key(level, vpn >> (kIndexBits * (levels_ - level)));
    if (!c.nodes.count(key)) c.nodes.emplace(key, new_node(c));
  }
}

uint32_t MemoryManager::create_context(const AddressSpaceDesc& desc) try {
  Context c;
  c.desc = desc;
  std::sort(c.desc.allocations.begin(), c.desc.allocations.end(),
            [](const Allocation& a, const Allocation& b) { return a.va < b.va; });
  c.root = new_node(c);
  c.nodes.emplace(node_key(0, 0), c.root);
  for (const Allocation& a : c.desc.allocations) {
    const uint64_t first = a.va >> page_shift_, last = (a.va + a.bytes - 1) >> page_shift_;
    c.run_start.push_back(kNoRun);
    if (a.contiguous) {  // one aligned run of frames; its leaves point into it from the start
      const uint64_t pages = last - first + 1;
      uint64_t align = 1;  // the size rounded up to a power of two
      while (align < pages) align <<= 1;
      const auto run = frames_.allocate_run(pages, align);
      if (!run) throw OutOfDeviceMemory{};
      c.run_start.back() = *run;
      c.run_pages += pages;
    }
    for (uint64_t vpn = first; vpn <= last; ++vpn) {
      if (vpn == first || (vpn & ((uint64_t{1} << kIndexBits) - 1)) == 0) build_path(c, vpn);
      if (a.placement == Placement::device && !a.contiguous) map(c, vpn);
    }
  }
  contexts_.push_back(std::move(c));
  return static_cast<uint32_t>(contexts_.size() - 1);
} catch (const OutOfDeviceMemory&) {
  throw ConfigError(fmt::format("context {}: its resident allocations and page table exceed the platform's device "
                                "memory ({} MiB, dram.device_memory_bytes){}",
                                contexts_.size(), p_.device_memory_bytes >> 20,
                                desc.allowed_modules ? " within its memory_modules" : ""));
}

const Allocation* MemoryManager::find(const Context& c, uint64_t va) const {
  const auto& v = c.desc.allocations;
  auto it = std::upper_bound(v.begin(), v.end(), va, [](uint64_t x, const Allocation& a) { return x < a.va; });
  if (it == v.begin()) return nullptr;
  --it;
  return va - it->va < it->bytes ? &*it : nullptr;
}

std::optional<uint64_t> MemoryManager::run_frame(const Context& c, uint64_t vpn) const {
  if (c.run_pages == 0) return std::nullopt;
  const Allocation* a = find(c, vpn << page_shift_);
  if (!a || !a->contiguous) return std::nullopt;
  return c.run_start[a - c.desc.allocations.data()] + (vpn - (a->va >> page_shift_));
}

bool MemoryManager::implicit(const Context& c, uint64_t va) const {
  return va >> kVirtualAddressBits == 0 && (c.desc.allocations.empty() || va >= kLocalMemoryBase);
}

PageWalk MemoryManager::walk(uint32_t context, uint64_t vpn) {
  Context& c = contexts_.at(context);
  const uint64_t va = vpn << page_shift_;
  PageWalk w;
  const auto resident = c.frames.find(vpn);
  if (resident != c.frames.end()) {
    w.leaf = PageWalk::Leaf::present;
    w.frame = resident->second;
  } else if (const auto run = run_frame(c, vpn)) {
    w.leaf = PageWalk::Leaf::present;
    w.frame = *run;
  } else if (const Allocation* a = find(c, va)) {
    w.leaf = a->placement == Placement::host ? PageWalk::Leaf::not_resident_host : PageWalk::Leaf::not_resident_lazy;
  } else if (implicit(c, va)) {
    try {
      build_path(c, vpn);
      w.frame = map(c, vpn);
      w.leaf = PageWalk::Leaf::present;
    } catch (const OutOfDeviceMemory&) {
      w.leaf = PageWalk::Leaf::out_of_memory;
    }
  }
  // The PTEs read, root first; an invalid address stops at the first node that does not exist.
  for (uint32_t level = 0; level < levels_; ++level) {
    const auto node = c.nodes.find(node_key(level, vpn >> (kIndexBits * (levels_ - level))));
    if (node == c.nodes.end() || (va >> kVirtualAddressBits) != 0) {
      if (w.reads == 0) w.pte_address[w.reads++] = c.root;  // the root is always read
      break;
    }
    const uint64_t index = (vpn >> (kIndexBits * (levels_ - 1 - level))) & ((uint64_t{1} << kIndexBits) - 1);
    w.pte_address[w.reads++] = node->second + index * 8;
  }
  return w;
}

uint64_t MemoryManager::resolve_fault(uint32_t context, uint64_t vpn, uint64_t granule_bytes) {
  Context& c = contexts_.at(context);
  const Allocation* a = find(c, vpn << page_shift_);
  if (!a) return 0;
  const uint64_t granule = std::max<uint64_t>(granule_bytes, p_.page_bytes);
  const uint64_t lo = std::max(a->va, (vpn << page_shift_) / granule * granule);
  const uint64_t hi = std::min(a->va + a->bytes, (vpn << page_shift_) / granule * granule + granule);
  uint64_t mapped = 0;
  try {
    for (uint64_t p = lo >> page_shift_; p <= (hi - 1) >> page_shift_; ++p)
      if (!c.frames.count(p) && !run_frame(c, p)) map(c, p), mapped += p_.page_bytes;
  } catch (const OutOfDeviceMemory&) {
    return kOutOfMemory;
  }
  return mapped;
}

uint64_t MemoryManager::make_resident(uint32_t context, uint64_t va, uint64_t bytes) {
  Context& c = contexts_.at(context);
  uint64_t mapped = 0;
  try {
    for (uint64_t p = va >> page_shift_; bytes && p <= (va + bytes - 1) >> page_shift_; ++p) {
      if (c.frames.count(p) || run_frame(c, p)) continue;
      const uint64_t pva = p << page_shift_;
      if (!find(c, pva) && !implicit(c, pva)) continue;
      build_path(c, p);
      map(c, p);
      mapped += p_.page_bytes;
    }
  } catch (const OutOfDeviceMemory&) {
    return kOutOfMemory;
  }
  return mapped;
}

std::optional<uint64_t> MemoryManager::frame_of(uint32_t context, uint64_t vpn) const {
  const Context& c = contexts_.at(context);
  const auto it = c.frames.find(vpn);
  if (it == c.frames.end()) return run_frame(c, vpn);
  return it->second;
}

}  // namespace mpgpu
