#pragma once
// SPEC 4's cost of preempting one resident TB with each technique, as the block scheduler's
// preemption processor computes it from an SM's running-TB status table (executed instructions,
// issue cycle, flush bit) and the kernel's statistics. Latency in core cycles; overhead in warp
// instructions of throughput lost.
//   flush:  latency 0; overhead = instructions it executed; only while idempotent.
//   switch: latency = context bytes / (DRAM bytes per cycle / N_SM);
//           overhead = mean IPC of the SM's resident TBs x 2 x latency (out and back).
//           The SM saves its switched TBs one after another through that share, so in a plan
//           the n-th switch ends n such latencies after the request (`switches_ahead`); SPEC 4
//           takes one TB's latency for every switch, which the SM cannot meet when it
//           switches several TBs (stated refinement, docs/mechanisms.md section 7).
//   drain:  latency = remaining instructions x CPI; overhead 0 (the SM keeps working);
//           remaining = mean instructions per TB of the kernel - executed (at least 0); CPI from
//           the running TBs or from the finished ones, whichever varies less (lower standard
//           deviation). Without enough statistics the latency is the maximum (never chosen to
//           meet a constraint).
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "common/tb_technique.hpp"
#include "extensions/dual_kernel_tables.hpp"

namespace mpgpu {

struct TechniqueCost {
  double latency = 0;   // cycles
  double overhead = 0;  // warp instructions
  bool legal = true;    // flush: only while idempotent
};

struct TbCosts {
  TechniqueCost switch_out, drain, flush;
  const TechniqueCost& of(TbTechnique t) const;
};

// What the kernel's finished TBs tell (the block scheduler keeps it per KSRT entry).
struct KernelTbStats {
  std::vector<double> finished_instructions;  // per finished TB
  std::vector<double> finished_cpi;           // cycles per warp instruction, per finished TB
};

struct CostModelParams {
  double context_bytes = 0;          // per TB of the kernel
  double dram_bytes_per_cycle = 0;   // whole GPU, per core cycle
  uint32_t num_sms = 1;
};

class PreemptionCostModel {
 public:
  static constexpr double kMaxCost = std::numeric_limits<double>::infinity();

  // Costs of every resident TB of one SM (`resident`: their running-TB status entries) at `now`.
  // `exact_drain` (the oracle of SPEC 4): each TB's exact remaining cycles replace the estimate.
  static std::vector<TbCosts> costs(const CostModelParams& p, const KernelTbStats& k,
                                    const std::vector<RunningTbStatusEntry>& resident, uint64_t now,
                                    const std::vector<double>* exact_drain = nullptr);

  // The CPI the drain estimate uses: from the running TBs or the finished ones, whichever has
  // the lower standard deviation (each needs two samples); none: not enough statistics.
  static std::optional<double> predicted_cpi(const KernelTbStats& k, const std::vector<RunningTbStatusEntry>& resident,
                                             uint64_t now);

  // SPEC 4's order between two options (a technique, a candidate, a plan): one meeting
  // `max_latency` beats one that does not; two that meet it, the lower overhead; two that do
  // not, the lower latency. True when `a` is strictly better than `b`.
  static bool preferred(const TechniqueCost& a, const TechniqueCost& b, double max_latency);
  // Chimera's per-TB choice: the least-overhead legal technique meeting `max_latency`, else the
  // least-latency legal one; a switch waits behind `switches_ahead` others of the same plan.
  static TbTechnique choose(const TbCosts& c, double max_latency, uint32_t switches_ahead = 0);
  // The cost of technique `t` for a TB whose switch would wait behind `switches_ahead` others.
  static TechniqueCost in_plan(const TbCosts& c, TbTechnique t, uint32_t switches_ahead);
};

}  // namespace mpgpu
