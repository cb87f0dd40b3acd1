#pragma once
// A generic pin view for the extension tables without a dedicated one: clk/rst, one request per
// cycle {op, index, a, b} and a registered response {error, d0, d1} (latency 1 cycle). An Adapter
// owns the C++ core and maps requests onto its operations; a rejected request (the core throws)
// raises resp_error and leaves the core unchanged.
#include <systemc>

#include <string>

#include "common/error.hpp"

namespace mpgpu {

struct PinRequest {
  unsigned op;
  uint32_t index;
  uint64_t a, b;
};

struct PinResponse {
  uint64_t d0 = 0, d1 = 0;
};

template <typename Adapter>
class TablePins : public sc_core::sc_module {
 public:
  static constexpr unsigned kLatencyCycles = 1;
  sc_core::sc_in<bool> clk, rst, req_valid;
  sc_core::sc_in<sc_dt::sc_uint<4>> req_op;
  sc_core::sc_in<sc_dt::sc_uint<16>> req_index;
  sc_core::sc_in<sc_dt::sc_uint<64>> req_a, req_b;
  sc_core::sc_out<bool> resp_valid, resp_error;
  sc_core::sc_out<sc_dt::sc_uint<64>> resp_d0, resp_d1;

  template <typename... Args>
  TablePins(sc_core::sc_module_name name, Args&&... args)
      : sc_module(name), clk("clk"), rst("rst"), req_valid("req_valid"), req_op("req_op"), req_index("req_index"),
        req_a("req_a"), req_b("req_b"), resp_valid("resp_valid"), resp_error("resp_error"), resp_d0("resp_d0"),
        resp_d1("resp_d1"), fresh_(std::forward<Args>(args)...), adapter_(fresh_) {
    SC_METHOD(tick);
    sensitive << clk.pos();
    dont_initialize();
  }
  SC_HAS_PROCESS(TablePins);
  const Adapter& adapter() const { return adapter_; }

  void trace(sc_core::sc_trace_file* tf) const {
    const std::string n = name();
    sc_core::sc_trace(tf, clk, n + ".clk");
    sc_core::sc_trace(tf, rst, n + ".rst");
    sc_core::sc_trace(tf, req_valid, n + ".req_valid");
    sc_core::sc_trace(tf, req_op, n + ".req_op");
    sc_core::sc_trace(tf, req_index, n + ".req_index");
    sc_core::sc_trace(tf, req_a, n + ".req_a");
    sc_core::sc_trace(tf, req_b, n + ".req_b");
    sc_core::sc_trace(tf, resp_valid, n + ".resp_valid");
    sc_core::sc_trace(tf, resp_error, n + ".resp_error");
    sc_core::sc_trace(tf, resp_d0, n + ".resp_d0");
    sc_core::sc_trace(tf, resp_d1, n + ".resp_d1");
  }

 private:
  void tick() {
    if (rst.read()) {
      adapter_ = fresh_;
      resp_valid.write(false);
      resp_error.write(false);
      resp_d0.write(0);
      resp_d1.write(0);
      return;
    }
    resp_valid.write(req_valid.read());
    if (!req_valid.read()) return;
    const PinRequest rq{req_op.read().to_uint(), req_index.read().to_uint(), req_a.read().to_uint64(),
                        req_b.read().to_uint64()};
    Adapter before = adapter_;
    try {
      const PinResponse r = adapter_.apply(rq);
      resp_error.write(false);
      resp_d0.write(r.d0);
      resp_d1.write(r.d1);
    } catch (const SimError&) {
      adapter_ = before;  // a rejected request changes nothing
      resp_error.write(true);
    } catch (const std::out_of_range&) {
      adapter_ = before;
      resp_error.write(true);
    }
  }
  Adapter fresh_;  // the reset state
  Adapter adapter_;
};

}  // namespace mpgpu
