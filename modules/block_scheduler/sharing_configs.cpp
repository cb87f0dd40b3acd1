#include "block_scheduler/sharing_configs.hpp"

#include <algorithm>

namespace mpgpu {

SmCapacity sm_capacity(const SmParams& sm) {
  return {sm.max_tbs, sm.max_threads, sm.registers, sm.largest_shared_mem()};
}

TbFootprint tb_footprint(const SmParams& sm, const TbResources& tb) {
  return {warp_rounded_threads(sm, tb.threads), rounded_registers(sm, tb.registers), tb.shared_mem};
}

namespace {

struct Used {
  uint64_t tbs = 0, threads = 0, registers = 0, shared_mem = 0;
  void add(const TbFootprint& f, uint32_t n) {
    tbs += n, threads += uint64_t(f.threads) * n, registers += uint64_t(f.registers) * n,
        shared_mem += uint64_t(f.shared_mem) * n;
  }
  bool within(const SmCapacity& c) const {
    return tbs <= c.tbs && threads <= c.threads && registers <= c.registers && shared_mem <= c.shared_mem;
  }
};

Used used(const std::vector<TbFootprint>& k, const TbMix& mix) {
  Used u;
  for (size_t i = 0; i < k.size(); ++i) u.add(k[i], mix.at(i));
  return u;
}

// The most TBs of `f` that fit beside `u`.
uint32_t most(const SmCapacity& c, Used u, const TbFootprint& f) {
  uint32_t n = 0;
  for (;;) {
    u.add(f, 1);
    if (!u.within(c)) return n;
    ++n;
  }
}

void grow(const SmCapacity& cap, const std::vector<TbFootprint>& k, TbMix& mix, size_t i, std::vector<TbMix>& out) {
  const uint32_t top = most(cap, used(k, mix), k[i]);
  if (i + 1 == k.size()) {  // the last kernel takes all that fits
    mix[i] = top;
    const auto running = std::count_if(mix.begin(), mix.end(), [](uint32_t n) { return n > 0; });
    if (running > 1 && !incomplete(cap, k, mix)) out.push_back(mix);
    mix[i] = 0;
    return;
  }
  for (uint32_t n = 0; n <= top; ++n) {
    mix[i] = n;
    grow(cap, k, mix, i + 1, out);
  }
  mix[i] = 0;
}

}  // namespace

bool fits(const SmCapacity& cap, const std::vector<TbFootprint>& k, const TbMix& mix) { return used(k, mix).within(cap); }

bool incomplete(const SmCapacity& cap, const std::vector<TbFootprint>& k, const TbMix& mix) {
  const Used u = used(k, mix);
  return std::any_of(k.begin(), k.end(), [&](const TbFootprint& f) { return most(cap, u, f) > 0; });
}

std::vector<TbMix> complete_configurations(const SmCapacity& cap, const std::vector<TbFootprint>& k) {
  std::vector<TbMix> out;
  if (k.empty()) return out;
  TbMix mix(k.size(), 0);
  grow(cap, k, mix, 0, out);
  return out;
}

}  // namespace mpgpu
