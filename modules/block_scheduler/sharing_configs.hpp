#pragma once
// SPEC 5 (Nasef, MIAS): the TB configurations of kernels sharing one SM. A configuration is a TB
// count per kernel; it must fit the SM's TB slots, threads (whole warps), registers (allocation
// units) and shared memory together.
#include <cstdint>
#include <vector>

#include "sm/occupancy.hpp"

namespace mpgpu {

struct SmCapacity {
  uint32_t tbs = 0, threads = 0, registers = 0, shared_mem = 0;
};
// One TB of a kernel as the SM allocates it.
struct TbFootprint {
  uint32_t threads = 0, registers = 0, shared_mem = 0;
};
using TbMix = std::vector<uint32_t>;  // TBs per kernel, in the kernels' order

SmCapacity sm_capacity(const SmParams& sm);  // shared memory: the largest carve-out
TbFootprint tb_footprint(const SmParams& sm, const TbResources& tb);

bool fits(const SmCapacity& cap, const std::vector<TbFootprint>& k, const TbMix& mix);
// Whether one more TB of some kernel still fits beside `mix`.
bool incomplete(const SmCapacity& cap, const std::vector<TbFootprint>& k, const TbMix& mix);

// MIAS's configuration tree: for kernel 0, every n from 0 to the most that fit; for each, kernel
// 1 likewise in what is left; ...; the last kernel takes all that fits. Incomplete configurations
// (one more TB of some kernel still fits) and those running a single kernel are dropped. In the
// tree's depth-first order (kernel 0's count ascending first).
std::vector<TbMix> complete_configurations(const SmCapacity& cap, const std::vector<TbFootprint>& k);

}  // namespace mpgpu
