#pragma once
// A process's address space as its workload declares it (SPEC 1, 2, 6): the allocations its
// kernels address virtually, where each one's data is at launch, and the memory modules its
// pages may come from (page colouring). The fill unit's memory manager builds page tables from it.
#include <cstdint>
#include <string>
#include <vector>

namespace mpgpu {

// Where an allocation's data is when the process starts.
enum class Placement : uint8_t {
  device,  // resident in GPU memory
  host,    // CPU-owned: each page migrates on first touch (or by a host-to-device copy)
  lazy,    // no physical memory yet (outputs, device-side malloc): allocated on first touch
};

inline const char* placement_name(Placement p) {
  return p == Placement::device ? "device" : p == Placement::host ? "host" : "lazy";
}

struct Allocation {
  std::string name;
  uint64_t va = 0, bytes = 0;
  Placement placement = Placement::device;
  std::string source;  // file:line:col, for messages
  // Backed by one physically contiguous run of frames aligned to the allocation's size rounded up
  // to a power of two (a buddy allocator's block; what a large allocation on an idle GPU gets). A
  // program can then place lines by physical address bits relative to the allocation's start
  // (SPEC 6's interference experiment). Device placement, no page colouring.
  bool contiguous = false;
};

// The model's virtual addresses: 48 bits; register spills live in the upper half, a window every
// context has mapped (the driver reserves local memory at context creation).
constexpr int kVirtualAddressBits = 48;
constexpr uint64_t kLocalMemoryBase = uint64_t{1} << 47;

struct AddressSpaceDesc {
  std::vector<Allocation> allocations;  // none: every address is an implicit resident allocation
  uint64_t allowed_modules = 0;         // page colouring: frames only from these modules (0: any)
  std::string modules_source;
};

}  // namespace mpgpu
