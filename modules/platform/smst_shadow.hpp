#pragma once
// Puts the SMST's pin view or its Verilog twin into a full platform run: every update of the
// SM driver's SMST core is replayed on the pins, clocked in delta cycles (simulated time does not
// move, so the run's statistics stay those of the core), and the registered response is compared
// with the core's entry and idle search. Any difference ends the run with an error.
#include <systemc>

#include <deque>
#include <memory>
#include <string>

#include "extensions/smst_pins.hpp"

class Vsmst;

namespace mpgpu {

class SmstShadow : public sc_core::sc_module {
 public:
  enum class Impl { pins, verilog };
  SmstShadow(sc_core::sc_module_name name, const ExtensionParams& p, Impl impl);
  ~SmstShadow() override;
  SC_HAS_PROCESS(SmstShadow);

  void attach(Smst& core);
  void trace(sc_core::sc_trace_file* tf) const;
  uint64_t checked() const { return checked_; }
  const std::string& first_mismatch() const { return first_mismatch_; }
  Impl impl() const { return impl_; }
  // Parameters the verilated twin was built with (rtl/smst.v, CMake verilate()).
  static bool twin_fits(const ExtensionParams& p);

 private:
  struct Expect {
    unsigned op;
    uint32_t sm, arg;
    SmstEntry entry;
    int idle;
  };
  void run();
  void edge();

  Impl impl_;
  sc_core::sc_signal<bool> clk_, rst_, req_valid_;
  sc_core::sc_signal<sc_dt::sc_uint<3>> req_op_;
  sc_core::sc_signal<sc_dt::sc_uint<8>> req_sm_, req_arg_;
  sc_core::sc_signal<bool> resp_valid_, resp_error_, resp_has_idle_;
  sc_core::sc_signal<sc_dt::sc_uint<2>> resp_state_;
  sc_core::sc_signal<sc_dt::sc_uint<8>> resp_running_, resp_next_, resp_tbs_, resp_idle_;
  std::unique_ptr<SmstPins> pins_;
  std::unique_ptr<Vsmst> rtl_;
  std::deque<Expect> pending_;
  sc_core::sc_event work_;
  uint64_t checked_ = 0;
  std::string first_mismatch_;
};

}  // namespace mpgpu
