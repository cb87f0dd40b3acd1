#pragma once
// The GPU driver's memory manager (SPEC 1, 2): the context table, one virtual address space per
// process with its allocations, and each context's radix page table kept in simulated device
// memory (its nodes are frames of the physical allocator, so a walk's PTE reads are real physical
// addresses that hit in L2 or go to DRAM). Host side: the fill unit asks it what a walk reads and
// what the leaf holds, and it resolves faults (migration, lazy allocation) when told to.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/address_map.hpp"
#include "common/address_space.hpp"
#include "fill_unit/frame_allocator.hpp"

namespace mpgpu {

struct PagingParams {
  uint64_t page_bytes = 4096;
  uint64_t device_memory_bytes = uint64_t{8} << 30;
};

struct PageWalk {
  enum class Leaf { present, not_resident_host, not_resident_lazy, invalid, out_of_memory } leaf = Leaf::invalid;
  uint64_t frame = 0;             // present: the physical page
  uint32_t reads = 0;             // PTEs read, root first
  uint64_t pte_address[8] = {};
};

class MemoryManager {
 public:
  MemoryManager(const PagingParams& p, const AddressMap& map);

  static constexpr uint64_t kOutOfMemory = ~uint64_t{0};  // from resolve_fault, make_resident

  // A context for a process: builds its page table (every declared allocation's PTEs; resident
  // pages get frames now). Returns the context id. Throws ConfigError when device memory runs out.
  uint32_t create_context(const AddressSpaceDesc& desc);
  uint64_t page_table_base(uint32_t context) const { return contexts_.at(context).root; }
  uint32_t levels() const { return levels_; }
  uint64_t page_bytes() const { return p_.page_bytes; }
  int page_shift() const { return page_shift_; }

  // What a walk of (context, vpn) reads and finds. Implicitly allocated pages are mapped here,
  // as if the driver had populated them before the launch.
  PageWalk walk(uint32_t context, uint64_t vpn);
  // Maps the not-resident pages of the `granule_bytes`-aligned block around vpn that lie in the
  // same allocation; returns the bytes mapped (migrated for host pages, allocated for lazy ones),
  // or kOutOfMemory.
  uint64_t resolve_fault(uint32_t context, uint64_t vpn, uint64_t granule_bytes);
  // A host-to-device copy: the pages of [va, va + bytes) inside allocations become resident.
  // Returns the bytes newly mapped, or kOutOfMemory.
  uint64_t make_resident(uint32_t context, uint64_t va, uint64_t bytes);
  // The frame of a resident page.
  std::optional<uint64_t> frame_of(uint32_t context, uint64_t vpn) const;

  const FrameAllocator& frames() const { return frames_; }
  uint64_t resident_pages(uint32_t context) const {
    return context < contexts_.size() ? contexts_[context].frames.size() + contexts_[context].run_pages : 0;
  }
  uint32_t contexts() const { return static_cast<uint32_t>(contexts_.size()); }

 private:
  struct Context {
    AddressSpaceDesc desc;  // allocations sorted by address
    uint64_t root = 0;
    std::unordered_map<uint64_t, uint64_t> nodes;  // (level, index prefix) -> node address
    std::unordered_map<uint64_t, uint64_t> frames;  // vpn -> frame of resident pages (not in runs)
    std::vector<uint64_t> run_start;  // per allocation: first frame of its contiguous run, or kNoRun
    uint64_t run_pages = 0;           // pages of contiguous runs (resident from creation)
    uint64_t node_frame = 0, nodes_left = 0;         // page-table nodes are carved 4 KB at a time
  };
  const Allocation* find(const Context& c, uint64_t va) const;
  static constexpr uint64_t kNoRun = ~uint64_t{0};
  // The frame of a page of a contiguous allocation (none for other pages).
  std::optional<uint64_t> run_frame(const Context& c, uint64_t vpn) const;
  bool implicit(const Context& c, uint64_t va) const;
  uint64_t new_node(Context& c);
  uint64_t new_frame(const Context& c);
  void build_path(Context& c, uint64_t vpn);
  // Maps vpn to a new frame and returns it; may throw (internal) when memory runs out.
  uint64_t map(Context& c, uint64_t vpn) { return c.frames.emplace(vpn, new_frame(c)).first->second; }

  PagingParams p_;
  int page_shift_;
  uint32_t levels_;
  FrameAllocator frames_;
  std::vector<Context> contexts_;
};

}  // namespace mpgpu
