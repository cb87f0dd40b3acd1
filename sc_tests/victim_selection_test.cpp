// Dual-kernel victim selection (SPEC 4) on a hand-built SM: candidate victim sets from allocation
// positions and resident TBs, per-TB costs, and the positions and techniques it picks.
#include <gtest/gtest.h>

#include "block_scheduler/victim_selection.hpp"

using namespace mpgpu;

namespace {

TechniqueCost cost(double latency, double overhead, bool legal = true) { return {latency, overhead, legal}; }

// Four positions of 1000 registers each; four resident TBs (slots 0-3):
//   slot 0: registers [0, 1500)     -> positions 0, 1
//   slot 1: registers [1500, 2000)  -> position 1
//   slot 2: registers [2000, 3000)  -> position 2
//   slot 3: registers [3000, 4000)  -> position 3
// Costs (latency cycles, overhead instructions) per technique:
//   slot 0: flush illegal, drain (5000, 0), switch (900, 600)
//   slot 1: flush (0, 50),  drain (400, 0),  switch (900, 600)
//   slot 2: flush (0, 700), drain (800, 0),  switch (900, 600)
//   slot 3: flush (0, 10),  drain (3000, 0), switch (900, 600)
CandidateVictimSets sm(DualKernelParams& p) {
  p.positions = 4;
  p.tb_slots = 4;
  CandidateVictimSets s(p);
  s.build({{0, 1000, 0, 0}, {1000, 1000, 0, 0}, {2000, 1000, 0, 0}, {3000, 1000, 0, 0}},
          {{0, 0, 1500, 0, 0}, {1, 1500, 500, 0, 0}, {2, 2000, 1000, 0, 0}, {3, 3000, 1000, 0, 0}});
  return s;
}

std::vector<TbCosts> costs() {
  auto tb = [](TechniqueCost f, TechniqueCost d) { return TbCosts{cost(900, 600), d, f}; };
  return {tb(cost(0, 0, false), cost(5000, 0)), tb(cost(0, 50), cost(400, 0)), tb(cost(0, 700), cost(800, 0)),
          tb(cost(0, 10), cost(3000, 0))};
}

}  // namespace

TEST(VictimSelection, CandidateSetsComeFromOverlaps) {
  DualKernelParams p;
  auto s = sm(p);
  EXPECT_EQ(s.candidate(0).to_ulong(), 0b0001u);
  EXPECT_EQ(s.candidate(1).to_ulong(), 0b0011u);
  EXPECT_EQ(s.candidate(2).to_ulong(), 0b0100u);
  EXPECT_EQ(s.candidate(3).to_ulong(), 0b1000u);
}

// Constraint 1000 cycles. Per TB: slot 0 switch (900, 600: drain too slow, no flush); slot 1
// drain (400, 0); slot 2 drain (800, 0); slot 3 flush (0, 10). Candidates: position 0 {0}:
// 600; position 1 {0, 1}: 600; position 2 {2}: 0; position 3 {3}: 10. Two positions: 2 first
// (overhead 0), then 3 (10).
TEST(VictimSelection, PicksTheLeastOverheadCandidatesMeetingTheConstraint) {
  DualKernelParams p;
  auto s = sm(p);
  const VictimChoice v = select_victims(s, costs(), 2, 1000);
  ASSERT_EQ(v.positions, (std::vector<uint32_t>{2, 3}));
  ASSERT_EQ(v.victims.size(), 2u);
  EXPECT_EQ(v.victims[0].slot, 2u);
  EXPECT_EQ(v.victims[0].technique, TbTechnique::drain);
  EXPECT_EQ(v.victims[1].slot, 3u);
  EXPECT_EQ(v.victims[1].technique, TbTechnique::flush);
  EXPECT_DOUBLE_EQ(v.latency, 800);
  EXPECT_DOUBLE_EQ(v.overhead, 10);
  // Clear-on-preempt: slots 2 and 3 are gone from every set; 0 and 1 remain.
  EXPECT_TRUE(s.candidate(2).none());
  EXPECT_TRUE(s.candidate(3).none());
  EXPECT_EQ(s.candidate(1).to_ulong(), 0b0011u);
}

// Three positions: after 2 and 3, positions 0 {0} and 1 {0, 1} both cost 600 (slot 1 drains
// for free); the first found (0) is taken and preempting slot 0 clears it from position 1's
// set, which the fourth pick then gets for slot 1's drain alone.
TEST(VictimSelection, APreemptedTbLeavesEveryCandidateSoSharedOnesGetCheaper) {
  DualKernelParams p;
  auto s = sm(p);
  const VictimChoice v = select_victims(s, costs(), 4, 1000);
  ASSERT_EQ(v.positions, (std::vector<uint32_t>{2, 3, 0, 1}));
  ASSERT_EQ(v.victims.size(), 4u);
  EXPECT_EQ(v.victims[2].slot, 0u);
  EXPECT_EQ(v.victims[2].technique, TbTechnique::switch_out);
  EXPECT_EQ(v.victims[3].slot, 1u);
  EXPECT_EQ(v.victims[3].technique, TbTechnique::drain);
  EXPECT_DOUBLE_EQ(v.overhead, 610);
  EXPECT_DOUBLE_EQ(v.latency, 900);
  EXPECT_EQ(s.free_position(), 0);  // every set is empty now
}

// Constraint 100 cycles: slots 1, 2 and 3 flush (latency 0; overheads 50, 700, 10), slot 0 can
// only be switched (900, the least latency; nothing meets). Positions 3 (10) and 2 (700) meet
// the constraint and come first; then no candidate meets it (0 and 1 both hold slot 0, 900
// cycles): the least-latency one is taken, position 0 (the first of the tie).
TEST(VictimSelection, WithoutACandidateMeetingTheConstraintTheFastestIsTaken) {
  DualKernelParams p;
  auto s = sm(p);
  const VictimChoice v = select_victims(s, costs(), 3, 100);
  ASSERT_EQ(v.positions, (std::vector<uint32_t>{3, 2, 0}));
  ASSERT_EQ(v.victims.size(), 3u);
  EXPECT_EQ(v.victims[1].technique, TbTechnique::flush);
  EXPECT_EQ(v.victims[2].slot, 0u);
  EXPECT_EQ(v.victims[2].technique, TbTechnique::switch_out);
  EXPECT_DOUBLE_EQ(v.overhead, 10 + 700 + 600);
  EXPECT_DOUBLE_EQ(v.latency, 900);
}

// The SM saves the switched victims one after another, so the n-th switch of the plan ends at
// n x 900 cycles. Every TB here can only be switched (no flush, drains of 3000); constraint 2000:
// position 0 {slot 0} first (900; position 1 {0, 1} would take 1800 for two TBs), then
// position 1, now {slot 1} (second switch: 1800, still meeting), then position 2 (third: 2700,
// nothing meets; the fastest, and the first of the tie with position 3).
TEST(VictimSelection, SwitchedVictimsQueueBehindEachOther) {
  DualKernelParams p;
  auto s = sm(p);
  const TbCosts only_switch{cost(900, 600), cost(3000, 0), cost(0, 0, false)};
  const VictimChoice v = select_victims(s, std::vector<TbCosts>(4, only_switch), 3, 2000);
  ASSERT_EQ(v.positions, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(v.victims.size(), 3u);
  for (const auto& x : v.victims) EXPECT_EQ(x.technique, TbTechnique::switch_out);
  EXPECT_EQ(v.switches, 3u);
  EXPECT_DOUBLE_EQ(v.latency, 2700);
  EXPECT_DOUBLE_EQ(v.overhead, 1800);
}
