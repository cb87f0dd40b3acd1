// The L2 slice's misses, merges and hits with a fixed-latency memory behind it: a request to a
// line whose fill is on its way merges into it (also once another miss took the line's way),
// and one that starts after the fill hits.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "common/address_map.hpp"
#include "common/clock.hpp"
#include "l2/l2_slice.hpp"
#include "test_initiator.hpp"

using namespace mpgpu;

namespace {

// Answers every request 1000 ns after it arrives and records the addresses read.
struct SlowMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<SlowMemory> in;
  std::vector<uint64_t> reads;
  explicit SlowMemory(sc_core::sc_module_name n) : sc_module(n), in("in") {
    in.register_b_transport(this, &SlowMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (gp.is_read()) reads.push_back(gp.get_address());
    delay += sc_core::sc_time(1000, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// One slice at 1 GHz (1 cycle = 1 ns), 10-cycle hits, one set of `ways` ways, 128 B lines.
struct L2Rig {
  AddressMap map;
  std::unique_ptr<L2Slice> l2;
  std::unique_ptr<SlowMemory> mem;
  std::unique_ptr<test::TestInitiator> src;

  explicit L2Rig(uint32_t ways) : map([] {
      AddressMapParams a;
      a.l2_sets = 1;
      return a;
    }()) {
    L2Params p;
    p.sets = 1;
    p.ways = ways;
    p.hit_latency_cycles = 10;
    p.mshrs = 8;
    l2 = std::make_unique<L2Slice>("l2", p, ClockDomain(1000), map);
    mem = std::make_unique<SlowMemory>("mem");
    src = std::make_unique<test::TestInitiator>("src");
    l2->mem_out.bind(mem->in);
    src->out.bind(l2->mem_in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end elaboration: sockets bound
  }
  // Reads the line at `addr`, arriving at `at` ns; returns when the data is back (ns).
  uint64_t read(uint64_t addr, uint64_t at) {
    tlm::tlm_generic_payload gp;
    uint8_t data[128];
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(128);
    sc_core::sc_time delay(double(at), sc_core::SC_NS);
    src->out->b_transport(gp, delay);
    return uint64_t(to_ns(delay) + 0.5);
  }
};

}  // namespace

// Miss at 0: tag lookup, hit latency, then memory: back at 10 + 1000. A read of the line at 500
// merges (back at the same fill); one at 2000 hits (2000 + 10).
TEST(L2Slice, ARequestMergesIntoAFillOnItsWayAndHitsAfterIt) {
  L2Rig r(4);
  EXPECT_EQ(r.read(0x1000, 0), 1010u);
  EXPECT_EQ(r.read(0x1000, 500), 1010u);
  EXPECT_EQ(r.read(0x1000, 2000), 2010u);
  EXPECT_EQ(r.mem->reads.size(), 1u);
  EXPECT_EQ(r.l2->misses(), 1u);
  EXPECT_EQ(r.l2->merged(), 1u);
  EXPECT_EQ(r.l2->hits(), 1u);
}

// One way: line B's miss takes the way of line A in the tags while A's fill is still on its way
// (B is sent once A's fill frees the way: back at 1010 + 1000). A read of A before its fill still
// merges into it (no second read of A) and takes the way back; B likewise merges into its own.
// After both fills, B holds the way: B hits, A misses and is read again.
TEST(L2Slice, ALineWhoseWayWasTakenBeforeItsFillStillMerges) {
  L2Rig r(1);
  EXPECT_EQ(r.read(0x1000, 0), 1010u);    // A: miss
  EXPECT_EQ(r.read(0x2000, 100), 2010u);  // B: miss, evicts A (pending), waits for the way
  EXPECT_EQ(r.read(0x1000, 200), 1010u);  // A: merges into its fill, evicts B (pending)
  EXPECT_EQ(r.read(0x2000, 300), 2010u);  // B: merges into its fill
  EXPECT_EQ(r.mem->reads, (std::vector<uint64_t>{0x1000, 0x2000}));
  EXPECT_EQ(r.l2->misses(), 2u);
  EXPECT_EQ(r.l2->merged(), 2u);
  EXPECT_EQ(r.read(0x2000, 3000), 3010u);
  EXPECT_EQ(r.read(0x1000, 3100), 3100u + 10 + 1000);
  EXPECT_EQ(r.mem->reads.size(), 3u);
  EXPECT_EQ(r.l2->hits(), 1u);
}
