#include "sm/occupancy.hpp"

#include <algorithm>
#include <limits>

namespace mpgpu {

uint64_t Occupancy::storage_bytes() const {
  return static_cast<uint64_t>(tbs_per_sm) * (uint64_t{registers_per_tb} * 4 + shared_mem_per_tb);
}

uint32_t shared_mem_config_for(const SmParams& sm, uint32_t shared_mem_per_tb) {
  if (shared_mem_per_tb <= sm.shared_mem_default) return sm.shared_mem_default;
  for (uint32_t c : sm.shared_mem_configs)
    if (c >= shared_mem_per_tb) return c;
  return 0;
}

uint32_t rounded_registers(const SmParams& sm, uint32_t r) {
  const uint32_t u = std::max(1u, sm.register_alloc_unit);
  return (r + u - 1) / u * u;
}

uint32_t warp_rounded_threads(const SmParams& sm, uint32_t threads) {
  const uint32_t w = std::max(1u, sm.warp_size);
  return (threads + w - 1) / w * w;
}

Occupancy compute_occupancy(const SmParams& sm, const TbResources& tb) {
  Occupancy o;
  o.registers_per_tb = rounded_registers(sm, tb.registers);
  o.shared_mem_per_tb = tb.shared_mem;
  o.shared_mem_config = shared_mem_config_for(sm, tb.shared_mem);
  constexpr uint32_t kInf = std::numeric_limits<uint32_t>::max();
  const struct {
    const char* name;
    uint32_t limit;
  } limits[] = {
      {"tb_slots", sm.max_tbs},
      {"threads", tb.threads ? sm.max_threads / warp_rounded_threads(sm, tb.threads) : kInf},
      {"registers", o.registers_per_tb ? sm.registers / o.registers_per_tb : kInf},
      {"shared_memory", tb.shared_mem ? o.shared_mem_config / tb.shared_mem : kInf},
  };
  uint32_t best = kInf;
  for (const auto& l : limits) best = std::min(best, l.limit);
  for (const auto& l : limits)
    if (l.limit == best) o.limiting += (o.limiting.empty() ? "" : "+") + std::string(l.name);
  o.tbs_per_sm = best;
  return o;
}

}  // namespace mpgpu
