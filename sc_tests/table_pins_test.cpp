// Pin views over the generic request/response interface: scripted requests, one per cycle, and
// the registered responses (latency 1 cycle) checked against known answers.
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

TEST(TablePins, CommandBuffers) {
  ExtensionParams p;
  p.max_contexts = 4;
  auto r = drive<CommandBuffersPins>({{1, 2, 77, 0}, {1, 2, 78, 0}, {0, 2, 0, 0}, {2, 2, 0, 0}, {2, 2, 0, 0}, {0, 9, 0, 0}}, p);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0], ok(1, 77));
  EXPECT_TRUE(err(r[1]));  // one launch per context
  EXPECT_EQ(r[2], ok(1, 77));
  EXPECT_EQ(r[3], ok(0, 77));
  EXPECT_TRUE(err(r[4]));  // empty
  EXPECT_TRUE(err(r[5]));  // no context 9
}

TEST(TablePins, ActiveQueue) {
  ExtensionParams p;
  p.num_sms = 2;
  // KSRT indices are 1 bit wide with 2 SMs.
  auto r = drive<ActiveQueuePins>({{1, 0, 1, 0}, {1, 0, 0, 0}, {1, 0, 1, 0}, {0, 1, 0, 0}, {2, 0, 1, 0}, {0, 0, 0, 0}, {1, 0, 2, 0}}, p);
  ASSERT_EQ(r.size(), 7u);
  EXPECT_TRUE(err(r[2]));  // N_SM = 2 entries: full
  EXPECT_EQ(r[3], ok(2, 0));
  EXPECT_EQ(r[5], ok(1, 0));  // oldest is now KSRT entry 0
  EXPECT_TRUE(err(r[6]));     // index 2 does not fit the field
}

TEST(TablePins, ReplayQueue) {
  ReplayQueueParams p;
  p.entries = 2;
  auto r = drive<ReplayQueuePins>({{1, 4, 0x200, 9}, {1, 4, 0x100, 8}, {1, 5, 0x300, 1}, {3, 4, 0, 0}, {2, 4, 0, 8}, {3, 4, 0, 0}}, p);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_TRUE(err(r[2]));          // full
  EXPECT_EQ(r[3], ok(2, 0x100));   // replay in program order: seq 8 first
  EXPECT_EQ(r[5], ok(1, 0x200));
}

TEST(TablePins, OperandLog) {
  OperandLogParams p;  // 32 entries
  auto r = drive<OperandLogPins>({{1, 0, 16, 0}, {2, 3, 1, 0}, {2, 3, 0, 0}, {3, 3, 1, 0}, {2, 3, 0, 0}}, p);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], ok(0, 2));  // 16 TBs: 2 entries each
  EXPECT_EQ(r[1], ok(2, 2));  // a store takes both
  EXPECT_TRUE(err(r[2]));
  EXPECT_EQ(r[4], ok(1, 2));
}

TEST(TablePins, RunningTbStatus) {
  DualKernelParams p;
  auto r = drive<RunningTbStatusPins>({{1, 3, 1000, 1}, {2, 3, 250, 0}, {3, 3, 0, 0}, {0, 3, 0, 0}}, p);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], ok(0, 1000 | (uint64_t{1} << 63)));
  EXPECT_EQ(r[1], ok(250, 1000 | (uint64_t{1} << 63)));
  EXPECT_EQ(r[3], ok(250, 1000));  // flush bit cleared
}

TEST(TablePins, PreemptingStatus) {
  DualKernelParams p;
  auto r = drive<PreemptingStatusPins>({{3, 0, 4242, 3}, {1, 2, 7, 0}, {1, 2, 8, 0}, {0, 2, 0, 0}, {2, 2, 0, 0}, {0, 2, 0, 0}}, p);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0], ok(4242, 3));
  EXPECT_TRUE(err(r[2]));  // already allocated
  EXPECT_EQ(r[3], ok(1, 7));
  EXPECT_EQ(r[5], ok(0, 7));
}

TEST(TablePins, AllocationPositions) {
  DualKernelParams p;
  auto r = drive<AllocationPositionsPins>({{1, 0, 4096, 2048}, {0, 5, 0, 0}, {0, 8, 0, 0}}, p, 32768u, 49152u);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], ok(8, 0));
  EXPECT_EQ(r[1], ok(5 * 4096, 5 * 2048));
  EXPECT_TRUE(err(r[2]));  // only 8 positions
}
