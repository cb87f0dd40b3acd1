#pragma once
// Dual-kernel victim selection (SPEC 4, Shieh) on one SM: the preempting kernel needs `needed`
// of the SM's predetermined allocation positions. Each position's candidate victim set holds the
// running TBs overlapping it. Per TB the technique is the least-overhead one meeting the latency
// constraint (else the least-latency one, PreemptionCostModel::choose; a switch waits behind the
// plan's earlier switches, which the SM saves one after another); a candidate's latency is
// the largest of its TBs', its overhead their sum. One candidate at a time: a position already
// free first, else the least-overhead candidate meeting the constraint, else the least-latency
// one; its TBs are preempted, which clears them from every candidate set (the table's
// clear-on-preempt), so candidates sharing them become cheaper. Repeats until enough positions.
#include <cstdint>
#include <vector>

#include "block_scheduler/preemption_cost.hpp"
#include "extensions/victim_sets.hpp"

namespace mpgpu {

struct VictimChoice {
  struct Victim {
    uint32_t slot;
    TbTechnique technique;
  };
  std::vector<uint32_t> positions;  // in the order taken
  std::vector<Victim> victims;      // TBs preempted, in the order chosen
  double latency = 0;               // until the last position is free (cycles)
  double overhead = 0;              // instructions of throughput lost
  uint32_t switches = 0;            // victims switched out (the SM saves them in turn)
};

// `costs[slot]`: the cost of preempting the TB in that slot (only slots in some set are read).
// Clears the chosen victims from `sets`. Takes fewer positions when the SM has no more.
VictimChoice select_victims(CandidateVictimSets& sets, const std::vector<TbCosts>& costs, uint32_t needed,
                            double max_latency);

}  // namespace mpgpu
