#pragma once
// SPEC 5 (Warped-Slicer, MIAS): the TB-mix register the block scheduler broadcasts to every SM.
// For each listed kernel, the most of its TBs the SM admits at once; a kernel not listed has no
// limit (an empty register: Left-Over). TBs already resident above a new limit stay until they
// finish: transitions wait for TBs to finish.
#include <cstdint>
#include <vector>

namespace mpgpu {

struct TbMixEntry {
  uint32_t launch = 0;   // model-wide launch id (the KSRT index in hardware)
  uint32_t max_tbs = 0;  // 0: none of this kernel's TBs here
  bool operator==(const TbMixEntry& o) const { return launch == o.launch && max_tbs == o.max_tbs; }
};
using TbMixRegister = std::vector<TbMixEntry>;

// The limit the register sets on `launch` (~0u: none).
inline uint32_t tb_mix_limit(const TbMixRegister& r, uint32_t launch) {
  for (const TbMixEntry& e : r)
    if (e.launch == launch) return e.max_tbs;
  return ~0u;
}

}  // namespace mpgpu
