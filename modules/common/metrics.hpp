#pragma once
// Multiprogram metrics of Eyerman and Eeckhout (SPEC 2): from isolated time T_SP and
// multiprogrammed time T_MP of each program.
#include <vector>

namespace mpgpu {

struct ProgramTimes {
  double t_sp;  // isolated
  double t_mp;  // multiprogrammed
};

inline double ntt(const ProgramTimes& p) { return p.t_mp / p.t_sp; }

struct MultiprogramMetrics {
  double antt = 0;      // mean of NTT_i, lower is better
  double stp = 0;       // sum of T_SP,i / T_MP,i, higher is better
  double fairness = 0;  // min_ij NP_i / NP_j, 1 = perfectly fair
};

MultiprogramMetrics compute_metrics(const std::vector<ProgramTimes>& programs);

}  // namespace mpgpu
