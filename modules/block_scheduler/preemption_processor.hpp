#pragma once
// The block scheduler's preemption processor (SPEC 4: a small in-order processor in the block
// scheduler runs the decision). From an SM's running-TB status it costs every resident TB
// (PreemptionCostModel) and plans a preemption:
//   Chimera: a technique per TB for the whole SM (the least overhead meeting the latency
//            constraint, else the least latency).
//   Dual-kernel: only the allocation positions the preempting kernel needs, chosen one candidate
//            at a time on the candidate victim sets (select_victims); TBs overlapping no chosen
//            position keep running beside the preempting kernel.
// It keeps each kernel's finished-TB statistics and, per SM in dual-kernel mode, the allocation
// positions, the candidate victim sets and the preempting kernel's allocation status: the
// modules/extensions tables `mpgpu report` sizes, with the same parameters.
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "block_scheduler/preemption_cost.hpp"
#include "block_scheduler/victim_selection.hpp"
#include "sm/sm.hpp"

namespace mpgpu {

struct PreemptionProcessorParams {
  double dram_bytes_per_cycle = 0;  // whole GPU, per core cycle (the switch cost's bandwidth)
  double max_latency_cycles = 0;    // the preemption latency constraint
  bool oracle = false;              // drain latency: each TB's exact remaining time (TB level)
};

// One TB in a plan, with what the cost model predicted for its technique.
struct PlannedTb {
  uint32_t slot;
  KernelLaunch* launch;
  uint32_t tb;
  TbTechnique technique;
  double latency_cycles, overhead;
};
struct PreemptionDecision {
  std::vector<PlannedTb> tbs;
  std::vector<uint32_t> positions;  // dual-kernel: the positions freed for the preempting kernel
  PreemptPlan plan() const;
};

class PreemptionProcessor {
 public:
  PreemptionProcessor(const SmParams& sm, const PreemptionProcessorParams& p);

  // A TB that ran start to end in one residency: its kernel's statistics for the drain estimate.
  void tb_finished(uint32_t launch, uint64_t instructions, uint64_t cycles);
  void kernel_done(uint32_t launch) { stats_.erase(launch); }

  // Chimera: every resident TB of the SM.
  PreemptionDecision plan_whole_sm(const SmStatusReport& s) const;
  // Dual-kernel: sets up the SM's positions for the preempting kernel `next`, builds the candidate
  // victim sets from the resident TBs, and frees `needed` positions (fewer if the SM has fewer);
  // when the freed positions leave too few TB slots or threads for the TBs, the cheapest other
  // TBs go too (the victim sets cover registers and shared memory only).
  PreemptionDecision plan_positions(uint32_t sm, const SmStatusReport& s, const KernelLaunch& next, uint32_t needed);

  bool dual(uint32_t sm) const { return sms_.at(sm).has_value(); }
  uint32_t preempting_launch(uint32_t sm) const { return sms_.at(sm)->launch; }
  // Positions of the SM not holding a preempting TB, in order.
  std::vector<uint32_t> free_positions(uint32_t sm) const;
  const AllocationPosition& position(uint32_t sm, uint32_t k) const { return sms_.at(sm)->positions.at(k); }
  void placed(uint32_t sm, uint32_t k, uint32_t slot);  // a preempting TB took position k
  void left(uint32_t sm, uint32_t slot);                // a TB in that slot left the SM
  void end_dual(uint32_t sm) { sms_.at(sm).reset(); }   // the SM runs one kernel again
  const CandidateVictimSets& victim_sets(uint32_t sm) const { return sms_.at(sm)->sets; }
  // What the owner of an SM's SPEC 4 tables sees (to make the same updates on their links): a
  // plan (both tables start empty: the processor clears them for the new preempting kernel) and
  // every update of the candidate victim sets and of the preempting kernel's allocation status.
  struct TablesObserver {
    std::function<void(uint32_t sm)> planned;
    std::function<void(uint32_t sm, unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after)> victim_sets;
    std::function<void(uint32_t sm, unsigned op, uint32_t pos, uint32_t arg, const PreemptingAllocationStatus& after)> status;
    // The positions configured for TBs of `tb_registers` / `tb_shared_mem` on an SM of `registers` /
    // `shared_mem` (the victim-set build then reads each one).
    std::function<void(uint32_t sm, uint32_t registers, uint32_t shared_mem, uint32_t tb_registers, uint32_t tb_shared_mem,
                       const std::vector<AllocationPosition>& positions)>
        positions;
  };
  void observe_tables(TablesObserver o) { observer_ = std::move(o); }

 private:
  std::vector<TbCosts> costs_by_slot(const SmStatusReport& s) const;
  struct DualSm {
    uint32_t launch;
    std::vector<AllocationPosition> positions;
    CandidateVictimSets sets;
    PreemptingAllocationStatus status;
  };
  const SmParams& sm_;
  PreemptionProcessorParams p_;
  DualKernelParams tables_;  // K positions, P = the SM's TB slots
  std::unordered_map<uint32_t, KernelTbStats> stats_;  // by launch
  std::vector<std::optional<DualSm>> sms_;
  TablesObserver observer_;
};

}  // namespace mpgpu
