#pragma once
// Puts the candidate victim sets' pin view or Verilog twin into a full dual-kernel run, one per
// SM (each SM has its own table): every update of the preemption processor's core for that SM is
// replayed on the pins, clocked in delta cycles (simulated time does not move, so the run's
// statistics stay those of the core), and the registered response (the addressed row, the first
// free position) is compared with the core. Any difference ends the run with an error.
// The twin is built as a 16 x 16 table (SPEC 4: up to 16 candidates x 16 TB ids); a platform
// with fewer positions (K) or TB slots (P) uses its first K rows and P columns, the rest stay 0.
#include <systemc>

#include <deque>
#include <memory>
#include <string>

#include "extensions/victim_sets_pins.hpp"

class Vvictim_sets;

namespace mpgpu {

class VictimSetsShadow : public sc_core::sc_module {
 public:
  enum class Impl { pins, verilog };
  VictimSetsShadow(sc_core::sc_module_name name, const DualKernelParams& p, Impl impl);
  ~VictimSetsShadow() override;
  SC_HAS_PROCESS(VictimSetsShadow);

  // One update of the shadowed core and the core after it.
  void observe(unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after);
  void trace(sc_core::sc_trace_file* tf) const;
  uint64_t checked() const { return checked_; }
  const std::string& first_mismatch() const { return first_mismatch_; }
  // Whether the verilated twin (rtl/victim_sets.v, CMake verilate()) holds K positions x P slots.
  static bool twin_fits(const DualKernelParams& p);

 private:
  struct Expect {
    unsigned op;
    uint32_t pos, slot;
    uint64_t row;
    int free;
  };
  void run();
  void edge();

  Impl impl_;
  DualKernelParams p_;
  sc_core::sc_signal<bool> clk_, rst_, req_valid_;
  sc_core::sc_signal<sc_dt::sc_uint<2>> req_op_;
  sc_core::sc_signal<sc_dt::sc_uint<8>> req_pos_, req_slot_;
  sc_core::sc_signal<bool> resp_valid_, resp_error_, resp_has_free_;
  sc_core::sc_signal<sc_dt::sc_uint<64>> resp_row_;
  sc_core::sc_signal<sc_dt::sc_uint<8>> resp_free_;
  std::unique_ptr<VictimSetsPins> pins_;
  std::unique_ptr<Vvictim_sets> rtl_;
  std::deque<Expect> pending_;
  sc_core::sc_event work_;
  uint64_t checked_ = 0;
  std::string first_mismatch_;
};

}  // namespace mpgpu
