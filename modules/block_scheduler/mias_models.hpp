#pragma once
// SPEC 5 (Nasef, MIAS), decision step: each SM ran one configuration for the profiling window;
// from its counters each model predicts how well that configuration would do if every SM ran it,
// and the best one is broadcast. The SM counters read (per SM, over the window):
//   I instructions, C cycles, L1 misses, M memory stall cycles, A outstanding memory accesses
//   accumulated over the memory stall cycles.
// Models (N = SMs sampled):
//   ipc:     I / C
//   ipm_ipc: (I / L1 misses) x (I / C)           (the published final variant)
//   factor:  f = A x N / sum A;  I / (C + M (f - 1))
//   linear:  M = coef x A + b fitted over the SMs (least squares);
//            dM = coef (A x N - sum A), at least -M (our bound: no more stall cycles removed
//            than the SM had; SPEC's formula alone can make C + dM negative);  I / (C + dM)
// factor and linear scale an SM's memory stalls to the pressure all N SMs running its
// configuration would put on the memory system, against the mix it was profiled beside.
#include <cstdint>
#include <string>
#include <vector>

namespace mpgpu {

enum class MiasModel { ipc, ipm_ipc, factor, linear };
MiasModel mias_model(const std::string& name);  // "ipc", "ipm_ipc", "factor", "linear"
const char* mias_model_name(MiasModel m);

struct SmSample {
  double instructions = 0, cycles = 0, l1_misses = 0, mem_stall_cycles = 0, outstanding = 0;
};

// Each sampled SM's predicted merit under model `m` (higher is better).
std::vector<double> mias_scores(MiasModel m, const std::vector<SmSample>& sms);
// The SM whose configuration wins (the first of equals); none sampled: -1.
int mias_pick(MiasModel m, const std::vector<SmSample>& sms);

}  // namespace mpgpu
