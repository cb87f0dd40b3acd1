#pragma once
// Pin view of the SMST (DESIGN, Extensions): the C++ core behind clk/rst and request/response
// ports, one request per cycle, registered response (latency 1 cycle). Its Verilog twin is
// rtl/smst.v with the same ports; VCD-traceable.
#include <systemc>

#include "extensions/smst.hpp"

namespace mpgpu {

class SmstPins : public sc_core::sc_module {
 public:
  enum Op : unsigned { kRead = 0, kSetRunning = 1, kReserve = 2, kSetIdle = 3, kTbStarted = 4, kTbLeft = 5 };
  static constexpr unsigned kLatencyCycles = 1;

  sc_core::sc_in<bool> clk, rst, req_valid;
  sc_core::sc_in<sc_dt::sc_uint<3>> req_op;
  sc_core::sc_in<sc_dt::sc_uint<8>> req_sm, req_arg;
  sc_core::sc_out<bool> resp_valid, resp_error, resp_has_idle;
  sc_core::sc_out<sc_dt::sc_uint<2>> resp_state;
  sc_core::sc_out<sc_dt::sc_uint<8>> resp_running, resp_next, resp_tbs, resp_idle;

  SmstPins(sc_core::sc_module_name name, const ExtensionParams& p);
  SC_HAS_PROCESS(SmstPins);
  void trace(sc_core::sc_trace_file* tf) const;
  const Smst& core() const { return core_; }

 private:
  void tick();
  ExtensionParams p_;
  Smst core_;
};

}  // namespace mpgpu
