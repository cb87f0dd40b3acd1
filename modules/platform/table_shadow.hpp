#pragma once
// What every shadow of a hardware table in a full run shares (SMST, candidate victim sets): the
// clock and reset of the pins, a queue of core updates to replay, and the replay itself. Each
// update is one request driven onto the pins and clocked in delta cycles (simulated time does
// not move, so the run's statistics stay those of the C++ core); the registered response is then
// compared with what the core held after the update. The first difference is kept: the run
// ends with it as an error.
#include <systemc>

#include <deque>
#include <functional>
#include <string>

namespace mpgpu {

class TableShadow : public sc_core::sc_module {
 public:
  enum class Impl { pins, verilog };
  Impl impl() const { return impl_; }
  const char* impl_name() const { return impl_ == Impl::verilog ? "Verilog twin" : "pin view"; }
  uint64_t checked() const { return checked_; }
  const std::string& first_mismatch() const { return first_mismatch_; }

 protected:
  TableShadow(sc_core::sc_module_name name, Impl impl);
  SC_HAS_PROCESS(TableShadow);
  // One update to replay: `drive` writes the request's pins; `check` reads the response and
  // returns "" when it matches the core, else what differs.
  void replay(std::function<void()> drive, std::function<std::string()> check);
  template <class... Signals>
  void trace_signals(sc_core::sc_trace_file* tf, const Signals&... s) const {
    const std::string n = name();
    (sc_core::sc_trace(tf, s, n + "." + s.basename()), ...);
  }

  sc_core::sc_signal<bool> clk_{"clk"}, rst_{"rst"}, req_valid_{"req_valid"};

 private:
  struct Update {
    std::function<void()> drive;
    std::function<std::string()> check;
  };
  void run();
  void edge();

  Impl impl_;
  std::deque<Update> pending_;
  sc_core::sc_event work_;
  uint64_t checked_ = 0;
  std::string first_mismatch_;
};

}  // namespace mpgpu
