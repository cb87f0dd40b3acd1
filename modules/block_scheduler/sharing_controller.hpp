#pragma once
// SPEC 5: Warped-Slicer and MIAS as one controller of the SMs' TB-mix registers. For the kernels
// sharing the GPU it plans profiling rounds (each SM runs one TB mix for a window), turns the
// SMs' window counters into a decision, and says which mix every SM runs next:
//   Warped-Slicer: each kernel alone at 1..max TBs (its SMs' IPC per TB count), water-filling,
//                  spatial split when sharing is predicted to hurt;
//   MIAS:          every complete configuration side by side, scored by one decision model, the
//                  best broadcast to every SM.
// More mixes than SMs: profiled in rounds of N_SM, in the tree's order; a round with fewer mixes
// than SMs repeats them over the remaining SMs (SM i runs mix i mod n) and a mix's measure is the
// mean over its SMs. Scores of different rounds are compared as they are: each model's score is
// a predicted IPC, and factor/linear normalize memory pressure within their own round.
// Pure logic: the block scheduler reads the counters and loads the registers.
#include <cstdint>
#include <string>
#include <vector>

#include "block_scheduler/mias_models.hpp"
#include "block_scheduler/sharing_configs.hpp"
#include "block_scheduler/water_filling.hpp"
#include "extensions/sharing_counters.hpp"
#include "sm/tb_mix_register.hpp"

namespace mpgpu {

enum class SharingScheme { warped_slicer, mias };

struct SharingParams {
  SharingScheme scheme = SharingScheme::mias;
  MiasModel model = MiasModel::ipm_ipc;  // MIAS only
  SharingHwParams hw;                    // window and counter widths
};

// A kernel sharing the SMs: its launch id and one TB's footprint.
struct SharingKernel {
  uint32_t launch = 0;
  TbFootprint tb;
};

// One stretch of time over which every SM ran a fixed TB mix.
struct SharingPhase {
  enum class Kind { profile, share, spatial, alone } kind = Kind::alone;
  double start_ns = 0, end_ns = -1;
  std::vector<uint32_t> kernels;  // launch ids, the order of every mix
  std::vector<TbMix> mixes;       // the mixes run (profile: this round's; else one per kernel set)
  std::vector<uint32_t> sm_mix;   // per SM: index into mixes
  uint32_t round = 0, rounds = 0; // profile
  std::vector<SmSample> samples;  // profile: per SM, over the window
  std::vector<double> scores;     // profile, MIAS: per SM, the model's merit
};

// What the profiling concluded.
struct SharingDecision {
  double at_ns = 0;
  std::vector<uint32_t> kernels;
  TbMix mix;                       // on every shared SM (empty: spatial)
  bool spatial = false;            // Warped-Slicer: sharing predicted to hurt; MIAS: no mix fits
  std::vector<double> predicted;   // Warped-Slicer: per kernel, its IPC share at the mix
  std::vector<TbMix> candidates;   // MIAS: every profiled mix, and its score (mean over its SMs)
  std::vector<double> candidate_scores;
  std::vector<std::vector<double>> ipc_by_tbs;  // Warped-Slicer: the profiles
};

class SharingController {
 public:
  SharingController(const SharingParams& p, const SmCapacity& cap, uint32_t num_sms);

  // The kernels sharing the SMs changed (a kernel arrived, or one issued its last TB): start
  // over. Fewer than two: no limits (Left-Over). Returns true when a profiling window starts.
  bool restart(const std::vector<SharingKernel>& kernels, double now_ns);
  // A profiling window ended: per SM, the counters at its start and at its end. Starts the next
  // round or decides; returns true when another window starts.
  bool window_done(const std::vector<SmCounterReading>& start, const std::vector<SmCounterReading>& end,
                   double now_ns);

  bool profiling() const { return !phases_.empty() && phases_.back().kind == SharingPhase::Kind::profile; }
  // The TB-mix register of SM `sm` in the current phase (empty: no limit).
  TbMixRegister sm_register(uint32_t sm) const;
  const std::vector<SharingPhase>& phases() const { return phases_; }
  const std::vector<SharingDecision>& decisions() const { return decisions_; }
  const SharingParams& params() const { return p_; }
  // The TBs of kernel `k` alone that fit an SM.
  uint32_t alone_max(uint32_t k) const;

 private:
  void begin_round(double now_ns);
  void decide(double now_ns);
  void begin(SharingPhase::Kind kind, std::vector<TbMix> mixes, std::vector<uint32_t> sm_mix, double now_ns);

  SharingParams p_;
  SmCapacity cap_;
  uint32_t num_sms_;
  FieldLayout counters_;
  std::vector<SharingKernel> kernels_;
  std::vector<TbMix> to_profile_;     // every mix to profile, in order
  uint32_t round_ = 0;
  // Per profiled mix (index into to_profile_): the SMs' samples and scores of its round.
  std::vector<std::vector<SmSample>> mix_samples_;
  std::vector<std::vector<double>> mix_scores_;
  std::vector<SharingPhase> phases_;
  std::vector<SharingDecision> decisions_;
};

const char* sharing_phase_name(SharingPhase::Kind k);

}  // namespace mpgpu
