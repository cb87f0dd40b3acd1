#include "block_scheduler/preemption_cost.hpp"

#include <cmath>
#include <numeric>

namespace mpgpu {

namespace {

struct Spread {
  double mean = 0, stddev = 0;
};

// Mean and (population) standard deviation; none below two samples.
std::optional<Spread> spread(const std::vector<double>& xs) {
  if (xs.size() < 2) return std::nullopt;
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / double(xs.size());
  double sq = 0;
  for (double x : xs) sq += (x - mean) * (x - mean);
  return Spread{mean, std::sqrt(sq / double(xs.size()))};
}

// Cycles a resident TB has run, from its issue cycle in the table.
double ran(const RunningTbStatusEntry& e, uint64_t now) { return now > e.issue_cycle ? double(now - e.issue_cycle) : 0.0; }

}  // namespace

const TechniqueCost& TbCosts::of(TbTechnique t) const {
  return t == TbTechnique::switch_out ? switch_out : t == TbTechnique::drain ? drain : flush;
}

std::optional<double> PreemptionCostModel::predicted_cpi(const KernelTbStats& k,
                                                         const std::vector<RunningTbStatusEntry>& resident,
                                                         uint64_t now) {
  std::vector<double> running;
  for (const auto& e : resident)
    if (e.executed_instructions > 0) running.push_back(ran(e, now) / double(e.executed_instructions));
  const auto r = spread(running), f = spread(k.finished_cpi);
  if (r && f) return r->stddev <= f->stddev ? r->mean : f->mean;
  if (r) return r->mean;
  if (f) return f->mean;
  return std::nullopt;
}

std::vector<TbCosts> PreemptionCostModel::costs(const CostModelParams& p, const KernelTbStats& k,
                                                const std::vector<RunningTbStatusEntry>& resident, uint64_t now,
                                                const std::vector<double>* exact_drain) {
  // Switch: the SM's share of DRAM bandwidth moves the context out; the lost throughput is what
  // the SM's TBs would have executed while it goes out and comes back.
  const double share = p.dram_bytes_per_cycle / double(std::max(1u, p.num_sms));
  const double switch_latency = share > 0 ? p.context_bytes / share : kMaxCost;
  double ipc = 0;
  for (const auto& e : resident) {
    const double c = ran(e, now);
    if (c > 0) ipc += double(e.executed_instructions) / c;
  }
  ipc = resident.empty() ? 0 : ipc / double(resident.size());
  const std::optional<double> cpi = predicted_cpi(k, resident, now);
  std::optional<double> per_tb;  // mean instructions of a TB of the kernel
  if (!k.finished_instructions.empty())
    per_tb = std::accumulate(k.finished_instructions.begin(), k.finished_instructions.end(), 0.0) /
             double(k.finished_instructions.size());
  std::vector<TbCosts> out;
  for (size_t i = 0; i < resident.size(); ++i) {
    const RunningTbStatusEntry& e = resident[i];
    TbCosts c;
    c.flush = {0.0, double(e.executed_instructions), e.flush};
    c.switch_out = {switch_latency, ipc * 2.0 * switch_latency, true};
    if (exact_drain) {
      c.drain = {exact_drain->at(i), 0.0, true};
    } else if (cpi && per_tb) {
      const double remaining = std::max(0.0, *per_tb - double(e.executed_instructions));
      c.drain = {remaining * *cpi, 0.0, true};
    } else {
      c.drain = {kMaxCost, 0.0, true};  // not enough statistics: assume the worst
    }
    out.push_back(c);
  }
  return out;
}

TechniqueCost PreemptionCostModel::in_plan(const TbCosts& c, TbTechnique t, uint32_t switches_ahead) {
  TechniqueCost x = c.of(t);
  if (t == TbTechnique::switch_out) x.latency *= double(switches_ahead + 1);
  return x;
}

bool PreemptionCostModel::preferred(const TechniqueCost& a, const TechniqueCost& b, double max_latency) {
  const bool am = a.latency <= max_latency, bm = b.latency <= max_latency;
  if (am != bm) return am;
  return am ? a.overhead < b.overhead : a.latency < b.latency;
}

TbTechnique PreemptionCostModel::choose(const TbCosts& c, double max_latency, uint32_t switches_ahead) {
  const TbTechnique all[] = {TbTechnique::flush, TbTechnique::drain, TbTechnique::switch_out};
  std::optional<TbTechnique> best;
  TechniqueCost best_cost;
  for (TbTechnique t : all) {
    const TechniqueCost x = in_plan(c, t, switches_ahead);
    if (x.legal && (!best || preferred(x, best_cost, max_latency))) best = t, best_cost = x;
  }
  return *best;  // switching is always legal
}

}  // namespace mpgpu
