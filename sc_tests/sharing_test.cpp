// SPEC 5's intra-SM sharing decisions on hand-sized SMs and hand-computed counters: MIAS's
// configuration tree, its four decision models, Warped-Slicer's water-filling, and the controller
// that profiles in rounds and decides.
#include <gtest/gtest.h>

#include "block_scheduler/mias_models.hpp"
#include "block_scheduler/sharing_configs.hpp"
#include "block_scheduler/sharing_controller.hpp"
#include "common/error.hpp"
#include "sm/occupancy_integral.hpp"
#include "block_scheduler/water_filling.hpp"

using namespace mpgpu;

// Three TB slots and nothing else binding, three kernels of one slot each: every split of 3 TBs
// into three counts (10) except the three single-kernel ones, in the tree's order.
TEST(SharingConfigs, TreeDropsSingleKernelConfigurations) {
  const SmCapacity cap{3, 100000, 1u << 20, 1u << 20};
  const std::vector<TbFootprint> k(3, TbFootprint{32, 32, 0});
  const std::vector<TbMix> want{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 1, 1}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  EXPECT_EQ(complete_configurations(cap, k), want);
}

// 8 TB slots, 1024 threads, 16384 registers, 32 KB shared memory. A: 256 threads, 4096
// registers; B: 128 threads, 2048 registers, 8 KB shared memory (at most 4: shared memory).
//   A=0: B 4 (single kernel: dropped)
//   A=1: B 4 leaves 256 threads and 4096 registers: one more A fits (incomplete: dropped)
//   A=2: B 4 (threads and registers full)   A=3: B 2 (threads and registers full)
//   A=4: B 0 (single kernel: dropped)
TEST(SharingConfigs, TreeDropsIncompleteConfigurations) {
  const SmCapacity cap{8, 1024, 16384, 32768};
  const std::vector<TbFootprint> k{{256, 4096, 0}, {128, 2048, 8192}};
  EXPECT_EQ(complete_configurations(cap, k), (std::vector<TbMix>{{2, 4}, {3, 2}}));
  EXPECT_TRUE(incomplete(cap, k, {1, 4}));
  EXPECT_FALSE(fits(cap, k, {3, 3}));
}

// Three SMs' counters (I, C, L1 misses, M, A):
//   SM0: 1000, 1000,  20, 200, 100     SM1: 1500, 1000, 300, 800, 300     SM2: 1200, 1000, 50, 300, 200
// ipc: 1.0, 1.5, 1.2 -> SM1.  ipm_ipc: 50 x 1.0 = 50, 5 x 1.5 = 7.5, 24 x 1.2 = 28.8 -> SM0.
// factor (sum A 600, N 3): f = 0.5, 1.5, 1.0: 1000/900, 1500/1400, 1200/1000 -> SM2.
// linear: M over A fits coef = 60000 / 20000 = 3; dM = 3 (3A - 600) = -900, 900, 0, but SM0 had
//   only 200 memory stall cycles to lose (dM >= -M): 1000/800 = 1.25, 1500/1900, 1200/1000 -> SM0.
TEST(MiasModels, EachModelPicksTheHandComputedConfiguration) {
  const std::vector<SmSample> s{{1000, 1000, 20, 200, 100}, {1500, 1000, 300, 800, 300}, {1200, 1000, 50, 300, 200}};
  EXPECT_EQ(mias_pick(MiasModel::ipc, s), 1);
  EXPECT_EQ(mias_pick(MiasModel::ipm_ipc, s), 0);
  EXPECT_EQ(mias_pick(MiasModel::factor, s), 2);
  EXPECT_EQ(mias_pick(MiasModel::linear, s), 0);
  const auto f = mias_scores(MiasModel::factor, s);
  EXPECT_DOUBLE_EQ(f[0], 1000.0 / 900.0);
  EXPECT_DOUBLE_EQ(f[1], 1500.0 / 1400.0);
  EXPECT_DOUBLE_EQ(f[2], 1.2);
  const auto l = mias_scores(MiasModel::linear, s);
  EXPECT_DOUBLE_EQ(l[0], 1.25);
  EXPECT_NEAR(l[1], 1500.0 / 1900.0, 1e-12);
  EXPECT_DOUBLE_EQ(mias_scores(MiasModel::ipm_ipc, s)[2], 28.8);
  EXPECT_EQ(mias_pick(MiasModel::ipc, {}), -1);
  EXPECT_EQ(mias_model("linear"), MiasModel::linear);
  EXPECT_THROW(mias_model("ipm"), SimError);
}

// 8 TBs of 256 threads fill the SM. A's IPC with 1..8 TBs: 1.0 1.8 2.4 2.8 3.0 3.0 3.0 3.0
// (best 3.0); B's: 0.5 0.9 1.2 1.4 1.5 1.6 1.6 1.6 (best 1.6). From (1, 1): B 0.3125 < A 0.333
// -> (1, 2); A 0.333 -> (2, 2); B 0.5625 -> (2, 3); A 0.6 -> (3, 3); B 0.75 -> (3, 4);
// A 0.8 -> (4, 4): full. Predicted 2.8/3 + 1.4/1.6 = 1.81 > 1: share.
TEST(WaterFilling, GivesTheLaggingKernelTheNextTb) {
  const SmCapacity cap{8, 2048, 65536, 65536};
  const std::vector<TbFootprint> k(2, TbFootprint{256, 1024, 0});
  const auto d = water_fill(cap, k, {{1.0, 1.8, 2.4, 2.8, 3.0, 3.0, 3.0, 3.0}, {0.5, 0.9, 1.2, 1.4, 1.5, 1.6, 1.6, 1.6}});
  EXPECT_EQ(d.mix, (TbMix{4, 4}));
  EXPECT_NEAR(d.predicted[0], 2.8 / 3.0, 1e-12);
  EXPECT_NEAR(d.predicted[1], 1.4 / 1.6, 1e-12);
  EXPECT_FALSE(d.spatial);
}

// IPC proportional to the TBs (0.4 per TB up to 3.2): (4, 4) predicts 0.5 + 0.5 = 1, no better
// than an SM given to one kernel: spatial. Kernels whose single TBs do not fit together: spatial.
TEST(WaterFilling, FallsBackToSpatialWhenSharingDoesNotPay) {
  const SmCapacity cap{8, 2048, 65536, 65536};
  const std::vector<TbFootprint> k(2, TbFootprint{256, 1024, 0});
  const std::vector<double> linear{0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8, 3.2};
  const auto d = water_fill(cap, k, {linear, linear});
  EXPECT_EQ(d.mix, (TbMix{4, 4}));
  EXPECT_TRUE(d.spatial);
  const auto big = water_fill(cap, {{1024, 40000, 0}, {1024, 40000, 0}}, {{1.0}, {1.0}});
  EXPECT_TRUE(big.spatial);
}

// The TB-mix controller (SPEC 5) on hand-made counters. An SM of 4 TB slots and 1024 threads;
// both kernels' TBs are 256 threads, so the complete two-kernel mixes are 1+3, 2+2, 3+1.
namespace {
SmCapacity four_slots() { return {4, 1024, 65536, 65536}; }
std::vector<SharingKernel> two_kernels() { return {{10, {256, 4096, 0}}, {11, {256, 4096, 0}}}; }
SmCounterReading at(uint64_t cycle, uint64_t instructions) { return {cycle, instructions, 0, 0, 0}; }
}  // namespace

// Three mixes on two SMs: two rounds (1+3 and 2+2 side by side, then 3+1 on both SMs); under the
// IPC model 2+2 (IPC 1.5) beats 1+3 (1.0) and 3+1 (mean of 1.2 and 1.4), and goes to every SM.
TEST(SharingController, MiasProfilesInRoundsAndBroadcastsTheBest) {
  SharingParams p;
  p.scheme = SharingScheme::mias;
  p.model = MiasModel::ipc;
  p.hw.window_cycles = 1000;
  SharingController c(p, four_slots(), 2);
  ASSERT_TRUE(c.restart(two_kernels(), 0));
  EXPECT_EQ(c.phases().back().rounds, 2u);
  EXPECT_EQ(c.phases().back().mixes, (std::vector<TbMix>{{1, 3}, {2, 2}}));
  EXPECT_EQ(c.sm_register(1), (TbMixRegister{{10, 2}, {11, 2}}));
  ASSERT_TRUE(c.window_done({at(0, 0), at(0, 0)}, {at(1000, 1000), at(1000, 1500)}, 1000));
  EXPECT_EQ(c.phases().back().mixes, (std::vector<TbMix>{{3, 1}}));
  EXPECT_EQ(c.phases().back().sm_mix, (std::vector<uint32_t>{0, 0}));
  ASSERT_FALSE(c.window_done({at(1000, 1500), at(1000, 1500)}, {at(2000, 2700), at(2000, 2900)}, 2000));
  ASSERT_EQ(c.decisions().size(), 1u);
  const SharingDecision& d = c.decisions()[0];
  EXPECT_EQ(d.mix, (TbMix{2, 2}));
  ASSERT_EQ(d.candidate_scores.size(), 3u);
  EXPECT_DOUBLE_EQ(d.candidate_scores[0], 1.0);
  EXPECT_DOUBLE_EQ(d.candidate_scores[1], 1.5);
  EXPECT_NEAR(d.candidate_scores[2], 1.3, 1e-12);
  EXPECT_EQ(c.phases().back().kind, SharingPhase::Kind::share);
  for (uint32_t sm = 0; sm < 2; ++sm)
    EXPECT_EQ(c.sm_register(sm), (TbMixRegister{{10, 2}, {11, 2}}));
}

// Warped-Slicer on 8 SMs profiles each kernel alone at 1..4 TBs in one round. Both scale
// linearly (IPC n): water-filling reaches 2+2 with predicted 0.5 + 0.5 = 1, which does not beat
// an SM given whole to one kernel, so the SMs split spatially: 0-3 run a alone at 4, 4-7 b.
TEST(SharingController, WarpedSlicerFallsBackToSpatial) {
  SharingParams p;
  p.scheme = SharingScheme::warped_slicer;
  p.hw.window_cycles = 1000;
  SharingController c(p, four_slots(), 8);
  ASSERT_TRUE(c.restart(two_kernels(), 0));
  EXPECT_EQ(c.phases().back().mixes,
            (std::vector<TbMix>{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}}));
  std::vector<SmCounterReading> start(8, at(0, 0)), end;
  for (uint64_t sm = 0; sm < 8; ++sm) end.push_back(at(1000, 1000 * (sm % 4 + 1)));
  ASSERT_FALSE(c.window_done(start, end, 1000));
  const SharingDecision& d = c.decisions().at(0);
  EXPECT_EQ(d.ipc_by_tbs, (std::vector<std::vector<double>>{{1, 2, 3, 4}, {1, 2, 3, 4}}));
  EXPECT_TRUE(d.spatial);
  EXPECT_EQ(d.predicted, (std::vector<double>{0.5, 0.5}));
  for (uint32_t sm = 0; sm < 8; ++sm)
    EXPECT_EQ(c.sm_register(sm), (TbMixRegister{{10, sm < 4 ? 4u : 0u}, {11, sm < 4 ? 0u : 4u}}));
}

// The counters are the report's: a window longer than the cycle counter holds is an error, not
// a silently wider counter. One kernel alone: no limits.
TEST(SharingController, WindowCountersHaveTheReportedWidths) {
  SharingParams p;
  p.hw.window_cycles = 1000;  // cycles: bits_for(1001) = 10 bits, at most 1023
  SharingController c(p, four_slots(), 2);
  ASSERT_TRUE(c.restart(two_kernels(), 0));
  EXPECT_THROW(c.window_done({at(0, 0), at(0, 0)}, {at(1024, 10), at(1000, 10)}, 1024), SimError);
  EXPECT_FALSE(c.restart({two_kernels()[0]}, 2000));
  EXPECT_EQ(c.phases().back().kind, SharingPhase::Kind::alone);
  EXPECT_TRUE(c.sm_register(0).empty());
}

// MIAS's A counter integrates the MSHRs in use over time: misses [0, 10) and [5, 15).
TEST(OccupancyIntegral, SumsOpenIntervalsCycleByCycle) {
  OccupancyIntegral o;
  o.add(0, 10);
  o.add(5, 15);
  EXPECT_EQ(o.integral_to(5), 5u);
  EXPECT_EQ(o.integral_to(10), 15u);  // two open from 5 to 10
  EXPECT_EQ(o.open(), 1u);
  EXPECT_EQ(o.integral_to(20), 20u);
  o.add(18, 22);  // before the last read: counts from 20
  EXPECT_EQ(o.integral_to(30), 22u);
}
