// SPEC 4's per-TB preemption cost model on a hand-computed SM state, and Chimera's per-TB choice.
#include <gtest/gtest.h>

#include "block_scheduler/preemption_cost.hpp"

using namespace mpgpu;

namespace {

// 16 SMs sharing 160 B of DRAM per cycle (10 B each); 9216 B of context per TB: switching a TB
// out takes 921.6 cycles. Three resident TBs at cycle 1000:
//   A: issued at 0,   500 instructions, idempotent  -> ran 1000, IPC 0.5,  CPI 2
//   B: issued at 200, 200 instructions, not         -> ran 800,  IPC 0.25, CPI 4
//   C: issued at 600, 100 instructions, idempotent  -> ran 400,  IPC 0.25, CPI 4
// Finished TBs: 1000 and 1200 instructions (mean 1100) at CPI 3.0 and 3.2.
CostModelParams params() { return {9216, 160, 16}; }
std::vector<RunningTbStatusEntry> sm_state() { return {{500, 0, true}, {200, 200, false}, {100, 600, true}}; }
KernelTbStats finished() { return {{1000, 1200}, {3.0, 3.2}}; }

}  // namespace

TEST(PreemptionCost, EveryTechniqueOnAHandComputedSm) {
  const auto c = PreemptionCostModel::costs(params(), finished(), sm_state(), 1000);
  ASSERT_EQ(c.size(), 3u);
  // Switch: 9216 / 10 cycles; overhead = mean IPC (1/3) x 2 x latency.
  for (const auto& t : c) {
    EXPECT_DOUBLE_EQ(t.switch_out.latency, 921.6);
    EXPECT_DOUBLE_EQ(t.switch_out.overhead, 2.0 * 921.6 / 3.0);
    EXPECT_TRUE(t.switch_out.legal);
  }
  // Flush: no latency; loses what it executed; only while idempotent.
  EXPECT_DOUBLE_EQ(c[0].flush.overhead, 500);
  EXPECT_TRUE(c[0].flush.legal);
  EXPECT_FALSE(c[1].flush.legal);
  EXPECT_DOUBLE_EQ(c[2].flush.latency, 0);
  // Drain: running CPIs {2, 4, 4} vary more (sd 0.943) than finished ones {3.0, 3.2} (sd 0.1),
  // so CPI 3.1; remaining = 1100 - executed.
  EXPECT_DOUBLE_EQ(c[0].drain.latency, 600 * 3.1);
  EXPECT_DOUBLE_EQ(c[1].drain.latency, 900 * 3.1);
  EXPECT_DOUBLE_EQ(c[2].drain.latency, 1000 * 3.1);
  EXPECT_DOUBLE_EQ(c[1].drain.overhead, 0);
}

TEST(PreemptionCost, CpiComesFromTheLessVariableSampleAndNeedsTwoSamples) {
  // Finished TBs spread more ({1, 9}: sd 4): the running TBs' mean CPI 10/3 is used.
  EXPECT_DOUBLE_EQ(*PreemptionCostModel::predicted_cpi({{1000, 1200}, {1.0, 9.0}}, sm_state(), 1000), 10.0 / 3.0);
  // One running sample and no finished TB: not enough statistics; draining costs the maximum.
  const std::vector<RunningTbStatusEntry> one = {{500, 0, true}};
  EXPECT_FALSE(PreemptionCostModel::predicted_cpi({}, one, 1000));
  const auto c = PreemptionCostModel::costs(params(), {}, one, 1000);
  EXPECT_EQ(c[0].drain.latency, PreemptionCostModel::kMaxCost);
}

TEST(PreemptionCost, ChimeraPicksTheLeastOverheadTechniqueMeetingTheConstraint) {
  const auto c = PreemptionCostModel::costs(params(), finished(), sm_state(), 1000);
  using T = TbTechnique;
  // 1000 cycles: A flushes (overhead 500 < switch 614.4; drain 1860 too slow); B cannot flush
  // and cannot drain in time: switch; C flushes (100).
  EXPECT_EQ(PreemptionCostModel::choose(c[0], 1000), T::flush);
  EXPECT_EQ(PreemptionCostModel::choose(c[1], 1000), T::switch_out);
  EXPECT_EQ(PreemptionCostModel::choose(c[2], 1000), T::flush);
  // 2000 cycles: A drains (1860, no overhead); B still switches (drain 2790); C flushes (3100).
  EXPECT_EQ(PreemptionCostModel::choose(c[0], 2000), T::drain);
  EXPECT_EQ(PreemptionCostModel::choose(c[1], 2000), T::switch_out);
  EXPECT_EQ(PreemptionCostModel::choose(c[2], 2000), T::flush);
  // 500 cycles: nothing legal meets it for B: the least latency, switching (921.6 < 2790).
  EXPECT_EQ(PreemptionCostModel::choose(c[1], 500), T::switch_out);
}
