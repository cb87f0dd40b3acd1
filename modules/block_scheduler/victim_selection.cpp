#include "block_scheduler/victim_selection.hpp"

#include <algorithm>
#include <optional>

namespace mpgpu {

VictimChoice select_victims(CandidateVictimSets& sets, const std::vector<TbCosts>& costs, uint32_t needed,
                            double max_latency) {
  VictimChoice out;
  std::vector<bool> taken(sets.positions(), false);
  while (out.positions.size() < needed) {
    struct Candidate {
      uint32_t k;
      double latency = 0, overhead = 0;
    };
    std::optional<Candidate> best_meeting, fastest;
    for (uint32_t k = 0; k < sets.positions(); ++k) {
      if (taken[k]) continue;
      Candidate c{k};
      const auto& set = sets.candidate(k);
      for (auto slot = set.find_first(); slot != set.npos; slot = set.find_next(slot)) {
        const TechniqueCost& t = costs.at(slot).of(PreemptionCostModel::choose(costs.at(slot), max_latency));
        c.latency = std::max(c.latency, t.latency);
        c.overhead += t.overhead;
      }
      if (c.latency <= max_latency && (!best_meeting || c.overhead < best_meeting->overhead)) best_meeting = c;
      if (!fastest || c.latency < fastest->latency) fastest = c;
    }
    if (!fastest) break;  // every position is taken
    const Candidate& pick = best_meeting ? *best_meeting : *fastest;
    taken[pick.k] = true;
    out.positions.push_back(pick.k);
    out.latency = std::max(out.latency, pick.latency);
    out.overhead += pick.overhead;
    const auto victims = sets.candidate(pick.k);  // a copy: clearing changes the sets
    for (auto slot = victims.find_first(); slot != victims.npos; slot = victims.find_next(slot)) {
      out.victims.push_back({static_cast<uint32_t>(slot), PreemptionCostModel::choose(costs.at(slot), max_latency)});
      sets.clear_tb(static_cast<uint32_t>(slot));
    }
  }
  return out;
}

}  // namespace mpgpu
