#include "workload/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "common/rng.hpp"
#include "workload/program.hpp"
#include "workload/trace.hpp"

namespace mpgpu {

uint64_t sample_tb_cycles(const TbTimeDist& d, uint64_t seed, uint64_t launch_uid, uint32_t tb) {
  const uint64_t h = hash3(seed, launch_uid, tb);
  double c = d.mean_cycles;
  switch (d.kind) {
    case TbTimeDist::Kind::fixed:
      break;
    case TbTimeDist::Kind::normal:
    case TbTimeDist::Kind::calibrated:
      // Truncated at a tenth of the mean: a TB never takes (near) zero time.
      c = std::max(0.1 * d.mean_cycles, d.mean_cycles * (1.0 + d.cv * standard_normal(h)));
      break;
    case TbTimeDist::Kind::uniform:
      c = d.min_cycles + (d.max_cycles - d.min_cycles) * unit_uniform(h);
      break;
  }
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(c)));
}

bool may_lose_idempotence(const KernelDesc& k) {
  if (k.program)
    return std::any_of(k.program->instrs.begin(), k.program->instrs.end(),
                       [](const ProgInstr& i) { return overwrites_memory(i.space, i.op); });
  if (k.trace)
    return std::any_of(k.trace->ops.begin(), k.trace->ops.end(),
                       [](const TraceOp& o) { return overwrites_memory(o.space, o.op); });
  return k.idempotent_fraction < 1.0;
}

}  // namespace mpgpu
