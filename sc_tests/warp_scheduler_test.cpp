// Warp-scheduler functional cores of SPEC 7 (GTO, LRR, QAWS): known-answer orders over scripted
// issued() outcomes. Plain C++, no SystemC.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "sm/warp_scheduler.hpp"

using namespace mpgpu;

namespace {
using V = std::vector<uint32_t>;
constexpr std::optional<uint32_t> kStall = std::nullopt;

// One cycle driven by readiness: issue the first ready warp of the order (nullopt when none is).
std::optional<uint32_t> step_ready(WarpScheduler& s, const std::set<uint32_t>& ready) {
  for (uint32_t w : s.order())
    if (ready.count(w)) {
      s.issued(w);
      return w;
    }
  s.issued(kStall);
  return kStall;
}

// Deterministic pseudo-random readiness (LCG; no implementation-defined distributions).
struct Lcg {
  uint64_t x;
  uint32_t next() {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(x >> 33);
  }
};

// Kernel 1: warps 0..3 (launched first: ages 0..3); kernel 2: warps 4..7 (ages 10..13).
void add_two_kernels(WarpScheduler& s) {
  for (uint32_t w = 0; w < 4; ++w) s.add_warp(w, w, 1);
  for (uint32_t w = 4; w < 8; ++w) s.add_warp(w, 6 + w, 2);
}

bool k2_first(WarpScheduler& s) { return s.order().front() >= 4; }
}  // namespace

// ------------------------------------------------------------------------------------------- GTO

TEST(WarpSchedulerGto, GreedyWarpStaysFirstThenOldest) {
  GtoScheduler s;
  s.add_warp(3, 30, 0);
  s.add_warp(0, 0, 0);
  s.add_warp(2, 20, 0);
  s.add_warp(1, 10, 0);
  EXPECT_EQ(s.order(), (V{0, 1, 2, 3}));  // no greedy warp yet: age order
  s.issued(0u);
  EXPECT_EQ(s.order(), (V{0, 1, 2, 3}));
  s.issued(2u);  // 0 and 1 stalled
  EXPECT_EQ(s.order(), (V{2, 0, 1, 3}));
  s.issued(2u);
  EXPECT_EQ(s.order(), (V{2, 0, 1, 3}));
  s.issued(kStall);  // nobody issued: the greedy warp is kept
  EXPECT_EQ(s.order(), (V{2, 0, 1, 3}));
  s.issued(1u);
  EXPECT_EQ(s.order(), (V{1, 0, 2, 3}));
  s.issued(0u);
  EXPECT_EQ(s.order(), (V{0, 1, 2, 3}));
  EXPECT_EQ(s.greedy(), 0u);
}

TEST(WarpSchedulerGto, ReadinessDrivenFallsBackToOldestReady) {
  GtoScheduler s;
  for (uint32_t w = 0; w < 5; ++w) s.add_warp(w, 100 + w, 0);
  EXPECT_EQ(step_ready(s, {2, 3}), 2u);  // oldest ready
  EXPECT_EQ(s.order(), (V{2, 0, 1, 3, 4}));
  EXPECT_EQ(step_ready(s, {0, 1, 2, 3}), 2u);  // greedy keeps issuing while ready, even if older ones are
  EXPECT_EQ(step_ready(s, {1, 3, 4}), 1u);     // greedy stalls: oldest ready becomes greedy
  EXPECT_EQ(s.order(), (V{1, 0, 2, 3, 4}));
  EXPECT_EQ(step_ready(s, {}), kStall);
  EXPECT_EQ(s.order(), (V{1, 0, 2, 3, 4}));
  EXPECT_EQ(step_ready(s, {4}), 4u);
  EXPECT_EQ(s.order(), (V{4, 0, 1, 2, 3}));
}

TEST(WarpSchedulerGto, EqualAgesBrokenByWarpId) {
  GtoScheduler s;
  s.add_warp(7, 5, 0);
  s.add_warp(2, 5, 0);
  s.add_warp(4, 1, 0);
  EXPECT_EQ(s.order(), (V{4, 2, 7}));
}

TEST(WarpSchedulerGto, RemoveGreedyWarpFallsBackToAgeOrder) {
  GtoScheduler s;
  for (uint32_t w = 0; w < 4; ++w) s.add_warp(w, w, 0);
  s.issued(2u);
  EXPECT_EQ(s.order(), (V{2, 0, 1, 3}));
  s.remove_warp(2);
  EXPECT_EQ(s.order(), (V{0, 1, 3}));
  EXPECT_FALSE(s.greedy().has_value());
  s.issued(2u);  // the warp exited before issued() was reported: ignored
  EXPECT_EQ(s.order(), (V{0, 1, 3}));
  s.add_warp(2, 10, 0);  // slot reused by a new, younger warp
  EXPECT_EQ(s.order(), (V{0, 1, 3, 2}));
  s.remove_warp(1);  // removing a non-greedy warp
  s.issued(3u);
  EXPECT_EQ(s.order(), (V{3, 0, 2}));
  EXPECT_EQ(s.size(), 3u);
}

// ------------------------------------------------------------------------------------------- LRR

TEST(WarpSchedulerLrr, RotatesAfterLastIssued) {
  LrrScheduler s;
  for (uint32_t w : {2u, 0u, 3u, 1u}) s.add_warp(w, 100 - w, 0);  // ages do not matter
  EXPECT_EQ(s.order(), (V{0, 1, 2, 3}));
  s.issued(0u);
  EXPECT_EQ(s.order(), (V{1, 2, 3, 0}));
  s.issued(1u);
  EXPECT_EQ(s.order(), (V{2, 3, 0, 1}));
  s.issued(3u);  // 2 stalled
  EXPECT_EQ(s.order(), (V{0, 1, 2, 3}));
  s.issued(kStall);  // pointer kept
  EXPECT_EQ(s.order(), (V{0, 1, 2, 3}));
  s.issued(2u);
  EXPECT_EQ(s.order(), (V{3, 0, 1, 2}));
  s.remove_warp(3);
  EXPECT_EQ(s.order(), (V{0, 1, 2}));  // after 2 comes (wrapping) 0
  s.issued(1u);
  s.remove_warp(1);  // the last issued warp exits: the search still starts after it
  EXPECT_EQ(s.order(), (V{2, 0}));
  s.add_warp(5, 0, 0);
  EXPECT_EQ(s.order(), (V{2, 5, 0}));
}

TEST(WarpSchedulerLrr, ReadinessDrivenRoundRobin) {
  LrrScheduler s;
  for (uint32_t w = 0; w < 4; ++w) s.add_warp(w, w, 0);
  std::set<uint32_t> all{0, 1, 2, 3};
  V issued;
  for (int c = 0; c < 6; ++c) issued.push_back(*step_ready(s, all));
  EXPECT_EQ(issued, (V{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(step_ready(s, {1, 3}), 3u);  // after 1: 2 stalled, 3 ready
  EXPECT_EQ(step_ready(s, {1, 3}), 1u);
}

// ------------------------------------------------------------------------------------------ QAWS

TEST(WarpSchedulerQaws, EqualBudgetsAreGtoOverScriptedOutcomes) {
  // Two kernels with the same budget, interleaved ages; a third kernel absent from the map
  // together with an explicit budget-1 kernel: both equal-budget situations must be GTO.
  for (const std::map<uint32_t, uint32_t>& budgets :
       {std::map<uint32_t, uint32_t>{{7, 3}, {9, 3}}, std::map<uint32_t, uint32_t>{{7, 1}}}) {
    auto q = make_warp_scheduler("qaws", budgets);
    auto g = make_warp_scheduler("gto");
    const uint32_t kernel_of[6] = {9, 7, 9, 7, 7, 9};
    const uint64_t age_of[6] = {4, 0, 2, 5, 1, 3};
    for (uint32_t w = 0; w < 6; ++w) {
      q->add_warp(w, age_of[w], kernel_of[w]);
      g->add_warp(w, age_of[w], kernel_of[w]);
    }
    EXPECT_EQ(q->order(), (V{1, 4, 2, 5, 0, 3}));
    const std::vector<std::optional<uint32_t>> script{1u, 1u, 4u, 2u, kStall, 2u, 0u, 3u, 3u, kStall, 1u, 5u, 4u};
    for (auto out : script) {
      ASSERT_EQ(q->order(), g->order());
      q->issued(out);
      g->issued(out);
    }
    EXPECT_EQ(q->order(), (V{4, 1, 2, 5, 0, 3}));
    EXPECT_EQ(q->order(), g->order());
    // And over a long readiness-driven run, with warps exiting and arriving.
    Lcg rng{42};
    for (int c = 0; c < 5000; ++c) {
      std::set<uint32_t> ready;
      for (uint32_t w = 0; w < 8; ++w)
        if (rng.next() % 3 == 0) ready.insert(w);
      ASSERT_EQ(q->order(), g->order()) << "cycle " << c;
      auto a = step_ready(*q, ready);
      auto b = step_ready(*g, ready);
      ASSERT_EQ(a, b);
      if (c % 500 == 250) {
        const uint32_t w = static_cast<uint32_t>(c / 500) % 6;
        q->remove_warp(w);
        g->remove_warp(w);
        q->add_warp(w, 1000 + c, kernel_of[w]);
        g->add_warp(w, 1000 + c, kernel_of[w]);
      }
    }
  }
}

// SPEC 7 priority inversion: K1 (low QoS) launched first so its warps are older; K2 (high QoS).
TEST(WarpSchedulerQaws, Spec7PriorityInversion) {
  auto gto = make_warp_scheduler("gto");
  add_two_kernels(*gto);
  EXPECT_EQ(gto->order(), (V{0, 1, 2, 3, 4, 5, 6, 7}));  // GTO: K1 (older) first
  std::set<uint32_t> all{0, 1, 2, 3, 4, 5, 6, 7};
  for (int c = 0; c < 20; ++c) EXPECT_EQ(step_ready(*gto, all), 0u);  // K2 starves while K1 is ready

  QawsScheduler q({{1, 1}, {2, 4}});
  add_two_kernels(q);
  auto ncs = [&](size_t g) { return q.groups().at(g).ncs; };
  auto expect = [&](const V& order, std::optional<uint32_t> out) {
    EXPECT_EQ(q.order(), order);
    q.issued(out);
  };
  // K2's group (budget 4) first.
  expect({4, 5, 6, 7, 0, 1, 2, 3}, 4u);    // head issued: no count
  expect({4, 5, 6, 7, 0, 1, 2, 3}, 5u);    // switch 1
  EXPECT_EQ(ncs(0), 1u);
  expect({5, 4, 6, 7, 0, 1, 2, 3}, 4u);    // switch 2
  expect({4, 5, 6, 7, 0, 1, 2, 3}, kStall);  // all stalled: no count
  expect({4, 5, 6, 7, 0, 1, 2, 3}, 1u);    // all of K2 stalled, K1 warp issued: no count
  EXPECT_EQ(ncs(0), 2u);
  expect({4, 5, 6, 7, 1, 0, 2, 3}, 6u);    // switch 3 (K1's greedy warp is now 1)
  expect({6, 4, 5, 7, 1, 0, 2, 3}, 6u);    // head issued
  EXPECT_EQ(ncs(0), 3u);
  expect({6, 4, 5, 7, 1, 0, 2, 3}, 7u);    // switch 4 == budget: K1's group gets priority
  EXPECT_EQ(q.groups().at(0).key, 1u);
  EXPECT_EQ(ncs(0), 0u);
  EXPECT_EQ(ncs(1), 0u);
  expect({1, 0, 2, 3, 7, 4, 5, 6}, 1u);    // head issued
  expect({1, 0, 2, 3, 7, 4, 5, 6}, 5u);    // all of K1 stalled, K2 warp issued: no count
  expect({1, 0, 2, 3, 5, 4, 6, 7}, 2u);    // K1 switch 1 == budget 1: back to K2
  expect({5, 4, 6, 7, 2, 0, 1, 3}, 5u);
  expect({5, 4, 6, 7, 2, 0, 1, 3}, 4u);    // K2 switch 1
  expect({4, 5, 6, 7, 2, 0, 1, 3}, 5u);    // 2
  expect({5, 4, 6, 7, 2, 0, 1, 3}, 6u);    // 3
  expect({6, 4, 5, 7, 2, 0, 1, 3}, 4u);    // 4: K1 again
  expect({2, 0, 1, 3, 4, 5, 6, 7}, 0u);    // K1 switch 1: K2 again
  expect({4, 5, 6, 7, 0, 1, 2, 3}, kStall);
}

// Every cycle is a counted switch (the head stalls, the next warp of g0 issues): K2's group is
// first in exactly budget/(budget+1) of the cycles; with budget 1 both kernels share one group.
TEST(WarpSchedulerQaws, BudgetSetsShareOfPriority) {
  auto share_switching = [](uint32_t b2) {
    QawsScheduler q({{1, 1}, {2, b2}});
    add_two_kernels(q);
    int first = 0;
    const int cycles = 10 * static_cast<int>(b2 + 1);
    for (int c = 0; c < cycles; ++c) {
      const V& o = q.order();
      first += o.front() >= 4;
      q.issued(o[1]);
    }
    return first;
  };
  EXPECT_EQ(share_switching(1), 0);  // one group: GTO over ages, K1's warps lead
  EXPECT_EQ(share_switching(4), 40);   // 40 of 50 cycles
  EXPECT_EQ(share_switching(6), 60);   // 60 of 70

  // Long readiness-driven run: each warp ready with probability 1/2 each cycle.
  auto share_random = [](uint32_t b2) {
    QawsScheduler q({{1, 1}, {2, b2}});
    add_two_kernels(q);
    Lcg rng{7};
    int first = 0;
    const int cycles = 20000;
    for (int c = 0; c < cycles; ++c) {
      std::set<uint32_t> ready;
      for (uint32_t w = 0; w < 8; ++w)
        if (rng.next() & 1) ready.insert(w);
      first += k2_first(q);
      step_ready(q, ready);
    }
    return static_cast<double>(first) / cycles;
  };
  const double f1 = share_random(1), f4 = share_random(4), f6 = share_random(6);
  EXPECT_LT(f1, 0.2);
  EXPECT_GT(f4, 0.7);
  EXPECT_LT(f4, 0.9);
  EXPECT_GT(f6, f4);
  EXPECT_LT(f6, 0.95);
}

TEST(WarpSchedulerQaws, AllOfFirstGroupStalledKeepsItWithoutCounting) {
  QawsScheduler q({{1, 1}, {2, 2}});
  add_two_kernels(q);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(q.order(), (V{4, 5, 6, 7, 0, 1, 2, 3}));
    q.issued(kStall);
  }
  for (uint32_t w : {0u, 3u, 3u, 1u}) {  // g0 (K2) all stalled, K1 warps issue
    EXPECT_EQ(q.order().front(), 4u);
    q.issued(w);
  }
  EXPECT_EQ(q.order(), (V{4, 5, 6, 7, 1, 0, 2, 3}));
  EXPECT_EQ(q.groups().at(0).ncs, 0u);
  q.issued(7u);  // counted switch 1 of 2
  EXPECT_EQ(q.order(), (V{7, 4, 5, 6, 1, 0, 2, 3}));
  q.issued(kStall);
  EXPECT_EQ(q.order().front(), 7u);
  q.issued(2u);
  EXPECT_EQ(q.order(), (V{7, 4, 5, 6, 2, 0, 1, 3}));
  EXPECT_EQ(q.groups().at(0).ncs, 1u);
  q.issued(5u);  // counted switch 2: rotation
  EXPECT_EQ(q.order(), (V{2, 0, 1, 3, 5, 4, 6, 7}));
}

TEST(WarpSchedulerQaws, ThreeKernelsRotateThroughAllGroups) {
  QawsScheduler q({{1, 1}, {2, 2}, {3, 3}});
  for (uint32_t w = 0; w < 6; ++w) q.add_warp(w, w, 1 + w / 2);  // K1: 0,1  K2: 2,3  K3: 4,5
  auto sw = [&](const V& order) {  // the head stalls, the other warp of g0 issues
    EXPECT_EQ(q.order(), order);
    q.issued(order[1]);
  };
  sw({4, 5, 2, 3, 0, 1});  // K3 1/3
  sw({5, 4, 2, 3, 0, 1});  // K3 2/3
  sw({4, 5, 2, 3, 0, 1});  // K3 3/3: K3 to the back
  sw({2, 3, 0, 1, 5, 4});  // K2 1/2
  sw({3, 2, 0, 1, 5, 4});  // K2 2/2
  sw({0, 1, 5, 4, 2, 3});  // K1 1/1
  sw({5, 4, 2, 3, 1, 0});  // K3 first again
  std::vector<uint32_t> keys;
  for (const auto& g : q.groups()) keys.push_back(g.key);
  EXPECT_EQ(keys, (V{3, 2, 1}));
  EXPECT_EQ(q.groups().at(0).ncs, 1u);
}

TEST(WarpSchedulerQaws, RemoveGreedyWarpAndGroupsComingAndGoing) {
  QawsScheduler q({{1, 1}, {2, 4}});
  q.add_warp(0, 0, 1);
  q.add_warp(1, 1, 1);
  q.add_warp(4, 10, 2);
  q.add_warp(5, 11, 2);
  q.add_warp(6, 12, 2);
  EXPECT_EQ(q.order(), (V{4, 5, 6, 0, 1}));
  q.issued(5u);  // counted switch 1
  EXPECT_EQ(q.order(), (V{5, 4, 6, 0, 1}));
  q.remove_warp(5);  // the greedy warp exits: its group falls back to age order
  EXPECT_EQ(q.order(), (V{4, 6, 0, 1}));
  q.issued(4u);  // the new head issued: no count
  EXPECT_EQ(q.groups().at(0).ncs, 1u);
  q.issued(5u);  // a warp that already exited: ignored
  EXPECT_EQ(q.order(), (V{4, 6, 0, 1}));
  q.remove_warp(4);
  q.remove_warp(6);  // K2's group is gone: K1 alone, plain GTO
  EXPECT_EQ(q.order(), (V{0, 1}));
  q.issued(1u);
  EXPECT_EQ(q.order(), (V{1, 0}));
  EXPECT_EQ(q.groups().at(0).ncs, 0u);  // one group: no counting
  q.add_warp(7, 20, 2);  // K2 returns: placed behind the group already running
  q.add_warp(5, 21, 2);
  EXPECT_EQ(q.order(), (V{1, 0, 7, 5}));
  q.issued(0u);  // K1 switch 1 == budget 1: K2 first
  EXPECT_EQ(q.order(), (V{7, 5, 0, 1}));
  EXPECT_EQ(q.size(), 4u);
}

TEST(WarpSchedulerQaws, GroupsAddedBeforeFirstOrderAreSortedByBudget) {
  QawsScheduler q({{1, 2}, {2, 5}, {3, 3}});
  q.add_warp(0, 0, 1);
  q.add_warp(1, 1, 3);
  q.add_warp(2, 2, 2);
  q.add_warp(3, 3, 4);  // kernel 4: budget 1 (not in the map)
  EXPECT_EQ(q.order(), (V{2, 1, 0, 3}));
  // Two groups arriving in the same cycle later: behind the running ones, sorted among themselves.
  QawsScheduler r({{1, 1}, {2, 5}, {3, 3}});
  r.add_warp(0, 0, 1);
  EXPECT_EQ(r.order(), (V{0}));
  r.add_warp(1, 1, 3);
  r.add_warp(2, 2, 2);
  EXPECT_EQ(r.order(), (V{0, 2, 1}));
}

TEST(WarpSchedulerQaws, GroupByKernelOption) {
  QawsScheduler q({}, /*group_by_kernel=*/true);  // all budget 1, one group per kernel
  q.add_warp(0, 0, 5);
  q.add_warp(1, 1, 5);
  q.add_warp(2, 2, 3);
  q.add_warp(3, 3, 3);
  EXPECT_EQ(q.order(), (V{2, 3, 0, 1}));  // tie on budget: smaller kernel id first
  q.issued(3u);                           // switch 1 == budget 1
  EXPECT_EQ(q.order(), (V{0, 1, 3, 2}));
  EXPECT_EQ(q.budget_of(5), 1u);
}

TEST(WarpSchedulerQaws, SetBudgetBeforeAddingWarps) {
  auto q = make_warp_scheduler("qaws");  // empty map: every kernel starts at budget 1
  for (uint32_t w = 0; w < 8; ++w) {
    q->set_budget(w < 4 ? 1 : 2, w < 4 ? 1 : 4);  // as the SM does before each add_warp
    q->add_warp(w, w < 4 ? w : 6 + w, w < 4 ? 1 : 2);
  }
  EXPECT_EQ(q->order(), (V{4, 5, 6, 7, 0, 1, 2, 3}));  // K2 (budget 4) first
  for (uint32_t w : {5u, 4u, 5u}) q->issued(w);        // 3 counted switches: K2 still first
  EXPECT_EQ(q->order(), (V{5, 4, 6, 7, 0, 1, 2, 3}));
  q->issued(4u);  // 4th: K1 first
  EXPECT_EQ(q->order(), (V{0, 1, 2, 3, 4, 5, 6, 7}));
  q->set_budget(2, 4);                                          // unchanged: fine
  EXPECT_THROW(q->set_budget(2, 6), std::invalid_argument);     // K2 has warps
  EXPECT_THROW(q->set_budget(3, 0), std::invalid_argument);
  q->set_budget(3, 6);  // a kernel with no warps yet
  EXPECT_EQ(static_cast<QawsScheduler&>(*q).budget_of(3), 6u);
  auto g = make_warp_scheduler("gto");
  g->set_budget(1, 9);  // ignored by GTO/LRR
  EXPECT_EQ(g->size(), 0u);
}

// ------------------------------------------------------------------------------------- factory

// The issue stage walks segments() over positions instead of order(): both must agree after any
// history of adds, removes, issues and stalls, for every kind (QAWS with three budgets, so
// groups rotate and come and go).
TEST(WarpSchedulerSegments, WalkingTheSegmentsGivesTheOrderUnderRandomHistories) {
  for (const char* kind : {"gto", "lrr", "qaws"}) {
    auto s = make_warp_scheduler(kind, {{1, 1}, {2, 3}, {3, 2}});
    Lcg rng{7};
    std::set<uint32_t> in;
    uint64_t age = 0;
    for (int step = 0; step < 3000; ++step) {
      const uint32_t r = rng.next() % 10;
      const uint32_t w = rng.next() % 24;
      if (r == 0 && !in.count(w)) {
        s->add_warp(w, age++, 1 + w % 3);
        in.insert(w);
      } else if (r == 1 && in.count(w)) {
        s->remove_warp(w);
        in.erase(w);
      } else {
        s->begin_cycle();
        V walked;
        for (const auto& g : s->segments()) {
          if (g.head != UINT32_MAX) {
            ASSERT_GE(s->position(g.head), g.begin);
            ASSERT_LT(s->position(g.head), g.end);
            walked.push_back(g.head);
          }
          for (uint32_t p = g.begin; p < g.end; ++p)
            if (s->warp_at(p) != g.head) walked.push_back(s->warp_at(p));
        }
        for (uint32_t x : in) ASSERT_EQ(s->warp_at(s->position(x)), x);
        ASSERT_EQ(s->positions(), s->size()) << kind;  // the issue stage's test for an empty scheduler
        for (uint32_t x = 0; x < 24; ++x) ASSERT_EQ(s->has_position(x), in.count(x) == 1) << kind << " warp " << x;
        ASSERT_EQ(walked, s->order()) << kind << " at step " << step;
        std::optional<uint32_t> pick = kStall;  // the first of a random ready subset
        for (uint32_t x : walked)
          if (rng.next() % 3 == 0) {
            pick = x;
            break;
          }
        s->issued(pick);
      }
    }
  }
}

TEST(WarpSchedulerFactory, KindsAndErrors) {
  EXPECT_EQ(warp_scheduler_kinds(), (std::vector<std::string>{"gto", "lrr", "qaws"}));
  for (const std::string& k : warp_scheduler_kinds()) EXPECT_EQ(make_warp_scheduler(k)->name(), k);
  try {
    make_warp_scheduler("two-level");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("two-level"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_warp_scheduler("qaws", {{1, 0}}), std::invalid_argument);
  for (const std::string& k : warp_scheduler_kinds()) {
    auto s = make_warp_scheduler(k);
    s->add_warp(3, 0, 1);
    EXPECT_THROW(s->add_warp(3, 1, 1), std::invalid_argument) << k;
    EXPECT_THROW(s->remove_warp(4), std::invalid_argument) << k;
    s->remove_warp(3);
    EXPECT_TRUE(s->order().empty()) << k;
    s->issued(kStall);
    EXPECT_EQ(s->size(), 0u);
  }
}
