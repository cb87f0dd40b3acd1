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
    std::optional<uint32_t> pick;  // position
    TechniqueCost pick_cost;       // its latency (the largest of its TBs') and overhead (their sum)
    for (uint32_t k = 0; k < sets.positions(); ++k) {
      if (taken[k]) continue;
      TechniqueCost c;
      walk(sets.candidate(k), [&](uint32_t, TbTechnique, const TechniqueCost& t) {
        c.latency = std::max(c.latency, t.latency);
        c.overhead += t.overhead;
      });
      if (!pick || PreemptionCostModel::preferred(c, pick_cost, max_latency)) pick = k, pick_cost = c;
    }
    if (!pick) break;  // every position is taken
    taken[*pick] = true;
    out.positions.push_back(*pick);
    out.latency = std::max(out.latency, pick_cost.latency);
    out.overhead += pick_cost.overhead;
    const auto victims = sets.candidate(*pick);  // a copy: clearing changes the sets
    switches = walk(victims, [&](uint32_t slot, TbTechnique t, const TechniqueCost&) {
      out.victims.push_back({slot, t});
      sets.clear_tb(slot);
    });
  }
  out.switches = switches;
  return out;
}

}  // namespace mpgpu
