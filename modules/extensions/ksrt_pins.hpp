#pragma once
// Pin view of the KSRT (SPEC 2): the C++ core behind clk/rst and request/response ports;
// latency 1 cycle. Verilog twin: rtl/ksrt.v.
#include <systemc>

#include "extensions/ksrt.hpp"

namespace mpgpu {

class KsrtPins : public sc_core::sc_module {
 public:
  enum Op : unsigned { kRead = 0, kAllocate = 1, kRelease = 2, kIssueNext = 3, kTbDone = 4, kSetTokens = 5 };
  static constexpr unsigned kLatencyCycles = 1;
  template <int W>
  using in = sc_core::sc_in<sc_dt::sc_uint<W>>;
  template <int W>
  using out = sc_core::sc_out<sc_dt::sc_uint<W>>;

  sc_core::sc_in<bool> clk, rst, req_valid;
  in<3> req_op;
  in<8> req_idx, req_context, req_priority;
  in<32> req_grid, req_regs, req_shm;
  in<16> req_threads, req_tokens;
  in<64> req_param;
  sc_core::sc_out<bool> resp_valid, resp_error, resp_entry_valid;
  out<8> resp_idx, resp_context, resp_priority;
  out<32> resp_grid, resp_regs, resp_shm, resp_next_tb, resp_tbs_done;
  out<16> resp_threads, resp_tokens;
  out<64> resp_param;

  KsrtPins(sc_core::sc_module_name name, const ExtensionParams& p);
  SC_HAS_PROCESS(KsrtPins);
  void trace(sc_core::sc_trace_file* tf) const;

 private:
  void tick();
  ExtensionParams p_;
  Ksrt core_;
};

}  // namespace mpgpu
