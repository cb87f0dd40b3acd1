#pragma once
// Puts the candidate victim sets' pin view or Verilog twin into a full dual-kernel run, one per
// SM (each SM has its own table): every update of the preemption processor's core for that SM is
// replayed on the pins (TableShadow) and the registered response (the addressed row, the first
// free position) is compared with the core.
// The twin is built as a 16 x 16 table (SPEC 4: up to 16 candidates x 16 TB ids); a platform
// with fewer positions (K) or TB slots (P) uses its first K rows and P columns, the rest stay 0.
#include <systemc>

#include <memory>

#include "extensions/victim_sets_pins.hpp"
#include "platform/table_shadow.hpp"

class Vvictim_sets;

namespace mpgpu {

class VictimSetsShadow : public TableShadow {
 public:
  VictimSetsShadow(sc_core::sc_module_name name, const DualKernelParams& p, Impl impl);
  ~VictimSetsShadow() override;

  // One update of the shadowed core and the core after it.
  void observe(unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after);
  void trace(sc_core::sc_trace_file* tf) const;
  // Whether the verilated twin (rtl/victim_sets.v, CMake verilate()) holds K positions x P slots.
  static bool twin_fits(const DualKernelParams& p);

 private:
  DualKernelParams p_;
  sc_core::sc_signal<sc_dt::sc_uint<2>> req_op_{"req_op"};
  sc_core::sc_signal<sc_dt::sc_uint<8>> req_pos_{"req_pos"}, req_slot_{"req_slot"};
  sc_core::sc_signal<bool> resp_valid_{"resp_valid"}, resp_error_{"resp_error"}, resp_has_free_{"resp_has_free"};
  sc_core::sc_signal<sc_dt::sc_uint<64>> resp_row_{"resp_row"};
  sc_core::sc_signal<sc_dt::sc_uint<8>> resp_free_{"resp_free"};
  std::unique_ptr<VictimSetsPins> pins_;
  std::unique_ptr<Vvictim_sets> rtl_;
};

}  // namespace mpgpu
