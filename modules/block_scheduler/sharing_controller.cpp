#include "block_scheduler/sharing_controller.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace mpgpu {

const char* sharing_phase_name(SharingPhase::Kind k) {
  switch (k) {
    case SharingPhase::Kind::profile: return "profile";
    case SharingPhase::Kind::share: return "share";
    case SharingPhase::Kind::spatial: return "spatial";
    case SharingPhase::Kind::alone: return "alone";
  }
  return "?";
}

SharingController::SharingController(const SharingParams& p, const SmCapacity& cap, uint32_t num_sms)
    : p_(p), cap_(cap), num_sms_(num_sms), counters_(profiling_counters_layout(p.hw)) {
  if (num_sms == 0) throw SimError("sharing controller: no SMs");
}

uint32_t SharingController::alone_max(uint32_t k) const {
  std::vector<TbFootprint> one{kernels_.at(k).tb};
  TbMix mix{0};
  while (fits(cap_, one, TbMix{mix[0] + 1})) ++mix[0];
  return mix[0];
}

void SharingController::begin(SharingPhase::Kind kind, std::vector<TbMix> mixes, std::vector<uint32_t> sm_mix,
                              double now_ns) {
  if (!phases_.empty() && phases_.back().end_ns < 0) phases_.back().end_ns = now_ns;
  SharingPhase ph;
  ph.kind = kind;
  ph.start_ns = now_ns;
  for (const auto& k : kernels_) ph.kernels.push_back(k.launch);
  ph.mixes = std::move(mixes);
  ph.sm_mix = std::move(sm_mix);
  phases_.push_back(std::move(ph));
}

bool SharingController::restart(const std::vector<SharingKernel>& kernels, double now_ns) {
  kernels_ = kernels;
  to_profile_.clear();
  round_ = 0;
  if (kernels_.size() < 2) {
    begin(SharingPhase::Kind::alone, {}, {}, now_ns);
    return false;
  }
  std::vector<TbFootprint> fp;
  for (const auto& k : kernels_) fp.push_back(k.tb);
  if (p_.scheme == SharingScheme::mias) {
    to_profile_ = complete_configurations(cap_, fp);
  } else {  // each kernel alone at 1..max TBs
    for (uint32_t k = 0; k < kernels_.size(); ++k)
      for (uint32_t n = 1; n <= alone_max(k); ++n) {
        TbMix m(kernels_.size(), 0);
        m[k] = n;
        to_profile_.push_back(m);
      }
  }
  if (to_profile_.empty()) {  // MIAS: no two of these kernels fit one SM together
    decide(now_ns);
    return false;
  }
  mix_samples_.assign(to_profile_.size(), {});
  mix_scores_.assign(to_profile_.size(), {});
  begin_round(now_ns);
  return true;
}

void SharingController::begin_round(double now_ns) {
  const size_t first = size_t(round_) * num_sms_;
  const size_t n = std::min<size_t>(num_sms_, to_profile_.size() - first);
  std::vector<TbMix> mixes(to_profile_.begin() + first, to_profile_.begin() + first + n);
  std::vector<uint32_t> sm_mix(num_sms_);
  for (uint32_t sm = 0; sm < num_sms_; ++sm) sm_mix[sm] = static_cast<uint32_t>(sm % n);
  begin(SharingPhase::Kind::profile, std::move(mixes), std::move(sm_mix), now_ns);
  phases_.back().round = round_;
  phases_.back().rounds = static_cast<uint32_t>((to_profile_.size() + num_sms_ - 1) / num_sms_);
}

bool SharingController::window_done(const std::vector<SmCounterReading>& start, const std::vector<SmCounterReading>& end,
                                    double now_ns) {
  if (!profiling()) throw SimError("sharing controller: a window ended with no profiling in progress");
  SharingPhase& ph = phases_.back();
  // The counters as the hardware holds them: cleared at the window's start, each within its width.
  auto window = [&](uint64_t a, uint64_t b, const char* field) {
    return double(checked(b - a, field_bits(counters_, field), "profiling_counters", field));
  };
  ph.samples.clear();
  for (uint32_t sm = 0; sm < num_sms_; ++sm) {
    const SmCounterReading& a = start.at(sm);
    const SmCounterReading& b = end.at(sm);
    ph.samples.push_back({window(a.instructions, b.instructions, "instructions"), window(a.cycle, b.cycle, "cycles"),
                          window(a.l1_misses, b.l1_misses, "l1_misses"),
                          window(a.mem_stall_cycles, b.mem_stall_cycles, "mem_stall_cycles"),
                          window(a.outstanding, b.outstanding, "outstanding")});
  }
  if (p_.scheme == SharingScheme::mias) ph.scores = mias_scores(p_.model, ph.samples);
  const size_t first = size_t(round_) * num_sms_;
  for (uint32_t sm = 0; sm < num_sms_; ++sm) {
    const size_t m = first + ph.sm_mix[sm];
    mix_samples_[m].push_back(ph.samples[sm]);
    if (!ph.scores.empty()) mix_scores_[m].push_back(ph.scores[sm]);
  }
  ph.end_ns = now_ns;
  ++round_;
  if (size_t(round_) * num_sms_ < to_profile_.size()) {
    begin_round(now_ns);
    return true;
  }
  decide(now_ns);
  return false;
}

namespace {
double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / double(v.size());
}
}  // namespace

void SharingController::decide(double now_ns) {
  SharingDecision d;
  d.at_ns = now_ns;
  for (const auto& k : kernels_) d.kernels.push_back(k.launch);
  std::vector<TbFootprint> fp;
  for (const auto& k : kernels_) fp.push_back(k.tb);
  if (p_.scheme == SharingScheme::mias) {
    int best = -1;
    for (size_t m = 0; m < to_profile_.size(); ++m) {
      d.candidates.push_back(to_profile_[m]);
      d.candidate_scores.push_back(mean(mix_scores_[m]));
      if (best < 0 || d.candidate_scores[m] > d.candidate_scores[size_t(best)]) best = static_cast<int>(m);
    }
    d.spatial = best < 0;
    if (best >= 0) d.mix = to_profile_[size_t(best)];
  } else {
    d.ipc_by_tbs.assign(kernels_.size(), {});
    for (size_t m = 0; m < to_profile_.size(); ++m) {
      const auto k = static_cast<size_t>(std::find_if(to_profile_[m].begin(), to_profile_[m].end(),
                                                      [](uint32_t n) { return n > 0; }) - to_profile_[m].begin());
      std::vector<double> ipc;
      for (const SmSample& s : mix_samples_[m]) ipc.push_back(s.cycles > 0 ? s.instructions / s.cycles : 0.0);
      d.ipc_by_tbs[k].push_back(mean(ipc));  // mixes come in TB-count order per kernel
    }
    const SliceDecision wf = water_fill(cap_, fp, d.ipc_by_tbs);
    d.spatial = wf.spatial;
    d.predicted = wf.predicted;
    if (!wf.spatial) d.mix = wf.mix;
  }
  decisions_.push_back(d);
  if (!d.spatial) {
    begin(SharingPhase::Kind::share, {d.mix}, std::vector<uint32_t>(num_sms_, 0), now_ns);
    return;
  }
  // Spatial multitasking: contiguous, as even as the SM count allows, each kernel alone at its most.
  const uint32_t n = static_cast<uint32_t>(kernels_.size());
  std::vector<TbMix> mixes;
  for (uint32_t k = 0; k < n; ++k) {
    TbMix m(n, 0);
    m[k] = alone_max(k);
    mixes.push_back(m);
  }
  std::vector<uint32_t> sm_mix(num_sms_);
  for (uint32_t sm = 0; sm < num_sms_; ++sm) sm_mix[sm] = static_cast<uint32_t>(uint64_t{sm} * n / num_sms_);
  begin(SharingPhase::Kind::spatial, std::move(mixes), std::move(sm_mix), now_ns);
}

TbMixRegister SharingController::sm_register(uint32_t sm) const {
  TbMixRegister r;
  if (phases_.empty() || phases_.back().kind == SharingPhase::Kind::alone) return r;
  const SharingPhase& ph = phases_.back();
  const TbMix& mix = ph.mixes.at(ph.sm_mix.at(sm));
  for (size_t k = 0; k < ph.kernels.size(); ++k) r.push_back({ph.kernels[k], mix[k]});
  return r;
}

}  // namespace mpgpu
