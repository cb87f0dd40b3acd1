#include "block_scheduler/water_filling.hpp"

#include <algorithm>
#include <numeric>

namespace mpgpu {

SliceDecision water_fill(const SmCapacity& cap, const std::vector<TbFootprint>& k,
                         const std::vector<std::vector<double>>& ipc_by_tbs) {
  SliceDecision d;
  d.mix.assign(k.size(), 1);
  auto perf = [&](size_t i, uint32_t n) {
    const auto& p = ipc_by_tbs.at(i);
    const double best = p.empty() ? 0.0 : *std::max_element(p.begin(), p.end());
    return best > 0 && n >= 1 && n <= p.size() ? p[n - 1] / best : 0.0;
  };
  if (!fits(cap, k, d.mix)) {
    d.spatial = true;
    d.mix.assign(k.size(), 0);
    return d;
  }
  for (;;) {
    int lowest = -1;
    for (size_t i = 0; i < k.size(); ++i) {
      if (d.mix[i] >= ipc_by_tbs.at(i).size()) continue;  // profiled no further
      TbMix more = d.mix;
      ++more[i];
      if (!fits(cap, k, more)) continue;
      if (lowest < 0 || perf(i, d.mix[i]) < perf(size_t(lowest), d.mix[size_t(lowest)])) lowest = static_cast<int>(i);
    }
    if (lowest < 0) break;
    ++d.mix[size_t(lowest)];
  }
  for (size_t i = 0; i < k.size(); ++i) d.predicted.push_back(perf(i, d.mix[i]));
  d.spatial = std::accumulate(d.predicted.begin(), d.predicted.end(), 0.0) <= 1.0;
  return d;
}

}  // namespace mpgpu
