#include "platform/sharing_stats.hpp"

#include <fmt/format.h>

namespace mpgpu {

using nlohmann::json;

namespace {

std::string mix_name(const TbMix& m) {
  std::string s;
  for (uint32_t n : m) s += (s.empty() ? "" : "+") + std::to_string(n);
  return s;
}

std::string phase_label(const SharingPhase& p) {
  switch (p.kind) {
    case SharingPhase::Kind::profile: return fmt::format("profile round {}/{}", p.round + 1, p.rounds);
    case SharingPhase::Kind::share: return "share " + mix_name(p.mixes.at(0));
    case SharingPhase::Kind::spatial: return "spatial";
    case SharingPhase::Kind::alone: return "alone";
  }
  return "?";
}

}  // namespace

json sharing_stats(const SharingController& c) {
  const SharingParams& p = c.params();
  json phases = json::array();
  for (const SharingPhase& ph : c.phases()) {
    json j = {{"kind", sharing_phase_name(ph.kind)}, {"start_ns", ph.start_ns},
              {"end_ns", ph.end_ns < 0 ? json(nullptr) : json(ph.end_ns)}, {"kernels", ph.kernels},
              {"mixes", ph.mixes}, {"sm_mix", ph.sm_mix}};
    if (ph.kind == SharingPhase::Kind::profile) {
      j["round"] = ph.round;
      j["rounds"] = ph.rounds;
      json sms = json::array();
      for (size_t i = 0; i < ph.samples.size(); ++i) {
        const SmSample& s = ph.samples[i];
        json sj = {{"instructions", s.instructions}, {"cycles", s.cycles}, {"l1_misses", s.l1_misses},
                   {"mem_stall_cycles", s.mem_stall_cycles}, {"outstanding", s.outstanding},
                   {"ipc", s.cycles > 0 ? s.instructions / s.cycles : 0.0}};
        if (i < ph.scores.size()) sj["score"] = ph.scores[i];
        sms.push_back(sj);
      }
      j["counters"] = std::move(sms);
    }
    phases.push_back(std::move(j));
  }
  json decisions = json::array();
  for (const SharingDecision& d : c.decisions()) {
    json j = {{"at_ns", d.at_ns}, {"kernels", d.kernels}, {"mix", d.mix}, {"spatial", d.spatial}};
    if (p.scheme == SharingScheme::mias) {
      json cands = json::array();
      for (size_t i = 0; i < d.candidates.size(); ++i)
        cands.push_back({{"mix", d.candidates[i]}, {"score", d.candidate_scores[i]}});
      j["candidates"] = std::move(cands);
    } else {
      j["ipc_by_tbs"] = d.ipc_by_tbs;
      j["predicted"] = d.predicted;
    }
    decisions.push_back(std::move(j));
  }
  return {{"scheme", p.scheme == SharingScheme::mias ? "mias" : "warped_slicer"},
          {"model", p.scheme == SharingScheme::mias ? json(mias_model_name(p.model)) : json(nullptr)},
          {"window_cycles", p.hw.window_cycles},
          {"phases", std::move(phases)},
          {"decisions", std::move(decisions)}};
}

void sharing_timeline(const SharingController& c, Timeline& t, double end_ns) {
  if (!t.enabled()) return;
  t.name_group(Timeline::kBlockSchedulerPid, "Block scheduler");
  t.name_track(Timeline::kBlockSchedulerPid, 0, "TB mix (SPEC 5)");
  for (const SharingPhase& ph : c.phases()) {
    const double end = ph.end_ns < 0 ? end_ns : ph.end_ns;
    if (end <= ph.start_ns) continue;
    std::string mixes;
    for (const TbMix& m : ph.mixes) mixes += (mixes.empty() ? "" : ", ") + mix_name(m);
    t.span(Timeline::kBlockSchedulerPid, 0, phase_label(ph), sharing_phase_name(ph.kind), ph.start_ns, end,
           fmt::format("{{\"mixes\": \"{}\"}}", mixes));
  }
}

}  // namespace mpgpu
