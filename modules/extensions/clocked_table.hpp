#pragma once
// An extension table as a clocked block behind its pins (pin_bus.hpp): the owner evaluates it
// edge by edge in zero simulated time and counts the cycles until the response. Two kinds:
// - PinView: the C++ core behind the pins (the `pins` implementation), its response registered
//   and then delayed through `latency - 1` more pipeline stages;
// - a verilated Verilog twin (twins/, the `verilog` implementation).
#include <deque>
#include <memory>
#include <utility>

namespace mpgpu {

template <class Bus>
class ClockedTable {
 public:
  virtual ~ClockedTable() = default;
  // Reset held over one rising edge: the table empties, the outputs take their reset values.
  virtual void reset(Bus& b) = 0;
  // One rising edge: the table takes the request on b's inputs (if req_valid) and drives b's outputs.
  virtual void edge(Bus& b) = 0;
};

// Logic: copyable, with the core; `apply(bus)` performs the request on the bus's inputs and
// writes the response outputs (a rejected request sets resp_error and leaves the core unchanged);
// `reset_outputs(bus)` gives the outputs' reset values.
template <class Bus, class Logic>
class PinView : public ClockedTable<Bus> {
 public:
  template <class... Args>
  explicit PinView(uint32_t latency, Args&&... args)
      : latency_(latency < 1 ? 1 : latency), fresh_(std::forward<Args>(args)...), logic_(fresh_) {}
  void reset(Bus& b) override {
    logic_ = fresh_;
    line_.clear();
    Logic::reset_outputs(b);
  }
  void edge(Bus& b) override {
    Bus r = b;
    r.resp_valid = b.req_valid;
    if (b.req_valid) logic_.apply(r);
    line_.push_back(r);
    if (line_.size() < latency_) {  // still in the pipeline stages
      b.resp_valid = 0;
      return;
    }
    const Bus out = line_.front();
    line_.pop_front();
    if (out.resp_valid) b.take_outputs(out);
    else b.resp_valid = 0;  // outputs hold between responses, as the twins' registers do
  }

 private:
  uint32_t latency_;
  Logic fresh_;  // the reset state
  Logic logic_;
  std::deque<Bus> line_;  // responses on their way through the pipeline stages
};

}  // namespace mpgpu
