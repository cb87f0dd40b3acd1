#pragma once
// Pin view of the candidate victim sets (SPEC 4): the C++ core behind clk/rst and request/
// response ports; latency 1 cycle. Verilog twin: rtl/victim_sets.v.
#include <systemc>

#include "extensions/victim_sets.hpp"

namespace mpgpu {

class VictimSetsPins : public sc_core::sc_module {
 public:
  using Op = CandidateVictimSets::Op;
  static constexpr Op kRead = CandidateVictimSets::kRead, kSet = CandidateVictimSets::kSet,
                      kClearTb = CandidateVictimSets::kClearTb, kClearRow = CandidateVictimSets::kClearRow;
  static constexpr unsigned kLatencyCycles = 1;

  sc_core::sc_in<bool> clk, rst, req_valid;
  sc_core::sc_in<sc_dt::sc_uint<2>> req_op;
  sc_core::sc_in<sc_dt::sc_uint<8>> req_pos, req_slot;
  sc_core::sc_out<bool> resp_valid, resp_error, resp_has_free;
  sc_core::sc_out<sc_dt::sc_uint<64>> resp_row;
  sc_core::sc_out<sc_dt::sc_uint<8>> resp_free;

  VictimSetsPins(sc_core::sc_module_name name, const DualKernelParams& p);
  SC_HAS_PROCESS(VictimSetsPins);
  void trace(sc_core::sc_trace_file* tf) const;

 private:
  void tick();
  DualKernelParams p_;
  CandidateVictimSets core_;
};

}  // namespace mpgpu
