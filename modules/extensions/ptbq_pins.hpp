#pragma once
// Pin view of the PTBQ (SPEC 2): the C++ core behind clk/rst and request/response ports;
// latency 1 cycle. Verilog twin: rtl/ptbq.v.
#include <systemc>

#include "extensions/ptbq.hpp"

namespace mpgpu {

class PtbqPins : public sc_core::sc_module {
 public:
  enum Op : unsigned { kFront = 0, kPush = 1, kPop = 2, kClear = 3 };
  static constexpr unsigned kLatencyCycles = 1;

  sc_core::sc_in<bool> clk, rst, req_valid;
  sc_core::sc_in<sc_dt::sc_uint<2>> req_op;
  sc_core::sc_in<sc_dt::sc_uint<8>> req_q;
  sc_core::sc_in<sc_dt::sc_uint<32>> req_tb, req_ptr;
  sc_core::sc_out<bool> resp_valid, resp_error, resp_empty;
  sc_core::sc_out<sc_dt::sc_uint<32>> resp_tb, resp_ptr;
  sc_core::sc_out<sc_dt::sc_uint<16>> resp_size;

  PtbqPins(sc_core::sc_module_name name, const ExtensionParams& p);
  SC_HAS_PROCESS(PtbqPins);
  void trace(sc_core::sc_trace_file* tf) const;

 private:
  void tick();
  ExtensionParams p_;
  Ptbq core_;
};

}  // namespace mpgpu
