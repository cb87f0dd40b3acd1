// Co-simulation of each extension table's pin view (C++ core) against its Verilog twin: the same
// seeded random requests every cycle, every output compared every cycle, for a platform of
// power-of-two widths (sixteen_sm) and one with odd ones (gtx1080: 20 SMs, 640-entry queues).
// An RTL bug injected on the twin's outputs is caught. Plus the TableLink's cycle counting.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "cosim_rig.hpp"
#include "extensions/table_link.hpp"
#include "test_util.hpp"
#include "twins/twin_registry.hpp"

using namespace mpgpu;
using mpgpu::test::cosim;
using mpgpu::test::Result;
using mpgpu::test::StuckError;

namespace {

ExtensionParams platform16() {
  ExtensionParams p;
  p.num_sms = 16;
  p.max_tbs_per_sm = 16;
  p.max_contexts = 32;
  p.registers_per_sm = 65536;
  p.shared_mem_per_sm = 49152;
  return p;
}
ExtensionParams platform20() {  // gtx1080's widths
  ExtensionParams p = platform16();
  p.num_sms = 20;
  p.max_tbs_per_sm = 32;
  p.shared_mem_per_sm = 98304;
  return p;
}

void drive_smst(SmstBus& b, std::mt19937_64& rng, uint64_t, uint32_t n, uint32_t kb) {
  const int r = static_cast<int>(rng() % 100);
  // Mostly legal traffic with a share of illegal requests: TB arrivals and departures dominate.
  b.req_op = r < 30 ? 4 : r < 55 ? 5 : r < 67 ? 1 : r < 77 ? 2 : r < 87 ? 3 : r < 97 ? 0 : 6 + r % 2;
  b.req_valid = rng() % 10 != 0;
  b.req_sm = rng() % (n + 2);                   // n, n + 1: out of range
  b.req_arg = rng() % ((uint64_t{1} << kb) + 2);  // the last two do not fit the KSRT index
}

}  // namespace

TEST(TwinCosim, SmstPinViewMatchesVerilogTwinEveryCycle) {
  for (const ExtensionParams& p : {platform16(), platform20()}) {
    SmstPinView model(1, p);
    auto rtl = make_twin<SmstBus>("smst", "smst", smst_twin_params(p));
    const uint32_t kb = static_cast<uint32_t>(smst_twin_params(p)[2].second);
    uint64_t errors = 0, reserved = 0;
    const Result r = cosim<SmstBus>(
        model, *rtl, 20000, 12345, [&](SmstBus& b, std::mt19937_64& g, uint64_t c) { drive_smst(b, g, c, p.num_sms, kb); },
        [&](const SmstBus& b) { errors += b.resp_valid && b.resp_error, reserved += b.resp_state == 2; });
    EXPECT_EQ(r.mismatches, 0u) << p.num_sms << " SMs: " << r.first;
    EXPECT_GT(errors, 500u);    // illegal requests were exercised
    EXPECT_GT(reserved, 500u);  // and reservations
  }
}

TEST(TwinCosim, KsrtPinViewMatchesVerilogTwinEveryCycle) {
  for (const ExtensionParams& p : {platform16(), platform20()}) {
    KsrtPinView model(1, p);
    auto rtl = make_twin<KsrtBus>("ksrt", "ksrt", ksrt_twin_params(p));
    uint64_t errors = 0, allocated = 0;
    const Result r = cosim<KsrtBus>(
        model, *rtl, 20000, 99,
        [&](KsrtBus& b, std::mt19937_64& g, uint64_t) {
          const int x = static_cast<int>(g() % 100);
          b.req_op = x < 20 ? 1 : x < 30 ? 2 : x < 55 ? 3 : x < 75 ? 4 : x < 90 ? 5 : x < 98 ? 0 : 6;
          b.req_valid = g() % 10 != 0;
          b.req_idx = g() % (p.num_sms + 1);
          const bool wide = g() % 8 == 0;  // mostly values that fit their fields, sometimes one bit too wide
          b.req_grid = static_cast<uint32_t>(g());
          b.req_threads = wide ? 2048 : g() % 1025;
          b.req_regs = wide ? (1u << 17) : g() % 65537;
          b.req_shm = g() % (p.shared_mem_per_sm + 1);
          b.req_param = g() & ((uint64_t{1} << (wide ? 50 : 49)) - 1);
          b.req_context = g() % p.max_contexts;
          b.req_priority = g() % 16;
          b.req_tokens = static_cast<uint16_t>(static_cast<int16_t>(static_cast<int>(g() % 80) - 40));
        },
        [&](const KsrtBus& b) { errors += b.resp_valid && b.resp_error, allocated += b.resp_valid && !b.resp_error && b.resp_entry_valid; });
    EXPECT_EQ(r.mismatches, 0u) << p.num_sms << " SMs: " << r.first;
    EXPECT_GT(errors, 1000u);
    EXPECT_GT(allocated, 1000u);
  }
}

TEST(TwinCosim, PtbqPinViewMatchesVerilogTwinEveryCycleUpToFullQueues) {
  for (const ExtensionParams& p : {platform16(), platform20()}) {
    PtbqPinView model(1, p);
    auto rtl = make_twin<PtbqBus>("ptbq", "ptbq", ptbq_twin_params(p));
    const uint64_t capacity = uint64_t{p.num_sms} * p.max_tbs_per_sm;
    uint64_t errors = 0, full = 0, wrapped = 0, pops = 0;
    const Result r = cosim<PtbqBus>(
        model, *rtl, 40 * capacity, 4242,
        [&](PtbqBus& b, std::mt19937_64& g, uint64_t c) {
          // Queues 0-1 fill to capacity (push-heavy phases), then drain: the heads wrap around.
          const bool fill_phase = (c / (8 * capacity)) % 2 == 0;
          const int x = static_cast<int>(g() % 100);
          b.req_op = x < (fill_phase ? 80 : 20) ? 1 : x < 98 ? 2 : (x < 99 || g() % 64) ? 0 : 3;  // clear is rare
          b.req_valid = g() % 10 != 0;
          b.req_q = g() % 4 == 0 ? g() % (p.num_sms + 1) : g() % 2;
          b.req_tb = static_cast<uint32_t>(g());
          b.req_ptr = static_cast<uint32_t>(g());
          pops += b.req_valid && b.req_op == 2;
        },
        [&](const PtbqBus& b) {
          errors += b.resp_valid && b.resp_error;
          full += b.resp_valid && b.resp_size == capacity;
        });
    wrapped = pops > 2 * capacity;
    EXPECT_EQ(r.mismatches, 0u) << p.num_sms << " SMs: " << r.first;
    EXPECT_GT(errors, 100u);  // pops from empty queues, pushes to full ones, bad indices
    EXPECT_GT(full, 10u);     // full queues seen (capacity N_SM x T_max, not a power of two on gtx1080)
    EXPECT_TRUE(wrapped);
  }
}

TEST(TwinCosim, VictimSetsPinViewMatchesVerilogTwinEveryCycle) {
  for (uint32_t k : {8u, 32u}) {
    DualKernelParams p;
    p.positions = k;
    p.tb_slots = k;
    VictimSetsPinView model(1, p);
    auto rtl = make_twin<VictimSetsBus>("victim_sets", "victim_sets", victim_sets_twin_params(p));
    uint64_t frees = 0, nonempty = 0;
    const Result r = cosim<VictimSetsBus>(
        model, *rtl, 20000, 777,
        [&](VictimSetsBus& b, std::mt19937_64& g, uint64_t) {
          const int x = static_cast<int>(g() % 100);
          b.req_op = x < 55 ? 1 : x < 75 ? 2 : x < 85 ? 3 : 0;  // building sets outweighs clearing
          b.req_valid = g() % 10 != 0;
          b.req_pos = g() % (k + 2);
          b.req_slot = g() % (k + 1);
        },
        [&](const VictimSetsBus& b) { frees += b.resp_has_free, nonempty += b.resp_row != 0; });
    EXPECT_EQ(r.mismatches, 0u) << k << " positions: " << r.first;
    EXPECT_GT(frees, 100u);
    EXPECT_GT(nonempty, 5000u);
  }
}

// Configurations for TBs of every size (zero, tiny, a whole SM, wider than the offsets allow) on
// SMs of gtx1080's and sixteen_sm's sizes, and reads in and past the positions configured.
TEST(TwinCosim, AllocationPositionsPinViewMatchesVerilogTwinEveryCycleAndABugIsCaught) {
  for (const auto& [k, offset_bits] : {std::pair{16u, 16u}, std::pair{32u, 17u}}) {
    DualKernelParams p;
    p.positions = k;
    p.offset_bits = offset_bits;
    AllocationPositionsPinView model(1, p);
    auto rtl = make_twin<AllocationPositionsBus>("allocation_positions", "allocation_positions",
                                                 allocation_positions_twin_params(p));
    uint64_t configured = 0, refused = 0, offsets = 0;
    auto drive = [&](AllocationPositionsBus& b, std::mt19937_64& g, uint64_t) {
      b.req_op = g() % 5 == 0 ? 1 : g() % 40 == 0 ? 2 : 0;  // 2: no such operation
      b.req_valid = g() % 10 != 0;
      b.req_pos = g() % (k + 2);
      b.req_regs = g() % 2 ? 65536 : 32768;
      b.req_shm = g() % 2 ? 98304 : 49152;
      const uint64_t sizes[] = {0, 1, 256, 2048, 4096, 16384, 65536, 98304, 1u << 20};
      b.req_tb_regs = sizes[g() % 9];
      b.req_tb_shm = sizes[g() % 9];
    };
    const Result r = cosim<AllocationPositionsBus>(model, *rtl, 20000, 41, drive, [&](const AllocationPositionsBus& b) {
      configured += b.resp_valid && !b.resp_error && b.resp_count > 1;
      refused += b.resp_valid && b.resp_error;
      offsets += b.resp_valid && !b.resp_error && b.resp_reg_offset > 0 && b.resp_shm_offset > 0;
    });
    EXPECT_EQ(r.mismatches, 0u) << k << " positions: " << r.first;
    EXPECT_GT(configured, 1000u);
    EXPECT_GT(refused, 1000u);  // reads past the count, offsets too wide
    EXPECT_GT(offsets, 100u);
    mpgpu::test::expect_injected_bug_caught<AllocationPositionsBus, AllocationPositionsPinView>(
        p, "allocation_positions", allocation_positions_twin_params(p), 41, drive);
  }
}

TEST(TwinCosim, CommandBuffersAndActiveQueuePinViewsMatchTheirVerilogTwinsEveryCycle) {
  for (const ExtensionParams& p : {platform16(), platform20()}) {
    CommandBuffersPinView cmd(1, p);
    auto cmd_rtl = make_twin<CommandBuffersBus>("command_buffers", "command_buffers", command_buffers_twin_params(p));
    uint64_t taken = 0, refused = 0;
    const Result c = cosim<CommandBuffersBus>(
        cmd, *cmd_rtl, 20000, 5,
        [&](CommandBuffersBus& b, std::mt19937_64& g, uint64_t) {
          b.req_op = g() % 4;  // 3: no such operation
          b.req_valid = g() % 10 != 0;
          b.req_ctx = g() % 4 == 0 ? g() % (p.max_contexts + 2) : g() % 3;
          b.req_launch = static_cast<uint32_t>(g());
        },
        [&](const CommandBuffersBus& b) {
          taken += b.resp_valid && !b.resp_error && !b.resp_occupied && b.resp_launch;
          refused += b.resp_valid && b.resp_error;
        });
    EXPECT_EQ(c.mismatches, 0u) << p.num_sms << " SMs: " << c.first;
    EXPECT_GT(taken, 1000u);
    EXPECT_GT(refused, 1000u);

    ActiveQueuePinView aq(1, p);
    auto aq_rtl = make_twin<ActiveQueueBus>("active_queue", "active_queue", active_queue_twin_params(p));
    uint64_t removed = 0, full = 0;
    const Result a = cosim<ActiveQueueBus>(
        aq, *aq_rtl, 20000, 6,
        [&](ActiveQueueBus& b, std::mt19937_64& g, uint64_t c) {
          const bool fill = (c / 500) % 2 == 0;
          const int x = static_cast<int>(g() % 100);
          b.req_op = x < (fill ? 60 : 20) ? 1 : x < 80 ? 2 : x < 97 ? 0 : 3;
          b.req_valid = g() % 10 != 0;
          b.req_pos = g() % (p.num_sms + 2);
          b.req_k = g() % ((uint64_t{1} << bits_for(p.num_sms)) + 2);  // the last two are too wide
        },
        [&](const ActiveQueueBus& b) {
          removed += b.resp_valid && !b.resp_error && b.resp_size > 0;
          full += b.resp_valid && b.resp_size == p.num_sms;
        });
    EXPECT_EQ(a.mismatches, 0u) << p.num_sms << " SMs: " << a.first;
    EXPECT_GT(removed, 1000u);
    EXPECT_GT(full, 50u);
  }
}

TEST(TwinCosim, PreemptingStatusPinViewMatchesVerilogTwinEveryCycle) {
  for (uint32_t k : {8u, 32u}) {
    DualKernelParams p;
    p.positions = k;
    p.tb_slots = k;
    PreemptingStatusPinView model(1, p);
    auto rtl = make_twin<PreemptingStatusBus>("preempting_status", "preempting_status", preempting_status_twin_params(p));
    uint64_t allocated = 0, refused = 0, kernels = 0;
    const Result r = cosim<PreemptingStatusBus>(
        model, *rtl, 20000, 31,
        [&](PreemptingStatusBus& b, std::mt19937_64& g, uint64_t) {
          const int x = static_cast<int>(g() % 100);
          b.req_op = x < 45 ? 1 : x < 80 ? 2 : x < 95 ? 0 : 3;
          b.req_valid = g() % 10 != 0;
          b.req_pos = g() % (k + 2);
          b.req_slot = g() % (2 * k + 1);  // half too wide for the slot field
          b.req_pid = g() % (1u << 16);     // half too wide for 15 bits
          b.req_kernel = g() % 40;          // some too wide for 5 bits
        },
        [&](const PreemptingStatusBus& b) {
          allocated += b.resp_valid && b.resp_allocated;
          refused += b.resp_valid && b.resp_error;
          kernels += b.resp_pid != 0;
        });
    EXPECT_EQ(r.mismatches, 0u) << k << " positions: " << r.first;
    EXPECT_GT(allocated, 1000u);
    EXPECT_GT(refused, 1000u);
    EXPECT_GT(kernels, 1000u);
  }
}

// The comparison can fail: the SMST twin with its error output stuck at 1 after cycle 5000.
TEST(TwinCosim, AnRtlBugInjectedOnTheTwinIsCaught) {
  const ExtensionParams p = platform16();
  SmstPinView model(1, p);
  StuckError<SmstBus> rtl(make_twin<SmstBus>("smst", "smst", smst_twin_params(p)), 5000);
  const Result r = cosim<SmstBus>(
      model, rtl, 8000, 12345, [&](SmstBus& b, std::mt19937_64& g, uint64_t c) { drive_smst(b, g, c, 16, 4); },
      [](const SmstBus&) {});
  EXPECT_GT(r.mismatches, 1000u);
  EXPECT_EQ(r.first.rfind("cycle 50", 0), 0u) << r.first;  // nothing before the bug
  EXPECT_NE(r.first.find("resp_error 1 vs 0"), std::string::npos) << r.first;
}

// What the block scheduler does after every linked update: a twin that answers differently from
// the core stops the run, naming the table, the update, the time and the outputs.
TEST(TableLink, AResponseThatDiffersFromTheCoreStopsTheRun) {
  const ExtensionParams p = platform16();
  TableLink<SmstBus> good("smst", ExtensionImpl::verilog, 1, make_twin<SmstBus>("smst", "smst", smst_twin_params(p)));
  TableLink<SmstBus> bad("smst", ExtensionImpl::verilog, 1,
                         std::make_unique<StuckError<SmstBus>>(make_twin<SmstBus>("smst", "smst", smst_twin_params(p)), 1));
  Smst core(p);
  core.set_running(3, 2);
  SmstBus rq;
  rq.req_op = SmstPinLogic::kSetRunning, rq.req_sm = 3, rq.req_arg = 2;
  const SmstBus want = SmstPinLogic::expected(core, SmstPinLogic::kSetRunning, 3, 2);
  good.access(rq, 7000);
  EXPECT_NO_THROW(check_response(good, want, "op 1 on SM 3 (arg 2)", 7000));
  bad.access(rq, 7000);  // its first edge is right
  EXPECT_NO_THROW(check_response(bad, want, "op 1 on SM 3 (arg 2)", 7000));
  bad.access(rq, 8000);  // from the second on, its error output is stuck at 1
  try {
    check_response(bad, want, "op 1 on SM 3 (arg 2)", 8000);
    ADD_FAILURE() << "no error";
  } catch (const SimError& e) {
    EXPECT_EQ(std::string(e.what()), "smst (verilog) differs from the C++ core after op 1 on SM 3 (arg 2) at 8000 ps: resp_error 1 vs 0");
  }
}

// The link counts the cycles up to resp_valid: the pin view's pipeline depth, or the RTL's own
// timing (rtl/examples/smst_serial_search.v: 2 + i cycles when SM i is the first idle one).
TEST(TableLink, CountsTheCyclesUntilTheResponse) {
  const ExtensionParams p = platform16();
  TableLink<SmstBus> core("smst", ExtensionImpl::core, 4, nullptr);
  EXPECT_EQ(core.access(SmstBus{}, 0), 4u);
  TableLink<SmstBus> pins("smst", ExtensionImpl::pins, 3, std::make_unique<SmstPinView>(3, p));
  EXPECT_EQ(pins.access(SmstBus{}, 0), 3u);
  TableLink<SmstBus> one("smst", ExtensionImpl::verilog, 1, make_twin<SmstBus>("smst", "smst", smst_twin_params(p)));
  TableLink<SmstBus> serial("smst", ExtensionImpl::verilog, 1, make_twin<SmstBus>("smst", "smst_serial_search", smst_twin_params(p)));
  auto set_running = [](uint32_t sm) {
    SmstBus b;
    b.req_op = SmstPinLogic::kSetRunning, b.req_sm = sm, b.req_arg = 1;
    return b;
  };
  EXPECT_EQ(serial.access(SmstBus{}, 0), 2u);  // SM 0 idle
  for (uint32_t sm = 0; sm < 5; ++sm) {
    EXPECT_EQ(one.access(set_running(sm), 0), 1u);
    EXPECT_EQ(serial.access(set_running(sm), 0), 2u + sm + 1) << sm;  // SMs 0..sm busy: SM sm+1 is the first idle
    EXPECT_EQ(output_differences(serial.pins(), one.pins()), "");
    EXPECT_EQ(serial.pins().resp_idle, sm + 1);
  }
  for (uint32_t sm = 5; sm < 16; ++sm) serial.access(set_running(sm), 0);
  EXPECT_EQ(serial.access(SmstBus{}, 0), 1u + 16);  // none idle: the whole table
  EXPECT_EQ(serial.pins().resp_has_idle, 0u);
  EXPECT_EQ(serial.accesses(), 18u);
}

TEST(TableLink, VcdHoldsEachPinInTimeOrder) {
  test::TempDir d;
  VcdWriter w;
  TableLink<SmstBus> l("smst", ExtensionImpl::pins, 2, std::make_unique<SmstPinView>(2, platform16()));
  l.trace(w, 1000);
  SmstBus b;
  b.req_op = SmstPinLogic::kSetRunning, b.req_sm = 3, b.req_arg = 2;
  l.access(b, 50000);
  l.access(SmstBus{}, 10000);  // an owner running ahead: an earlier time arrives later
  const std::string path = (d.path / "x.vcd").string();
  w.write(path);
  const std::string vcd = test::read_file(path);
  EXPECT_NE(vcd.find("$scope module smst $end"), std::string::npos);
  EXPECT_NE(vcd.find("$var wire 3 \" req_op $end"), std::string::npos) << vcd.substr(0, 400);
  EXPECT_LT(vcd.find("#10000"), vcd.find("#50000"));
  EXPECT_NE(vcd.find("#52000"), std::string::npos);  // the response two cycles after the request
}

// The parameter sets a platform needs come from the cores' layouts: sixteen_sm's are those the
// twins were first written for.
TEST(TwinParams, FollowTheCoresFieldLayouts) {
  EXPECT_EQ(params_text(smst_twin_params(platform16())), "N=16 SMB=4 KB=4 TBB=5");
  EXPECT_EQ(params_text(ptbq_twin_params(platform16())), "Q=16 C=256 CB=8 TBB=32 PB=32");
  EXPECT_EQ(params_text(ptbq_twin_params(platform20())), "Q=20 C=640 CB=10 TBB=32 PB=32");
  EXPECT_EQ(params_text(smst_twin_params(platform20())), "N=20 SMB=5 KB=5 TBB=6");
  EXPECT_THROW(make_twin<SmstBus>("smst", "smst", {{"N", 3}, {"SMB", 2}, {"KB", 2}, {"TBB", 2}}), SimError);
}

// rtl/twin_params.cmake covers every bundled platform (rewrite it with scripts/gen_twin_params.sh).
TEST(TwinParams, BuiltForEveryBundledPlatform) {
  auto r = test::run_mpgpu("twins --platform " + test::source_path("platforms/*.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, test::read_file(test::source_path("rtl/twin_params.cmake")))
      << "rtl/twin_params.cmake is stale: run scripts/gen_twin_params.sh and rebuild";
}
