// The pin view over the generic request/response interface, for the allocation positions (not
// linked: computed whole at each plan; the linked tables have their own buses and twins:
// twin_cosim_test.cpp): scripted requests, one per
// cycle, and the registered responses (latency 1 cycle) checked against known answers.
#include <gtest/gtest.h>
#include <systemc>

#include <tuple>

#include "extensions/table_adapters.hpp"

using namespace mpgpu;
using sc_core::sc_signal;
using sc_dt::sc_uint;

namespace {

using Response = std::tuple<bool, uint64_t, uint64_t>;  // error, d0, d1

template <typename Pins>
struct Driver : sc_core::sc_module {
  SC_HAS_PROCESS(Driver);
  sc_core::sc_clock clk{"clk", 1, sc_core::SC_NS};
  sc_signal<bool> rst, req_valid, resp_valid, resp_error;
  sc_signal<sc_uint<4>> req_op;
  sc_signal<sc_uint<16>> req_index;
  sc_signal<sc_uint<64>> req_a, req_b, resp_d0, resp_d1;
  Pins& dut;
  std::vector<PinRequest> script;
  std::vector<Response> got;
  size_t next = 0;
  uint64_t cycle = 0;

  Driver(sc_core::sc_module_name n, Pins& d, std::vector<PinRequest> s) : sc_module(n), dut(d), script(std::move(s)) {
    dut.clk(clk), dut.rst(rst), dut.req_valid(req_valid), dut.req_op(req_op), dut.req_index(req_index);
    dut.req_a(req_a), dut.req_b(req_b), dut.resp_valid(resp_valid), dut.resp_error(resp_error);
    dut.resp_d0(resp_d0), dut.resp_d1(resp_d1);
    SC_METHOD(step);
    sensitive << clk.negedge_event();
    dont_initialize();
  }
  void step() {
    ++cycle;
    if (resp_valid.read()) got.emplace_back(resp_error.read(), resp_d0.read().to_uint64(), resp_d1.read().to_uint64());
    rst.write(cycle <= 2);
    const bool send = cycle > 2 && next < script.size();
    req_valid.write(send);
    if (send) {
      const PinRequest& r = script[next++];
      req_op.write(r.op), req_index.write(r.index), req_a.write(r.a), req_b.write(r.b);
    }
  }
};

template <typename Pins, typename... Args>
std::vector<Response> drive(std::vector<PinRequest> script, Args&&... args) {
  Pins dut("dut", std::forward<Args>(args)...);
  Driver<Pins> d("driver", dut, script);
  sc_core::sc_start(double(script.size() + 5), sc_core::SC_NS);
  return d.got;
}

Response ok(uint64_t d0, uint64_t d1) { return {false, d0, d1}; }
bool err(const Response& r) { return std::get<0>(r); }

}  // namespace

TEST(TablePins, AllocationPositions) {
  DualKernelParams p;
  auto r = drive<AllocationPositionsPins>({{1, 0, 4096, 2048}, {0, 5, 0, 0}, {0, 8, 0, 0}}, p, 32768u, 49152u);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], ok(8, 0));
  EXPECT_EQ(r[1], ok(5 * 4096, 5 * 2048));
  EXPECT_TRUE(err(r[2]));  // only 8 positions
}
