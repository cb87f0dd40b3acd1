#pragma once
// Puts the SMST's pin view or its Verilog twin into a full platform run: every update of the
// SM driver's SMST core is replayed on the pins (TableShadow) and the registered response is
// compared with the core's entry and idle search.
#include <systemc>

#include <memory>

#include "extensions/smst_pins.hpp"
#include "platform/table_shadow.hpp"

class Vsmst;

namespace mpgpu {

class SmstShadow : public TableShadow {
 public:
  SmstShadow(sc_core::sc_module_name name, const ExtensionParams& p, Impl impl);
  ~SmstShadow() override;

  void attach(Smst& core);
  void trace(sc_core::sc_trace_file* tf) const;
  // Parameters the verilated twin was built with (rtl/smst.v, CMake verilate()).
  static bool twin_fits(const ExtensionParams& p);

 private:
  sc_core::sc_signal<sc_dt::sc_uint<3>> req_op_{"req_op"};
  sc_core::sc_signal<sc_dt::sc_uint<8>> req_sm_{"req_sm"}, req_arg_{"req_arg"};
  sc_core::sc_signal<bool> resp_valid_{"resp_valid"}, resp_error_{"resp_error"}, resp_has_idle_{"resp_has_idle"};
  sc_core::sc_signal<sc_dt::sc_uint<2>> resp_state_{"resp_state"};
  sc_core::sc_signal<sc_dt::sc_uint<8>> resp_running_{"resp_running"}, resp_next_{"resp_next"}, resp_tbs_{"resp_tbs"},
      resp_idle_{"resp_idle"};
  std::unique_ptr<SmstPins> pins_;
  std::unique_ptr<Vsmst> rtl_;
};

}  // namespace mpgpu
