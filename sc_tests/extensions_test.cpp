// Extension cores of SPEC 3 and 4 and the storage report.
#include <gtest/gtest.h>

#include "extensions/replay_queue.hpp"
#include "extensions/victim_sets.hpp"
#include "platform/extension_report.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;

TEST(ReplayQueue, ReplaysOneWarpInProgramOrderAndBoundsInFlight) {
  ReplayQueueParams p;
  p.entries = 3;
  ReplayQueue q(p);
  EXPECT_TRUE(q.issue({1, 0x100, 5}));
  EXPECT_TRUE(q.issue({2, 0x200, 1}));
  EXPECT_TRUE(q.issue({1, 0x0f0, 3}));
  EXPECT_FALSE(q.issue({3, 0x300, 1}));  // full: issue stalls
  EXPECT_TRUE(q.commit(2, 1));           // out-of-order commit
  EXPECT_FALSE(q.commit(2, 1));
  const auto order = q.replay_order(1);
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].seq, 3u);
  EXPECT_EQ(order[1].seq, 5u);
  EXPECT_THROW(q.issue({64, 0, 9}), SimError);  // warp id beyond its 6-bit field
}

TEST(OperandLog, EvenPartitionLoadsTakeOneEntryStoresTwo) {
  OperandLogParams p;  // 8 KB of 256 B entries: 32
  OperandLog log(p);
  EXPECT_EQ(p.entries(), 32u);
  log.partition(16);  // 16 resident TBs: 2 entries each, one store or two loads in flight
  EXPECT_EQ(log.share(), 2u);
  EXPECT_TRUE(log.allocate(3, true));
  EXPECT_FALSE(log.allocate(3, false));
  EXPECT_TRUE(log.allocate(4, false));
  EXPECT_TRUE(log.allocate(4, false));
  log.release(3, true);
  EXPECT_TRUE(log.allocate(3, false));
  EXPECT_THROW(log.release(5, false), SimError);
  // Worst case per warp instruction: address + data, 8 B each for 32 threads = 512 B.
  EXPECT_EQ(2 * p.entry_bytes(), 512u);
}

TEST(CandidateVictimSets, OverlapsAndClearOnPreempt) {
  DualKernelParams p;
  p.positions = 3;
  p.tb_slots = 4;
  CandidateVictimSets cvs(p);
  // Positions: registers [0,100), [100,200); shared memory [0,50).
  const std::vector<AllocationPosition> pos = {{0, 100, 0, 0}, {100, 100, 0, 0}, {300, 10, 0, 50}};
  // Slot 0 holds registers [50,150): both first positions; slot 2 holds shared [40,60).
  cvs.build(pos, {{0, 50, 100, 0, 0}, {2, 400, 10, 40, 20}});
  EXPECT_EQ(cvs.candidate(0).to_ulong(), 0b0001u);
  EXPECT_EQ(cvs.candidate(1).to_ulong(), 0b0001u);
  EXPECT_EQ(cvs.candidate(2).to_ulong(), 0b0100u);
  EXPECT_EQ(cvs.free_position(), -1);
  cvs.clear_tb(0);  // preempting slot 0 frees positions 0 and 1 at once
  EXPECT_TRUE(cvs.candidate(0).none());
  EXPECT_TRUE(cvs.candidate(1).none());
  EXPECT_EQ(cvs.free_position(), 0);
  EXPECT_EQ(cvs.candidate(2).count(), 1u);
}

TEST(ExtensionReport, SpecTwoTablesOnK20cMatchThePublishedBudget) {
  const auto r = extension_report(load_platform(source_path("platforms/k20c.yaml")));
  double framework = 0, ptbq = 0;
  for (const auto& x : r["extensions"]) {
    for (const char* key : {"name", "scope", "entries", "bits_per_entry", "fields", "bytes_per_sm", "bytes_total", "latency_cycles"})
      EXPECT_TRUE(x.contains(key)) << key;
    const std::string n = x["name"];
    if (n == "command_buffers" || n == "active_queue" || n == "ksrt" || n == "smst") framework += x["bytes_total"].get<double>();
    if (n == "ptbq") ptbq = x["bytes_total"].get<double>();
  }
  EXPECT_LT(framework, 512.0);                  // published: under 0.5 KB
  EXPECT_DOUBLE_EQ(ptbq, 13.0 * 13 * 16 * 8);  // 13 queues x 208 entries x 64 bits: about 21 KB
}

#include "extensions/dual_kernel_tables.hpp"

TEST(DualKernelTables, PositionsFeedVictimSetsAndStatusTracksTheTbs) {
  DualKernelParams p;
  p.positions = 8;
  p.tb_slots = 8;
  // 32768 registers, 48 KB shared memory; the preempting TB: 4096 registers, 2048 B (SPEC 4's
  // synthetic high-priority kernel): 8 positions fit (registers allow 8, shared memory 24).
  const auto pos = allocation_positions(p, 32768, 49152, 4096, 2048);
  ASSERT_EQ(pos.size(), 8u);
  EXPECT_EQ(pos[3].reg_offset, 3u * 4096);
  EXPECT_EQ(pos[3].shm_offset, 3u * 2048);
  EXPECT_EQ(allocation_positions(p, 32768, 49152, 9216, 3072).size(), 3u);  // hotspot-sized: 3
  p.offset_bits = 12;
  EXPECT_THROW(allocation_positions(p, 32768, 49152, 4096, 2048), SimError);  // 28672 needs 15 bits
  p.offset_bits = 16;

  RunningTbStatus st(p);
  st.start(2, 1000, true);
  st.executed(2, 500);
  EXPECT_TRUE(st.at(2).flush);
  st.lost_idempotence(2);  // an atomic: flushing is no longer legal
  EXPECT_FALSE(st.at(2).flush);
  EXPECT_EQ(st.at(2).executed_instructions, 500u);
  EXPECT_THROW(st.start(2, uint64_t{1} << 33, true), SimError);

  PreemptingAllocationStatus as(p);
  as.set_kernel(12345, 7);
  as.allocate(4, 6);
  EXPECT_TRUE(as.allocated(4));
  EXPECT_EQ(as.tb_slot(4), 6u);
  EXPECT_THROW(as.allocate(4, 1), SimError);
  as.release(4);
  EXPECT_FALSE(as.allocated(4));
  EXPECT_THROW(as.set_kernel(1 << 15, 0), SimError);  // pid is 15 bits
}
