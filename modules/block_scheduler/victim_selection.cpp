#include "block_scheduler/victim_selection.hpp"

#include <algorithm>
#include <optional>

namespace mpgpu {

VictimChoice select_victims(CandidateVictimSets& sets, const std::vector<TbCosts>& costs, uint32_t needed,
                            double max_latency) {
  VictimChoice out;
  std::vector<bool> taken(sets.positions(), false);
  uint32_t switches = 0;  // switches already in the plan: the SM saves them one after another
  // Each TB of a candidate in set order, with its technique and its cost in the plan.
  auto walk = [&](const boost::dynamic_bitset<>& set, auto&& visit) {
    uint32_t queued = switches;
    for (auto slot = set.find_first(); slot != set.npos; slot = set.find_next(slot)) {
      const TbCosts& c = costs.at(slot);
      const TbTechnique t = PreemptionCostModel::choose(c, max_latency, queued);
      visit(static_cast<uint32_t>(slot), t, PreemptionCostModel::in_plan(c, t, queued));
      if (t == TbTechnique::switch_out) ++queued;
    }
    return queued;
  };
  while (out.positions.size() < needed) {
    struct Candidate {
      uint32_t k;
      double latency = 0, overhead = 0;
    };
    std::optional<Candidate> best_meeting, fastest;
    for (uint32_t k = 0; k < sets.positions(); ++k) {
      if (taken[k]) continue;
      Candidate c{k};
      walk(sets.candidate(k), [&](uint32_t, TbTechnique, const TechniqueCost& t) {
        c.latency = std::max(c.latency, t.latency);
        c.overhead += t.overhead;
      });
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
    switches = walk(victims, [&](uint32_t slot, TbTechnique t, const TechniqueCost&) {
      out.victims.push_back({slot, t});
      sets.clear_tb(slot);
    });
  }
  out.switches = switches;
  return out;
}

}  // namespace mpgpu
