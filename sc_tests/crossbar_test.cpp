// The crossbar books each packet in the first slot its two ports share. Packets from several
// SMs to several partitions, arriving out of time order behind backlogs, must get the slots a
// brute-force search over per-cycle port bitmaps gives (the crossbar's searches skip what
// earlier searches learnt, per pair of ports).
#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <random>
#include <vector>

#include "noc/crossbar.hpp"
#include "test_initiator.hpp"

namespace mpgpu {
namespace {

struct Sink : sc_core::sc_module {  // an L2 slice answering at once
  tlm_utils::simple_target_socket<Sink> in;
  explicit Sink(sc_core::sc_module_name n) : sc_module(n), in("in") { in.register_b_transport(this, &Sink::b_transport); }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) { gp.set_response_status(tlm::TLM_OK_RESPONSE); }
};

// Per-cycle busy flags of one port; the earliest common slot by stepping one cycle at a time.
struct RefPort {
  std::vector<char> busy = std::vector<char>(1 << 18, 0);
  bool free(uint64_t s, uint64_t n) const {
    for (uint64_t c = s; c < s + n; ++c)
      if (busy.at(c)) return false;
    return true;
  }
};
uint64_t ref_traverse(RefPort& out, RefPort& in, uint64_t t, uint64_t flits) {
  uint64_t s = t;
  while (!out.free(s, flits) || !in.free(s, flits)) ++s;
  for (uint64_t c = s; c < s + flits; ++c) out.busy[c] = in.busy[c] = 1;
  return s + flits;
}

TEST(Crossbar, SlotsAgreeWithABruteForceSearchBehindBacklogs) {
  constexpr uint32_t kSources = 3, kPartitions = 4, kLatency = 8, kFlit = 32;
  AddressMapParams ap;
  ap.partitions = kPartitions;
  const AddressMap map(ap);
  CrossbarParams p;
  p.latency_cycles = kLatency;
  p.flit_bytes = kFlit;
  Crossbar xbar("xbar", p, ClockDomain(1000), map);  // 1 GHz: a cycle is 1 ns
  std::vector<std::unique_ptr<test::TestInitiator>> srcs;
  std::vector<std::unique_ptr<Sink>> sinks;
  for (uint32_t i = 0; i < kSources; ++i) {
    srcs.push_back(std::make_unique<test::TestInitiator>(("src" + std::to_string(i)).c_str()));
    srcs.back()->out.bind(xbar.mem_in);
  }
  for (uint32_t i = 0; i < kPartitions; ++i) {
    sinks.push_back(std::make_unique<Sink>(("sink" + std::to_string(i)).c_str()));
    xbar.mem_out.bind(sinks.back()->in);
  }
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end elaboration: multi-sockets wired

  std::vector<RefPort> inject(kSources), eject(kSources), req(kPartitions), reply(kPartitions);
  std::mt19937 rng(3);
  uint8_t data[128] = {};
  for (int k = 0; k < 3000; ++k) {
    const uint32_t src = rng() % kSources;
    const uint64_t addr = uint64_t(rng() % 4096) * 128;
    const bool write = rng() % 3 == 0;
    const uint32_t bytes = rng() % 4 == 0 ? 32 : 128;
    // Mostly a burst that outruns the ports (context lines, one per cycle from each source),
    // some arriving earlier or later than those already booked.
    const uint64_t at = rng() % 5 == 0 ? rng() % 20000 : uint64_t(k) / 2;
    tlm::tlm_generic_payload gp;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(bytes);
    sc_core::sc_time delay(double(at), sc_core::SC_NS);
    srcs[src]->out->b_transport(gp, delay);

    const uint32_t part = map.decode(addr).partition;
    const uint64_t up = ((write ? bytes + 8 : 8) + kFlit - 1) / kFlit, down = ((write ? 8 : bytes + 8) + kFlit - 1) / kFlit;
    const uint64_t there = ref_traverse(inject[src], req[part], at, up) + kLatency;
    const uint64_t back = ref_traverse(reply[part], eject[src], there, down) + kLatency;
    ASSERT_EQ(uint64_t(to_ns(delay) + 0.5), back) << "packet " << k << " from " << src << " to partition " << part;
  }
}

}  // namespace
}  // namespace mpgpu
