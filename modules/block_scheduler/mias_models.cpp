#include "block_scheduler/mias_models.hpp"

#include <algorithm>
#include <numeric>

#include "common/error.hpp"

namespace mpgpu {

MiasModel mias_model(const std::string& name) {
  if (name == "ipc") return MiasModel::ipc;
  if (name == "ipm_ipc") return MiasModel::ipm_ipc;
  if (name == "factor") return MiasModel::factor;
  if (name == "linear") return MiasModel::linear;
  throw SimError("unknown MIAS decision model '" + name + "'");
}

const char* mias_model_name(MiasModel m) {
  switch (m) {
    case MiasModel::ipc: return "ipc";
    case MiasModel::ipm_ipc: return "ipm_ipc";
    case MiasModel::factor: return "factor";
    case MiasModel::linear: return "linear";
  }
  return "?";
}

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// Least-squares slope of M over A; 0 when every A is the same (nothing to fit).
double slope(const std::vector<SmSample>& s) {
  const double n = double(s.size());
  double sa = 0, sm = 0;
  for (const auto& x : s) sa += x.outstanding, sm += x.mem_stall_cycles;
  const double ma = sa / n, mm = sm / n;
  double cov = 0, var = 0;
  for (const auto& x : s) cov += (x.outstanding - ma) * (x.mem_stall_cycles - mm), var += (x.outstanding - ma) * (x.outstanding - ma);
  return var > 0 ? cov / var : 0.0;
}

}  // namespace

std::vector<double> mias_scores(MiasModel m, const std::vector<SmSample>& sms) {
  std::vector<double> out;
  if (sms.empty()) return out;
  const double n = double(sms.size());
  const double sum_a = std::accumulate(sms.begin(), sms.end(), 0.0, [](double a, const SmSample& s) { return a + s.outstanding; });
  const double coef = m == MiasModel::linear ? slope(sms) : 0.0;
  for (const SmSample& s : sms) {
    const double ipc = ratio(s.instructions, s.cycles);
    switch (m) {
      case MiasModel::ipc: out.push_back(ipc); break;
      // No L1 miss: as if one (the instructions per miss are then the instructions).
      case MiasModel::ipm_ipc: out.push_back(s.instructions / std::max(1.0, s.l1_misses) * ipc); break;
      case MiasModel::factor: {
        const double f = sum_a > 0 ? s.outstanding * n / sum_a : 1.0;
        out.push_back(ratio(s.instructions, s.cycles + s.mem_stall_cycles * (f - 1)));
        break;
      }
      case MiasModel::linear: {
        // SPEC 5's dM can predict removing more memory stall cycles than the SM had (a negative
        // cycle count for a low-pressure mix); our bound: at most all of them (dM >= -M).
        const double dm = std::max(coef * (s.outstanding * n - sum_a), -s.mem_stall_cycles);
        out.push_back(ratio(s.instructions, s.cycles + dm));
        break;
      }
    }
  }
  return out;
}

int mias_pick(MiasModel m, const std::vector<SmSample>& sms) {
  const auto s = mias_scores(m, sms);
  if (s.empty()) return -1;
  return static_cast<int>(std::max_element(s.begin(), s.end()) - s.begin());
}

}  // namespace mpgpu
