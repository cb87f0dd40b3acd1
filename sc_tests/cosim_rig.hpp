#pragma once
// Lock-step co-simulation of two ClockedTables on the same requests (a pin view against a Verilog
// twin), and a twin with an injected bug, for the twin tests.
#include <functional>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"
#include "twins/twin_registry.hpp"

namespace mpgpu::test {

// A twin whose error output is stuck at 1 from cycle `after` on: it rejects what it should take.
template <class Bus>
class StuckError : public ClockedTable<Bus> {
 public:
  StuckError(std::unique_ptr<ClockedTable<Bus>> t, uint64_t after) : t_(std::move(t)), after_(after) {}
  void reset(Bus& b) override { t_->reset(b); }
  void edge(Bus& b) override {
    t_->edge(b);
    if (++cycles_ > after_) b.resp_error = 1;
  }

 private:
  std::unique_ptr<ClockedTable<Bus>> t_;
  uint64_t after_, cycles_ = 0;
};

struct Result {
  uint64_t compared = 0, mismatches = 0;
  std::string first;
};

// Reset for two cycles, then `cycles` cycles of requests from `drive` (inputs only), both tables
// clocked, all outputs compared after every edge; `observe` sees the pin view's outputs.
template <class Bus>
Result cosim(ClockedTable<Bus>& model, ClockedTable<Bus>& rtl, uint64_t cycles, uint64_t seed,
             const std::function<void(Bus&, std::mt19937_64&, uint64_t)>& drive,
             const std::function<void(const Bus&)>& observe) {
  std::mt19937_64 rng(seed);
  Bus m, r;
  model.reset(m);
  rtl.reset(r);
  Result res;
  for (uint64_t c = 0; c < cycles; ++c) {
    Bus req;
    drive(req, rng, c);
    req.drive(m);  // the same request on both
    req.drive(r);
    model.edge(m);
    rtl.edge(r);
    ++res.compared;
    const std::string diff = output_differences(r, m) + (m.resp_valid != r.resp_valid ? " resp_valid" : "");
    if (!diff.empty() && res.mismatches++ == 0) res.first = "cycle " + std::to_string(c) + ": " + diff;
    observe(m);
  }
  return res;
}

// The same traffic against a twin whose error output sticks at 1 after cycle 300: caught there.
template <class Bus, class View, class Params>
void expect_injected_bug_caught(const Params& p, const std::string& table, const TwinParams& tp, uint64_t seed,
                                const std::function<void(Bus&, std::mt19937_64&, uint64_t)>& drive) {
  View model(1, p);
  StuckError<Bus> bad(make_twin<Bus>(table, table, tp), 300);
  const Result r = cosim<Bus>(model, bad, 1000, seed, drive, [](const Bus&) {});
  EXPECT_GT(r.mismatches, 100u) << table;
  EXPECT_EQ(r.first.rfind("cycle 3", 0), 0u) << table << ": " << r.first;
}

}  // namespace mpgpu::test
