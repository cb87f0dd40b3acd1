// TB admission (SPEC 1): occupancy, limiting resource, contiguous allocation, carve-out.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "platform/platform_config.hpp"
#include "report.hpp"
#include "sm/occupancy.hpp"
#include "sm/sm_resources.hpp"
#include "test_util.hpp"
#include "workload/workload.hpp"

using namespace mpgpu;
using mpgpu::test::source_path;

namespace {
SmParams k20c_sm() {
  SmParams p;
  p.count = 13;
  p.max_threads = 2048;
  p.max_tbs = 16;
  p.registers = 65536;
  p.shared_mem_configs = {16 * 1024, 32 * 1024, 48 * 1024};
  p.shared_mem_default = 16 * 1024;
  return p;
}
}  // namespace

// The "max TBs per SM" column of SPEC 2's Parboil table, for all 24 kernels, on platforms/k20c.yaml.
TEST(ParboilOccupancy, MatchesPublishedColumnOnK20c) {
  PlatformConfig cfg = load_platform(source_path("platforms/k20c.yaml"));
  WorkloadDesc w = load_workload(source_path("configs/parboil/parboil.yaml"));
  ASSERT_EQ(w.kernels.size(), 24u);
  for (const auto& k : w.kernels) {
    ASSERT_TRUE(k.published_max_tbs_per_sm.has_value()) << k.name;
    const Occupancy o = compute_occupancy(cfg.sm, {k.threads_per_tb, k.registers_per_tb, k.shared_mem_per_tb});
    EXPECT_EQ(o.tbs_per_sm, *k.published_max_tbs_per_sm) << k.name << " limited by " << o.limiting;
  }
}

TEST(Occupancy, CarveOutIsFirstLargerConfiguration) {
  const SmParams p = k20c_sm();
  EXPECT_EQ(shared_mem_config_for(p, 0), 16u * 1024);
  EXPECT_EQ(shared_mem_config_for(p, 16 * 1024), 16u * 1024);
  EXPECT_EQ(shared_mem_config_for(p, 16 * 1024 + 1), 32u * 1024);
  EXPECT_EQ(shared_mem_config_for(p, 24576), 32u * 1024);  // histo.main
  EXPECT_EQ(shared_mem_config_for(p, 49153), 0u);          // never fits
}

TEST(Occupancy, LimitingResourceNamesEveryTie) {
  const SmParams p = k20c_sm();
  Occupancy o = compute_occupancy(p, {512, 8192 * 2, 0});  // threads 4, registers 4
  EXPECT_EQ(o.tbs_per_sm, 4u);
  EXPECT_EQ(o.limiting, "threads+registers");
  o = compute_occupancy(p, {32, 100, 0});
  EXPECT_EQ(o.tbs_per_sm, 16u);
  EXPECT_EQ(o.limiting, "tb_slots");
  o = compute_occupancy(p, {32, 100, 50000});
  EXPECT_EQ(o.tbs_per_sm, 0u);
}

TEST(Occupancy, RegisterAllocationUnitRoundsUp) {
  SmParams p = k20c_sm();
  p.register_alloc_unit = 256;
  const Occupancy o = compute_occupancy(p, {128, 4320, 0});  // 4320 -> 4352
  EXPECT_EQ(o.registers_per_tb, 4352u);
  EXPECT_EQ(o.tbs_per_sm, 15u);
}

TEST(Report, StorageFractionAndContextSaveTime) {
  PlatformConfig cfg = load_platform(source_path("platforms/k20c.yaml"));
  WorkloadDesc w = load_workload(source_path("configs/parboil/parboil.yaml"));
  const auto r = kernel_report(cfg, w);
  const auto& lbm = r["kernels"][0];
  ASSERT_EQ(lbm["name"], "lbm.StreamCollide");
  // 15 TBs x 4320 registers x 4 B = 259200 B over 256 KiB + 48 KiB.
  EXPECT_EQ(lbm["context_bytes"].get<uint64_t>(), 259200u);
  EXPECT_NEAR(lbm["storage_fraction"].get<double>(), 259200.0 / 311296.0, 1e-12);
  // Equal DRAM share: 208 GB/s / 13 SMs = 16 GB/s = 16000 B/us.
  EXPECT_NEAR(lbm["context_save_us"].get<double>(), 259200.0 / 16000.0, 1e-9);
}

TEST(RangeAllocator, FirstFitAndCoalescing) {
  RangeAllocator a(100);
  EXPECT_EQ(a.allocate(30), 0u);
  EXPECT_EQ(a.allocate(30), 30u);
  EXPECT_EQ(a.allocate(30), 60u);
  EXPECT_FALSE(a.allocate(30).has_value());  // 10 left
  a.release(30, 30);
  EXPECT_EQ(a.allocate(20), 30u);  // first fit into the hole
  a.release(0, 30);
  // Free: [0,30) [50,60) [90,100): 40 free in all, but no 31-long range.
  EXPECT_EQ(a.free_total(), 50u);
  EXPECT_FALSE(a.allocate(31).has_value());
  a.release(30, 20);  // coalesces into [0,60)
  EXPECT_EQ(a.allocate(60), 0u);
}

// First fit, placement at an offset and coalescing agree with a brute-force map of free units
// under random allocations and releases.
TEST(RangeAllocator, AgreesWithABruteForceMap) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t cap = 16 + rng() % 200;
    RangeAllocator a(cap);
    std::vector<char> used(cap, 0);
    std::vector<std::pair<uint32_t, uint32_t>> live;
    auto first_fit = [&](uint32_t size) -> std::optional<uint32_t> {
      for (uint32_t lo = 0; lo + size <= cap; ++lo)
        if (std::none_of(used.begin() + lo, used.begin() + lo + size, [](char c) { return c; })) return lo;
      return std::nullopt;
    };
    for (int step = 0; step < 300; ++step) {
      const uint32_t size = 1 + rng() % (cap / 3);
      if (rng() % 3 == 0 && !live.empty()) {
        const size_t k = rng() % live.size();
        a.release(live[k].first, live[k].second);
        std::fill(used.begin() + live[k].first, used.begin() + live[k].first + live[k].second, 0);
        live.erase(live.begin() + long(k));
      } else if (rng() % 4 == 0) {
        const uint32_t at = rng() % (cap - size + 1);
        const bool free = std::none_of(used.begin() + at, used.begin() + at + size, [](char c) { return c; });
        ASSERT_EQ(a.allocate_at(at, size), free) << "trial " << trial << " step " << step;
        if (free) std::fill(used.begin() + at, used.begin() + at + size, 1), live.push_back({at, size});
      } else {
        const auto want = first_fit(size);
        const auto got = a.allocate(size);
        ASSERT_EQ(got, want) << "trial " << trial << " step " << step;
        if (got) std::fill(used.begin() + *got, used.begin() + *got + size, 1), live.push_back({*got, size});
      }
      ASSERT_EQ(a.free_total(), uint32_t(std::count(used.begin(), used.end(), 0)));
    }
  }
}

TEST(SmResources, AdmitsUpToEveryLimit) {
  const SmParams p = k20c_sm();
  SmResources r(p);
  const TbResources tb{512, 9216, 4096};  // histo.prescan: 4 per SM
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(r.try_allocate(tb, 16 * 1024).has_value()) << i;
  EXPECT_FALSE(r.try_allocate(tb, 16 * 1024).has_value());
  EXPECT_EQ(r.free_threads(), 0u);
  EXPECT_EQ(r.free_shared_mem(), 0u);
}

TEST(SmResources, FragmentationBlocksAContiguousRange) {
  SmParams p = k20c_sm();
  p.registers = 1000;
  SmResources r(p);
  auto a = r.try_allocate({32, 300, 0}, 16384);
  auto b = r.try_allocate({32, 300, 0}, 16384);
  auto c = r.try_allocate({32, 300, 0}, 16384);
  ASSERT_TRUE(a && b && c);
  r.release(*a);
  r.release(*c);  // free: [0,300) and [600,1000): 700 registers, none 500 long
  EXPECT_EQ(r.free_registers(), 700u);
  EXPECT_FALSE(r.try_allocate({32, 500, 0}, 16384).has_value());
  EXPECT_TRUE(r.try_allocate({32, 400, 0}, 16384).has_value());
}

TEST(SmResources, CarveOutChangesOnlyWhenEmpty) {
  const SmParams p = k20c_sm();
  SmResources r(p);
  auto small = r.try_allocate({32, 100, 1024}, 16 * 1024);
  ASSERT_TRUE(small);
  EXPECT_FALSE(r.try_allocate({32, 100, 20000}, 32 * 1024).has_value());  // needs 32 KB, SM busy
  r.release(*small);
  auto big = r.try_allocate({32, 100, 20000}, 32 * 1024);
  ASSERT_TRUE(big);
  EXPECT_EQ(r.shared_mem_config(), 32u * 1024);
  EXPECT_TRUE(r.try_allocate({32, 100, 1024}, 16 * 1024).has_value());  // a smaller one fits beside
  EXPECT_EQ(r.resident_tbs(), 2u);
}

// fits() answers what try_allocate() would, without changing anything (the block scheduler
// marks an SM full from it instead of asking again), under random TB mixes, releases and
// carve-outs.
TEST(SmResources, FitsAgreesWithTryAllocate) {
  std::mt19937 rng(11);
  const TbResources kinds[] = {{512, 9216, 4096}, {256, 4096, 0}, {128, 2048, 12288}, {64, 16384, 1024}, {1024, 1000, 40000}};
  const uint32_t carve[] = {16 * 1024, 32 * 1024, 48 * 1024};
  for (int trial = 0; trial < 20; ++trial) {
    SmParams p = k20c_sm();
    SmResources r(p);
    std::vector<TbAllocation> live;
    for (int step = 0; step < 400; ++step) {
      if (!live.empty() && rng() % 3 == 0) {
        const size_t k = rng() % live.size();
        r.release(live[k]);
        live.erase(live.begin() + long(k));
        continue;
      }
      const TbResources& tb = kinds[rng() % 5];
      const uint32_t c = std::max(carve[rng() % 3], tb.shared_mem);
      const bool said = r.fits(tb, c);
      const uint32_t before = r.free_registers();
      EXPECT_EQ(r.fits(tb, c), said);  // asking changes nothing
      EXPECT_EQ(r.free_registers(), before);
      const auto got = r.try_allocate(tb, c);
      ASSERT_EQ(got.has_value(), said) << "trial " << trial << " step " << step;
      if (got) live.push_back(*got);
    }
  }
}

TEST(SmResources, SlotsAreReused) {
  SmParams p = k20c_sm();
  p.max_tbs = 2;
  SmResources r(p);
  auto a = r.try_allocate({32, 10, 0}, 16384);
  auto b = r.try_allocate({32, 10, 0}, 16384);
  EXPECT_EQ(a->slot, 0u);
  EXPECT_EQ(b->slot, 1u);
  EXPECT_FALSE(r.try_allocate({32, 10, 0}, 16384));
  r.release(*a);
  EXPECT_EQ(r.try_allocate({32, 10, 0}, 16384)->slot, 0u);
}

// Threads are taken in whole warps (the fuzzer found a TB of 129 threads admitted 15 times on a
// 2048-thread SM while each held 5 warps: 75 warps for 64 slots, exit 1 mid-run).
TEST(Occupancy, ThreadsCountInWholeWarps) {
  SmParams p = k20c_sm();
  p.warp_size = 32;
  EXPECT_EQ(warp_rounded_threads(p, 129), 160u);
  const Occupancy o = compute_occupancy(p, {129, 0, 0});
  EXPECT_EQ(o.tbs_per_sm, 12u);  // 2048 / 160, not 2048 / 129 = 15
  EXPECT_EQ(o.limiting, "threads");
  SmResources r(p);
  int admitted = 0;
  while (r.try_allocate({129, 0, 0}, p.shared_mem_default)) ++admitted;
  EXPECT_EQ(admitted, 12);
  EXPECT_EQ(r.free_threads(), 2048u - 12 * 160);
}

// A TB takes the lowest free TB slot, past the first 64 too (the slots are a bit mask).
TEST(SmResources, TakesTheLowestFreeSlot) {
  SmParams p = k20c_sm();
  p.max_tbs = 70;
  p.max_threads = 70 * 32;
  p.registers = 1 << 20;
  SmResources r(p);
  std::vector<TbAllocation> a;
  for (uint32_t i = 0; i < 70; ++i) {
    const auto got = r.try_allocate({32, 32, 0}, 16 * 1024);
    ASSERT_TRUE(got) << i;
    EXPECT_EQ(got->slot, i);
    a.push_back(*got);
  }
  EXPECT_FALSE(r.try_allocate({32, 32, 0}, 16 * 1024).has_value());  // every slot taken
  for (uint32_t s : {66u, 3u, 64u}) r.release(a[s]);
  for (uint32_t want : {3u, 64u, 66u}) {
    const auto got = r.try_allocate({32, 32, 0}, 16 * 1024);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->slot, want);
  }
}
