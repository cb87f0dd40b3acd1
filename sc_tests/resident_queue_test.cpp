// ResidentQueue: the SM's TB-level TBs come off earliest end first, ties by launch id then TB,
// as the priority queue of whole records it replaced ordered them.
#include <gtest/gtest.h>
#include <systemc>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "sm/resident_queue.hpp"
#include "sm/sm_resources.hpp"
#include "workload/kernel.hpp"

namespace mpgpu {
namespace {

struct Record {
  KernelLaunch* launch;
  uint32_t tb;
  TbAllocation alloc;
  sc_core::sc_time end;
};

TEST(ResidentQueue, PopsByEndThenLaunchThenTb) {
  std::mt19937 rng(5);
  std::vector<KernelLaunch> launches(4);
  for (uint32_t i = 0; i < launches.size(); ++i) launches[i].id = 3 - i;  // ids not in address order
  for (int trial = 0; trial < 200; ++trial) {
    ResidentQueue<Record> q;
    std::vector<Record> held;  // what the queue holds, by slot
    std::vector<uint32_t> free_slots;
    for (uint32_t s = 0; s < 24; ++s) free_slots.push_back(s);
    for (int step = 0; step < 60; ++step) {
      if (!held.empty() && (free_slots.empty() || rng() % 2)) {
        // The earliest by (end, launch id, TB) must be on top.
        auto key = [](const Record& r) { return std::make_tuple(r.end.value(), r.launch->id, r.tb); };
        const auto best = std::min_element(held.begin(), held.end(), [&](auto& a, auto& b) { return key(a) < key(b); });
        ASSERT_EQ(q.size(), held.size());
        EXPECT_EQ(q.top().alloc.slot, best->alloc.slot);
        EXPECT_EQ(q.top().tb, best->tb);
        free_slots.push_back(best->alloc.slot);
        held.erase(best);
        q.pop();
        continue;
      }
      Record r{&launches[rng() % 4], uint32_t(rng() % 8), {}, sc_core::sc_time(double(rng() % 6), sc_core::SC_NS)};
      const size_t k = rng() % free_slots.size();
      r.alloc.slot = free_slots[k];
      free_slots.erase(free_slots.begin() + long(k));
      // A launch's TB is resident once: give a duplicate (launch, TB) another TB number.
      while (std::any_of(held.begin(), held.end(), [&](const Record& h) { return h.launch == r.launch && h.tb == r.tb; }))
        ++r.tb;
      q.push(r);
      held.push_back(r);
    }
  }
}

}  // namespace
}  // namespace mpgpu
