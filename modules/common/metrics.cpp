#include "common/metrics.hpp"

#include <algorithm>
#include <stdexcept>

namespace mpgpu {

MultiprogramMetrics compute_metrics(const std::vector<ProgramTimes>& programs) {
  MultiprogramMetrics m;
  if (programs.empty()) return m;
  double np_min = 0, np_max = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    const auto& p = programs[i];
    if (p.t_sp <= 0 || p.t_mp <= 0) throw std::invalid_argument("program times must be positive");
    const double np = p.t_sp / p.t_mp;  // normalized progress
    m.antt += ntt(p);
    m.stp += np;
    np_min = i ? std::min(np_min, np) : np;
    np_max = i ? std::max(np_max, np) : np;
  }
  m.antt /= programs.size();
  // min over all ordered pairs of NP_i / NP_j is the smallest over the largest.
  m.fairness = np_min / np_max;
  return m;
}

}  // namespace mpgpu
