// Co-simulation: each extension's pin view (C++ core) and its Verilog twin (verilated) get the
// same seeded random stimulus for thousands of cycles; every output is compared every cycle.
#include <gtest/gtest.h>
#include <systemc>

#include <random>
#include <string>

#include "Vksrt.h"
#include "Vptbq.h"
#include "extensions/ksrt_pins.hpp"
#include "Vsmst.h"
#include "extensions/ptbq_pins.hpp"
#include "Vvictim_sets.h"
#include "extensions/victim_sets_pins.hpp"
#include "extensions/smst_pins.hpp"

using namespace mpgpu;
using sc_core::sc_signal;
using sc_dt::sc_uint;

namespace {

// Clock, reset and the per-cycle loop shared by the benches: on every falling edge, compare what
// model and twin registered at the last rising edge, count coverage, then drive the next request.
struct CosimBench : sc_core::sc_module {
  SC_HAS_PROCESS(CosimBench);
  sc_core::sc_clock clk{"clk", 1, sc_core::SC_NS};
  sc_signal<bool> rst;
  uint64_t cycles = 0, compared = 0, mismatches = 0;
  std::mt19937_64 rng;

  CosimBench(sc_core::sc_module_name n, uint64_t seed) : sc_module(n), rng(seed) {
    SC_METHOD(step);
    sensitive << clk.negedge_event();
    dont_initialize();
  }
  virtual bool outputs_match() const = 0;
  virtual std::string describe() const = 0;  // both sides' outputs, for a mismatch report
  virtual void observe() = 0;                 // coverage counters
  virtual void drive() = 0;                   // the next request

  void step() {
    ++cycles;
    if (cycles > 3) {
      ++compared;
      if (!outputs_match() && mismatches++ < 5) ADD_FAILURE() << "cycle " << cycles << ": " << describe();
      observe();
    }
    rst.write(cycles <= 2);
    drive();
  }
};

std::string both(const std::string& model, const std::string& rtl) { return "model " + model + " | rtl " + rtl; }

struct SmstOutputs {
  sc_signal<bool> valid, error, has_idle;
  sc_signal<sc_uint<2>> state;
  sc_signal<sc_uint<8>> running, next, tbs, idle;
  template <typename M>
  void bind(M& m) {
    m.resp_valid(valid);
    m.resp_error(error);
    m.resp_has_idle(has_idle);
    m.resp_state(state);
    m.resp_running(running);
    m.resp_next(next);
    m.resp_tbs(tbs);
    m.resp_idle(idle);
  }
  bool operator==(const SmstOutputs& o) const {
    return valid.read() == o.valid.read() && error.read() == o.error.read() && has_idle.read() == o.has_idle.read() &&
           state.read() == o.state.read() && running.read() == o.running.read() && next.read() == o.next.read() &&
           tbs.read() == o.tbs.read() && idle.read() == o.idle.read();
  }
  std::string str() const {
    return "state " + std::to_string(state.read().to_uint()) + " tbs " + std::to_string(tbs.read().to_uint()) + " err " +
           std::to_string(error.read()) + " idle " + std::to_string(idle.read().to_uint());
  }
};

struct SmstBench : CosimBench {
  sc_signal<bool> req_valid;
  sc_signal<sc_uint<3>> req_op;
  sc_signal<sc_uint<8>> req_sm, req_arg;
  SmstOutputs model_out, rtl_out;
  SmstPins model;
  Vsmst rtl;
  uint64_t errors = 0, reserved_seen = 0;

  SmstBench(sc_core::sc_module_name n, const ExtensionParams& p) : CosimBench(n, 12345), model("model", p), rtl("rtl") {
    model.clk(clk), model.rst(rst), model.req_valid(req_valid), model.req_op(req_op), model.req_sm(req_sm), model.req_arg(req_arg);
    rtl.clk(clk), rtl.rst(rst), rtl.req_valid(req_valid), rtl.req_op(req_op), rtl.req_sm(req_sm), rtl.req_arg(req_arg);
    model_out.bind(model);
    rtl_out.bind(rtl);
  }
  bool outputs_match() const override { return model_out == rtl_out; }
  std::string describe() const override { return both(model_out.str(), rtl_out.str()); }
  void observe() override {
    errors += model_out.error.read();
    reserved_seen += model_out.state.read() == 2;
  }
  void drive() override {
    std::uniform_int_distribution<int> pct(0, 99);
    const int r = pct(rng);
    // Mostly legal traffic with a share of illegal requests: TB arrivals and departures dominate.
    const unsigned op = r < 30 ? SmstPins::kTbStarted : r < 55 ? SmstPins::kTbLeft : r < 67 ? SmstPins::kSetRunning
                      : r < 77 ? SmstPins::kReserve : r < 87 ? SmstPins::kSetIdle : r < 97 ? unsigned{SmstPins::kRead} : 6u + r % 2;
    req_valid.write(pct(rng) < 90);
    req_op.write(op);
    req_sm.write(rng() % 16);
    req_arg.write(rng() % 18);  // 16 and 17 do not fit the 4-bit KSRT index
  }
};

}  // namespace

TEST(CoSim, SmstPinViewMatchesVerilogTwinEveryCycle) {
  ExtensionParams p;
  p.num_sms = 16;
  p.max_tbs_per_sm = 16;
  SmstBench bench("bench", p);
  sc_core::sc_start(20000, sc_core::SC_NS);
  EXPECT_EQ(bench.mismatches, 0u);
  EXPECT_GT(bench.compared, 19000u);
  EXPECT_GT(bench.errors, 500u);         // illegal requests were exercised
  EXPECT_GT(bench.reserved_seen, 500u);  // and reservations
}

namespace {

struct VictimSetsBench : CosimBench {
  sc_signal<bool> req_valid;
  sc_signal<sc_uint<2>> req_op;
  sc_signal<sc_uint<8>> req_pos, req_slot;
  sc_signal<bool> m_valid, m_error, m_has_free, r_valid, r_error, r_has_free;
  sc_signal<sc_uint<64>> m_row, r_row;
  sc_signal<sc_uint<8>> m_free, r_free;
  VictimSetsPins model;
  Vvictim_sets rtl;
  uint64_t frees = 0, nonempty = 0;

  VictimSetsBench(sc_core::sc_module_name n, const DualKernelParams& p) : CosimBench(n, 777), model("model", p), rtl("rtl") {
    model.clk(clk), model.rst(rst), model.req_valid(req_valid), model.req_op(req_op), model.req_pos(req_pos), model.req_slot(req_slot);
    model.resp_valid(m_valid), model.resp_error(m_error), model.resp_has_free(m_has_free), model.resp_row(m_row), model.resp_free(m_free);
    rtl.clk(clk), rtl.rst(rst), rtl.req_valid(req_valid), rtl.req_op(req_op), rtl.req_pos(req_pos), rtl.req_slot(req_slot);
    rtl.resp_valid(r_valid), rtl.resp_error(r_error), rtl.resp_has_free(r_has_free), rtl.resp_row(r_row), rtl.resp_free(r_free);
  }
  bool outputs_match() const override {
    return m_valid.read() == r_valid.read() && m_error.read() == r_error.read() && m_has_free.read() == r_has_free.read() &&
           m_row.read() == r_row.read() && m_free.read() == r_free.read();
  }
  std::string describe() const override {
    auto side = [](auto& row, auto& free, auto& err) {
      return "row " + row.read().to_string(sc_dt::SC_HEX) + " free " + std::to_string(free.read().to_uint()) + " err " +
             std::to_string(err.read());
    };
    return both(side(m_row, m_free, m_error), side(r_row, r_free, r_error));
  }
  void observe() override {
    frees += m_has_free.read();
    nonempty += m_row.read() != 0;
  }
  void drive() override {
    const int r = static_cast<int>(rng() % 100);
    // Building sets (set) outweighs clearing, so rows fill up and free positions come and go.
    req_op.write(r < 55 ? 1 : r < 75 ? 2 : r < 85 ? 3 : 0);
    req_valid.write(rng() % 10 != 0);
    req_pos.write(rng() % 18);   // 16, 17: out of range
    req_slot.write(rng() % 17);  // 16: out of range
  }
};

}  // namespace

TEST(CoSim, CandidateVictimSetsPinViewMatchesVerilogTwinEveryCycle) {
  DualKernelParams p;
  p.positions = 16;
  p.tb_slots = 16;
  VictimSetsBench bench("bench", p);
  sc_core::sc_start(20000, sc_core::SC_NS);
  EXPECT_EQ(bench.mismatches, 0u);
  EXPECT_GT(bench.compared, 19000u);
  EXPECT_GT(bench.frees, 100u);
  EXPECT_GT(bench.nonempty, 5000u);
}

namespace {

struct PtbqBench : CosimBench {
  sc_signal<bool> req_valid;
  sc_signal<sc_uint<2>> req_op;
  sc_signal<sc_uint<8>> req_q;
  sc_signal<sc_uint<32>> req_tb, req_ptr;
  sc_signal<bool> m_valid, m_error, m_empty, r_valid, r_error, r_empty;
  sc_signal<sc_uint<32>> m_tb, m_ptr, r_tb, r_ptr;
  sc_signal<sc_uint<16>> m_size, r_size;
  PtbqPins model;
  Vptbq rtl;
  uint64_t errors = 0, deep = 0, max_size = 0;

  PtbqBench(sc_core::sc_module_name n, const ExtensionParams& p) : CosimBench(n, 4242), model("model", p), rtl("rtl") {
    model.clk(clk), model.rst(rst), model.req_valid(req_valid), model.req_op(req_op), model.req_q(req_q);
    model.req_tb(req_tb), model.req_ptr(req_ptr);
    model.resp_valid(m_valid), model.resp_error(m_error), model.resp_empty(m_empty), model.resp_tb(m_tb);
    model.resp_ptr(m_ptr), model.resp_size(m_size);
    rtl.clk(clk), rtl.rst(rst), rtl.req_valid(req_valid), rtl.req_op(req_op), rtl.req_q(req_q);
    rtl.req_tb(req_tb), rtl.req_ptr(req_ptr);
    rtl.resp_valid(r_valid), rtl.resp_error(r_error), rtl.resp_empty(r_empty), rtl.resp_tb(r_tb);
    rtl.resp_ptr(r_ptr), rtl.resp_size(r_size);
  }
  bool outputs_match() const override {
    return m_valid.read() == r_valid.read() && m_error.read() == r_error.read() && m_empty.read() == r_empty.read() &&
           m_tb.read() == r_tb.read() && m_ptr.read() == r_ptr.read() && m_size.read() == r_size.read();
  }
  std::string describe() const override {
    auto side = [](auto& tb, auto& size, auto& err) {
      return "tb " + std::to_string(tb.read().to_uint()) + " size " + std::to_string(size.read().to_uint()) + " err " +
             std::to_string(err.read());
    };
    return both(side(m_tb, m_size, m_error), side(r_tb, r_size, r_error));
  }
  void observe() override {
    errors += m_error.read();
    deep += m_size.read() > 200;
    max_size = std::max<uint64_t>(max_size, m_size.read());
  }
  void drive() override {
    const int r = static_cast<int>(rng() % 100);
    // Queues 0-1 fill to capacity (push-heavy phases), the rest see mixed traffic.
    const bool fill_phase = (cycles / 3000) % 2 == 0;
    const uint32_t q = rng() % 4 == 0 ? rng() % 17 : rng() % 2;
    req_op.write(r < (fill_phase ? 70 : 35) ? 1 : r < 80 ? 2 : (r < 99 || rng() % 16) ? 0 : 3);  // clear is rare
    req_valid.write(rng() % 10 != 0);
    req_q.write(q);
    req_tb.write(static_cast<uint32_t>(rng()));
    req_ptr.write(static_cast<uint32_t>(rng()));
  }
};

}  // namespace

TEST(CoSim, PtbqPinViewMatchesVerilogTwinEveryCycle) {
  ExtensionParams p;
  p.num_sms = 16;
  p.max_tbs_per_sm = 16;
  PtbqBench bench("bench", p);
  sc_core::sc_start(30000, sc_core::SC_NS);
  EXPECT_EQ(bench.mismatches, 0u);
  EXPECT_GT(bench.compared, 29000u);
  EXPECT_GT(bench.errors, 100u);  // pops from empty queues, pushes to full ones, bad indices
  EXPECT_GT(bench.deep, 100u) << "largest queue seen: " << bench.max_size;  // near capacity (256)
}

namespace {

struct KsrtBench : CosimBench {
  sc_signal<bool> req_valid;
  sc_signal<sc_uint<3>> req_op;
  sc_signal<sc_uint<8>> req_idx, req_context, req_priority;
  sc_signal<sc_uint<32>> req_grid, req_regs, req_shm;
  sc_signal<sc_uint<16>> req_threads, req_tokens;
  sc_signal<sc_uint<64>> req_param;
  struct Out {
    sc_signal<bool> valid, error, entry_valid;
    sc_signal<sc_uint<8>> idx, context, priority;
    sc_signal<sc_uint<32>> grid, regs, shm, next_tb, tbs_done;
    sc_signal<sc_uint<16>> threads, tokens;
    sc_signal<sc_uint<64>> param;
    template <typename M>
    void bind(M& m) {
      m.resp_valid(valid), m.resp_error(error), m.resp_entry_valid(entry_valid), m.resp_idx(idx);
      m.resp_context(context), m.resp_priority(priority), m.resp_grid(grid), m.resp_regs(regs), m.resp_shm(shm);
      m.resp_next_tb(next_tb), m.resp_tbs_done(tbs_done), m.resp_threads(threads), m.resp_tokens(tokens);
      m.resp_param(param);
    }
    bool operator==(const Out& o) const {
      return valid.read() == o.valid.read() && error.read() == o.error.read() && entry_valid.read() == o.entry_valid.read() &&
             idx.read() == o.idx.read() && context.read() == o.context.read() && priority.read() == o.priority.read() &&
             grid.read() == o.grid.read() && regs.read() == o.regs.read() && shm.read() == o.shm.read() &&
             next_tb.read() == o.next_tb.read() && tbs_done.read() == o.tbs_done.read() &&
             threads.read() == o.threads.read() && tokens.read() == o.tokens.read() && param.read() == o.param.read();
    }
  } m_out, r_out;
  KsrtPins model;
  Vksrt rtl;
  uint64_t errors = 0, allocated = 0;

  template <typename M>
  void bind_inputs(M& m) {
    m.clk(clk), m.rst(rst), m.req_valid(req_valid), m.req_op(req_op), m.req_idx(req_idx), m.req_context(req_context);
    m.req_priority(req_priority), m.req_grid(req_grid), m.req_regs(req_regs), m.req_shm(req_shm);
    m.req_threads(req_threads), m.req_tokens(req_tokens), m.req_param(req_param);
  }
  KsrtBench(sc_core::sc_module_name n, const ExtensionParams& p) : CosimBench(n, 99), model("model", p), rtl("rtl") {
    bind_inputs(model);
    bind_inputs(rtl);
    m_out.bind(model);
    r_out.bind(rtl);
  }
  bool outputs_match() const override { return m_out == r_out; }
  std::string describe() const override {
    auto side = [](const Out& o) {
      return "idx " + std::to_string(o.idx.read().to_uint()) + " err " + std::to_string(o.error.read()) + " next " +
             std::to_string(o.next_tb.read().to_uint()) + " tok " + std::to_string(o.tokens.read().to_uint());
    };
    return both(side(m_out), side(r_out));
  }
  void observe() override {
    errors += m_out.error.read();
    allocated += !m_out.error.read() && m_out.entry_valid.read();
  }
  void drive() override {
    const int r = static_cast<int>(rng() % 100);
    req_op.write(r < 20 ? 1 : r < 30 ? 2 : r < 55 ? 3 : r < 75 ? 4 : r < 90 ? 5 : r < 98 ? 0 : 6);
    req_valid.write(rng() % 10 != 0);
    req_idx.write(rng() % 17);
    // Mostly values that fit their fields, sometimes one bit too wide.
    const bool wide = rng() % 8 == 0;
    req_grid.write(static_cast<uint32_t>(rng()));
    req_threads.write(wide ? 2048 : rng() % 1025);
    req_regs.write(wide ? (1u << 17) : rng() % 65537);
    req_shm.write(rng() % 49153);
    req_param.write(rng() & ((uint64_t{1} << (wide ? 50 : 49)) - 1));
    req_context.write(rng() % 8);
    req_priority.write(rng() % 16);
    req_tokens.write(static_cast<uint16_t>(static_cast<int16_t>(static_cast<int>(rng() % 80) - 40)));  // +-32 fits
  }
};

}  // namespace

TEST(CoSim, KsrtPinViewMatchesVerilogTwinEveryCycle) {
  ExtensionParams p;
  p.num_sms = 16;
  p.max_tbs_per_sm = 16;
  p.max_contexts = 8;
  KsrtBench bench("bench", p);
  sc_core::sc_start(20000, sc_core::SC_NS);
  EXPECT_EQ(bench.mismatches, 0u);
  EXPECT_GT(bench.compared, 19000u);
  EXPECT_GT(bench.errors, 1000u);
  EXPECT_GT(bench.allocated, 1000u);
}

// One definition of the fields: the parameters each twin is verilated with (CMake) equal the
// widths the C++ cores derive for the co-simulated platform (16 SMs, 16 TBs per SM, 8 contexts).
TEST(RtlParameters, MatchTheCoresFieldLayouts) {
  ExtensionParams p;
  p.num_sms = 16;
  p.max_tbs_per_sm = 16;
  p.max_contexts = 8;
  const FieldLayout smst = Smst::layout(p), ksrt = Ksrt::layout(p), ptbq = Ptbq::layout(p);
  EXPECT_EQ(RTL_SMST_N, p.num_sms);
  EXPECT_EQ(RTL_SMST_KB, field_bits(smst, "running"));
  EXPECT_EQ(RTL_SMST_KB, field_bits(smst, "next"));
  EXPECT_EQ(RTL_SMST_TBB, field_bits(smst, "running_tbs"));
  EXPECT_EQ(RTL_KSRT_N, p.num_sms);
  EXPECT_EQ(RTL_KSRT_GB, field_bits(ksrt, "grid_tbs"));
  EXPECT_EQ(RTL_KSRT_GB, field_bits(ksrt, "next_tb"));
  EXPECT_EQ(RTL_KSRT_THB, field_bits(ksrt, "threads_per_tb"));
  EXPECT_EQ(RTL_KSRT_RB, field_bits(ksrt, "registers_per_tb"));
  EXPECT_EQ(RTL_KSRT_SB, field_bits(ksrt, "shared_mem_per_tb"));
  EXPECT_EQ(RTL_KSRT_PB, field_bits(ksrt, "param_pointer"));
  EXPECT_EQ(RTL_KSRT_CB, field_bits(ksrt, "context"));
  EXPECT_EQ(RTL_KSRT_PRB, field_bits(ksrt, "priority"));
  EXPECT_EQ(RTL_KSRT_TKB, field_bits(ksrt, "tokens"));
  Ptbq q(p);
  EXPECT_EQ(RTL_PTBQ_Q, q.queues());
  EXPECT_EQ(RTL_PTBQ_C, q.capacity());
  EXPECT_EQ(uint32_t{1} << RTL_PTBQ_CB, q.capacity());
  EXPECT_EQ(RTL_PTBQ_TBB, field_bits(ptbq, "tb"));
  EXPECT_EQ(RTL_PTBQ_PB, field_bits(ptbq, "save_pointer"));
  DualKernelParams d;
  d.positions = 16;
  d.tb_slots = p.max_tbs_per_sm;
  EXPECT_EQ(RTL_VICTIM_SETS_K, d.positions);
  EXPECT_EQ(RTL_VICTIM_SETS_P, field_bits(CandidateVictimSets::layout(d), "tb_slots"));
}
