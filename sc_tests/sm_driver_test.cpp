// The SM driver and its policies on a fake GPU: exact TB placements, preemptions and tokens.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "block_scheduler/sm_driver.hpp"

using namespace mpgpu;

namespace {

// SMs that hold `cap` TBs of the kernel on them; records every action of the driver.
struct FakeGpu : DriverPort {
  struct Placed {
    uint32_t sm, launch;
    uint64_t tb;
    bool restored;
  };
  std::map<uint32_t, uint32_t> cap;  // launch -> TBs per SM
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> resident;
  std::vector<Placed> placed;
  std::vector<uint32_t> saves, flushes, preempt_requests, preempt_done;
  explicit FakeGpu(uint32_t sms) : resident(sms) {}
  bool dispatch(uint32_t sm, uint32_t launch, uint64_t tb, const PtbqEntry* restore) override {
    if (resident[sm].size() >= cap.at(launch)) return false;
    resident[sm].push_back({launch, tb});
    placed.push_back({sm, launch, tb, restore != nullptr});
    return true;
  }
  void save_context(uint32_t sm) override { saves.push_back(sm); }
  void flush(uint32_t sm) override { flushes.push_back(sm); }
  void preemption_requested(uint32_t sm, Mechanism) override { preempt_requests.push_back(sm); }
  void preemption_completed(uint32_t sm) override { preempt_done.push_back(sm); }
  // Finish the oldest resident TB of an SM.
  std::pair<uint32_t, uint64_t> finish_one(uint32_t sm) {
    auto t = resident[sm].front();
    resident[sm].erase(resident[sm].begin());
    return t;
  }
  // The SM saved everything it held.
  std::vector<SavedTb> save_all(uint32_t sm) {
    std::vector<SavedTb> out;
    for (auto [l, tb] : resident[sm]) out.push_back({l, {tb, tb * 1024, 500}});
    resident[sm].clear();
    return out;
  }
};

ExtensionParams params(uint32_t sms) {
  ExtensionParams p;
  p.num_sms = sms;
  p.max_tbs_per_sm = 4;
  return p;
}

DriverKernel kernel(uint32_t id, uint64_t grid, uint32_t per_sm, uint32_t prio = 0, uint32_t ctx = 0) {
  DriverKernel k;
  k.launch_id = id;
  k.grid = grid;
  k.tbs_per_sm = per_sm;
  k.priority = prio;
  k.context = ctx;
  k.process = ctx;
  k.threads = 128;
  k.registers = 1024;
  return k;
}

}  // namespace

TEST(SmDriver, IssuesToIdleSmsAndRetiresKernel) {
  FakeGpu g(2);
  g.cap[0] = 2;
  SmDriver d(params(2), Mechanism::draining, make_policy("npq"));
  d.launch(kernel(0, 5, 2));
  d.step(g);
  ASSERT_EQ(g.placed.size(), 4u);  // two SMs x two TBs
  EXPECT_EQ(d.smst().at(0).running_tbs, 2u);
  bool done = false;
  for (int i = 0; i < 5; ++i) {
    const uint32_t sm = g.resident[0].empty() ? 1 : 0;
    auto [l, tb] = g.finish_one(sm);
    done = d.tb_finished(sm, l);
    d.step(g);
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(g.placed.size(), 5u);
  EXPECT_EQ(d.smst().find_idle(), 0);
  EXPECT_EQ(d.ksrt().occupied(), 0u);
}

TEST(SmDriver, NpqNeverPreempts) {
  FakeGpu g(2);
  g.cap = {{0, 1}, {1, 1}};
  SmDriver d(params(2), Mechanism::context_switch, make_policy("npq"));
  d.launch(kernel(0, 10, 1, 0, 0));
  d.step(g);
  d.launch(kernel(1, 2, 1, 5, 1));  // high priority arrives with every SM busy
  d.step(g);
  EXPECT_TRUE(g.preempt_requests.empty());
  EXPECT_TRUE(g.saves.empty());
  // Low priority keeps issuing on its SMs: NPQ does not take SMs back while their kernel has TBs.
  auto [l, tb] = g.finish_one(0);
  d.tb_finished(0, l);
  d.step(g);
  EXPECT_EQ(g.placed.back().launch, 0u);
  EXPECT_EQ(d.stats().preemptions, 0u);
}

TEST(SmDriver, DrainingHandsReservedSmOverWhenItsTbsFinish) {
  FakeGpu g(2);  // the KSRT has N_SM = 2 entries: room for both kernels
  g.cap = {{0, 2}, {1, 2}};
  SmDriver d(params(2), Mechanism::draining, make_policy("ppq_exclusive"));
  d.launch(kernel(0, 10, 2, 0, 0));
  d.step(g);  // 2 TBs on each SM
  d.launch(kernel(1, 2, 2, 1, 1));  // one SM's worth
  d.step(g);
  ASSERT_EQ(g.preempt_requests, std::vector<uint32_t>{1});  // highest index among equals
  EXPECT_TRUE(g.saves.empty());                             // draining saves nothing
  EXPECT_EQ(d.smst().at(1).state, SmState::reserved);
  auto t = g.finish_one(1);
  d.tb_finished(1, t.first);
  d.step(g);
  EXPECT_EQ(g.placed.size(), 4u) << "a reserved SM gets no new TB of the old kernel";
  t = g.finish_one(1);
  d.tb_finished(1, t.first);
  d.step(g);
  EXPECT_EQ(g.preempt_done, std::vector<uint32_t>{1});
  ASSERT_EQ(g.placed.size(), 6u);
  EXPECT_EQ(g.placed[4].launch, 1u);
  EXPECT_EQ(g.placed[5].launch, 1u);
  EXPECT_EQ(g.placed[5].sm, 1u);
  EXPECT_EQ(d.smst().at(1).state, SmState::running);
}

TEST(SmDriver, ContextSwitchSavesAndPreemptedTbsAreIssuedFirst) {
  FakeGpu g(2);
  g.cap = {{0, 2}, {1, 2}};
  SmDriver d(params(2), Mechanism::context_switch, make_policy("ppq_exclusive"));
  d.launch(kernel(0, 8, 2, 0, 0));
  d.step(g);  // TBs 0, 1 on SM 0 and 2, 3 on SM 1
  d.launch(kernel(1, 2, 2, 1, 1));
  d.step(g);
  ASSERT_EQ(g.saves, std::vector<uint32_t>{1});
  d.preempted(1, g.save_all(1));
  d.step(g);
  EXPECT_EQ(d.stats().tbs_saved, 2u);
  ASSERT_EQ(g.placed.size(), 6u);
  EXPECT_EQ(g.placed[4].launch, 1u);
  EXPECT_EQ(g.placed[4].sm, 1u);
  // The high-priority kernel finishes; SM 1 goes back to launch 0 and restores TBs 2 and 3 first.
  for (int i = 0; i < 2; ++i) {
    auto t = g.finish_one(1);
    d.tb_finished(1, t.first);
  }
  d.step(g);
  ASSERT_EQ(g.placed.size(), 8u);
  EXPECT_TRUE(g.placed[6].restored);
  EXPECT_EQ(g.placed[6].tb, 2u);
  EXPECT_TRUE(g.placed[7].restored);
  EXPECT_EQ(g.placed[7].tb, 3u);
  auto t = g.finish_one(1);
  d.tb_finished(1, t.first);
  d.step(g);
  EXPECT_FALSE(g.placed.back().restored);
  EXPECT_EQ(g.placed.back().tb, 4u);  // then the next never-issued TB
}

TEST(SmDriver, PpqExclusiveNeverSchedulesLowPriorityWhileHighIsActive) {
  FakeGpu g(3);
  g.cap = {{0, 2}, {1, 2}, {2, 2}};
  SmDriver d(params(3), Mechanism::draining, make_policy("ppq_exclusive"));
  d.launch(kernel(0, 40, 2, 0, 0));
  d.step(g);
  d.launch(kernel(1, 2, 2, 3, 1));  // needs one SM only
  d.step(g);
  const size_t mark = g.placed.size();
  // Run until the high-priority kernel is done; no low-priority TB may be placed meanwhile.
  bool high_done = false;
  for (int i = 0; i < 40 && !high_done; ++i) {
    for (uint32_t sm = 0; sm < 3 && !high_done; ++sm) {
      if (g.resident[sm].empty()) continue;
      auto [l, tb] = g.finish_one(sm);
      high_done = d.tb_finished(sm, l) && l == 1;
      d.step(g);
      for (size_t p = mark; p < g.placed.size(); ++p)
        if (!high_done) {
          EXPECT_EQ(g.placed[p].launch, 1u) << "low priority placed at step " << p;
        }
    }
  }
  EXPECT_TRUE(high_done);
  d.step(g);
  EXPECT_EQ(g.placed.back().launch, 0u);  // low priority resumes afterwards
}

TEST(SmDriver, PpqSharedGivesFreeSmsToLowPriority) {
  FakeGpu g(3);
  g.cap = {{0, 2}, {1, 2}};
  SmDriver d(params(3), Mechanism::draining, make_policy("ppq_shared"));
  d.launch(kernel(1, 2, 2, 3, 1));  // high priority: one SM's worth
  d.launch(kernel(0, 40, 2, 0, 0));
  d.step(g);
  std::set<uint32_t> sms_of_low;
  for (const auto& p : g.placed)
    if (p.launch == 0) sms_of_low.insert(p.sm);
  EXPECT_EQ(sms_of_low.size(), 2u);
}

TEST(SmDriver, DssEqualSharingTokenArithmetic) {
  const uint32_t n = 13;
  FakeGpu g(n);
  g.cap = {{0, 1}, {1, 1}, {2, 1}};
  SmDriver d(params(n), Mechanism::context_switch, make_policy("dss"));
  d.launch(kernel(0, 1000, 1, 0, 0));
  d.step(g);
  EXPECT_EQ(d.owned_sms(0), 13u);  // alone: takes every idle SM (budget 13)
  EXPECT_EQ(d.ksrt().at(0).tokens, 0);
  d.launch(kernel(1, 1000, 1, 0, 1));
  d.step(g);
  // Budgets 7 and 6 (remainder to the first arrival): 6 SMs move from kernel 0 to kernel 1.
  EXPECT_EQ(d.stats().preemptions, 6u);
  EXPECT_EQ(d.owned_sms(0), 7u);
  EXPECT_EQ(d.owned_sms(1), 6u);
  EXPECT_EQ(d.ksrt().at(0).tokens, 0);
  EXPECT_EQ(d.ksrt().at(1).tokens, 0);
  for (uint32_t sm : g.saves) d.preempted(sm, g.save_all(sm));  // the saves complete
  g.saves.clear();
  d.step(g);
  EXPECT_EQ(d.smst().find_idle(), -1);
  d.launch(kernel(2, 1000, 1, 0, 2));
  d.step(g);
  // Budgets 5, 4, 4: kernel 0 gives 2, kernel 1 gives 2.
  EXPECT_EQ(d.owned_sms(0), 5u);
  EXPECT_EQ(d.owned_sms(1), 4u);
  EXPECT_EQ(d.owned_sms(2), 4u);
  EXPECT_EQ(d.stats().preemptions, 10u);
}

TEST(SmDriver, DssTerminatesWithinBoundAndLeavesGapAtMostOne) {
  for (uint32_t n : {2u, 5u, 13u, 30u}) {
    for (uint32_t kernels = 2; kernels <= 6; ++kernels) {
      FakeGpu g(n);
      SmDriver d(params(n), Mechanism::context_switch, make_policy("dss"));
      for (uint32_t k = 0; k < kernels; ++k) g.cap[k] = 1;
      d.launch(kernel(0, 100000, 1, 0, 0));
      d.step(g);
      const uint64_t before = d.stats().preemptions;
      for (uint32_t k = 1; k < kernels; ++k) d.launch(kernel(k, 100000, 1, 0, k));
      d.step(g);
      EXPECT_LE(d.stats().preemptions - before, n) << n << " SMs, " << kernels << " kernels";
      int32_t lo = 1 << 30, hi = -(1 << 30);
      for (uint32_t k : d.active().order()) {
        lo = std::min(lo, d.ksrt().at(k).tokens);
        hi = std::max(hi, d.ksrt().at(k).tokens);
      }
      EXPECT_LE(hi - lo, 1) << n << " SMs, " << kernels << " kernels";
    }
  }
}

TEST(SmDriver, ActiveQueueFullMakesLaunchesWait) {
  FakeGpu g(2);
  SmDriver d(params(2), Mechanism::draining, make_policy("npq"));
  for (uint32_t k = 0; k < 3; ++k) {
    g.cap[k] = 1;
    d.launch(kernel(k, 1, 1, 0, k));
  }
  d.step(g);
  EXPECT_EQ(d.ksrt().occupied(), 2u);  // N_SM entries
  EXPECT_EQ(d.waiting_launches(), 1u);
  auto [l, tb] = g.finish_one(0);
  EXPECT_TRUE(d.tb_finished(0, l));
  d.step(g);
  EXPECT_EQ(d.waiting_launches(), 0u);
  EXPECT_EQ(g.placed.back().launch, 2u);
}

// The SMST's count of SMs reserved for each kernel equals a scan of its entries under random
// reservations, re-targets, completions and releases.
TEST(Extensions, SmstReservedCountsMatchAScanOfTheEntries) {
  const ExtensionParams p = params(13);
  Smst t(p);
  std::mt19937 rng(9);
  for (int step = 0; step < 5000; ++step) {
    const uint32_t sm = rng() % 13, k = rng() % 13;
    const SmstEntry& e = t.at(sm);
    switch (rng() % 3) {
      case 0:
        if (e.state != SmState::running || e.running_tbs == 0) t.set_running(sm, k);
        break;
      case 1:
        if (e.state != SmState::idle) t.reserve(sm, k);
        break;
      default:
        if (e.running_tbs == 0) t.set_idle(sm);
    }
    for (uint32_t q = 0; q < 13; ++q) {
      uint32_t n = 0;
      for (uint32_t i = 0; i < 13; ++i) n += t.at(i).state == SmState::reserved && t.at(i).next == q;
      ASSERT_EQ(t.reserved_for(q), n) << "step " << step << " kernel " << q;
    }
  }
}

TEST(Extensions, FieldWidthsComeFromThePlatform) {
  ExtensionParams p = params(13);
  p.max_tbs_per_sm = 16;
  const FieldLayout smst = Smst::layout(p);
  EXPECT_EQ(field_bits(smst, "running"), 4u);      // 13 KSRT entries
  EXPECT_EQ(field_bits(smst, "running_tbs"), 5u);  // 0..16
  EXPECT_EQ(total_bits(smst), 4u + 2 + 5 + 4);
  Smst t(p);
  EXPECT_THROW(t.set_running(0, 16), SimError);  // does not fit 4 bits
  Ptbq q(p);
  EXPECT_EQ(q.capacity(), 13u * 16);
  EXPECT_EQ(total_bits(Ptbq::layout(p)), 64u);
}
