// Known-answer tests of address translation (SPEC 1, 2, 6): the TLB core, the frame allocator's
// colours, the driver's page tables, the fill unit (L2 TLB, walks through a memory target,
// faults) and the SM's L1 TLB, then whole runs: kernel abort and bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <tlm_utils/simple_target_socket.h>

#include "common/tlb.hpp"
#include "fill_unit/fill_unit.hpp"
#include "fill_unit/frame_allocator.hpp"
#include "fill_unit/memory_manager.hpp"
#include "pipeline_rig.hpp"
#include "platform/platform_config.hpp"
#include "test_initiator.hpp"
#include "test_util.hpp"

using namespace mpgpu;
using namespace mpgpu::test;
using nlohmann::json;

namespace {

AddressMap interleave_map() {
  AddressMapParams p;
  p.partitions = 4;
  p.interleave_bytes = 256;
  return AddressMap(p);
}

Allocation alloc(const std::string& name, uint64_t va, uint64_t bytes, Placement pl) {
  return {name, va, bytes, pl, "test"};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Cores
// ---------------------------------------------------------------------------------------------

// 8 entries, 2 ways (4 sets): a hit after the fill, a merge while pending, LRU eviction.
TEST(Tlb, HitsMergesAndEvictsLru) {
  Tlb t({8, 2, 3, 4});
  EXPECT_EQ(t.lookup(0, 5, 10).outcome, Tlb::Outcome::miss);
  t.fill(0, 5, 77, 13, 100);
  auto m = t.lookup(0, 5, 50);  // pending: merged, ready at the fill
  EXPECT_EQ(m.outcome, Tlb::Outcome::merged);
  EXPECT_EQ(m.ready, 100u);
  auto h = t.lookup(0, 5, 200);
  EXPECT_EQ(h.outcome, Tlb::Outcome::hit);
  EXPECT_EQ(h.ready, 203u);  // lookup latency 3
  EXPECT_EQ(h.frame, 77u);
  EXPECT_EQ(t.lookup(1, 5, 200).outcome, Tlb::Outcome::miss);  // another context: its own entry
  // Pages 1, 5, 9 share set 1 (vpn % 4) of 2 ways: 9 evicts the least recently used (1).
  t.fill(0, 1, 11, 200, 210);
  t.lookup(0, 5, 300);
  t.fill(0, 9, 19, 300, 310);
  EXPECT_EQ(t.lookup(0, 1, 400).outcome, Tlb::Outcome::miss);
  EXPECT_EQ(t.lookup(0, 5, 400).outcome, Tlb::Outcome::hit);
  EXPECT_EQ(t.stats().misses, 3u);
}

// 2 MSHRs: a third outstanding miss waits for the first to return.
TEST(Tlb, FullMshrsDelayTheNextMiss) {
  Tlb t({32, 8, 1, 2});
  t.fill(0, 1, 1, 0, 100);
  t.fill(0, 2, 2, 0, 150);
  EXPECT_EQ(t.mshr_free_at(10), 100u);
  EXPECT_EQ(t.mshr_free_at(120), 120u);
}

// SPEC 6: with 4 KB pages the GTX 1080 hashes give 2 colours of 4 modules each; a coloured
// request only ever gets frames of its colour, an uncoloured one the lowest free frame.
TEST(FrameAllocator, Gtx1080FourKbPagesHaveTwoColoursAndColouredRequestsStayInThem) {
  const PlatformConfig cfg = load_platform(source_path("platforms/gtx1080.yaml"));
  const AddressMap map(cfg.address_map);
  FrameAllocator a(uint64_t{1} << 30, 4096, map);
  const auto colours = a.colours();
  ASSERT_EQ(colours.size(), 2u);
  EXPECT_EQ(__builtin_popcountll(colours[0]), 4);
  EXPECT_EQ(__builtin_popcountll(colours[1]), 4);
  EXPECT_EQ(colours[0] & colours[1], 0u);
  std::set<uint64_t> got;
  for (int i = 0; i < 200; ++i) {
    const auto f = a.allocate(colours[1]);
    ASSERT_TRUE(f);
    EXPECT_EQ(a.modules_of(*f), colours[1]) << "frame " << *f;
    EXPECT_TRUE(got.insert(*f).second);
  }
  // The lowest free frame overall is the lowest of the other colour (all of colour 1 below it are taken).
  const auto any = a.allocate();
  ASSERT_TRUE(any);
  EXPECT_EQ(a.modules_of(*any), colours[0]);
  EXPECT_FALSE(a.allocate(uint64_t{1} << 0 | uint64_t{1} << 1));  // no page lies in two modules only
}

// Plain 256 B interleaving over 4 partitions: every 4 KB page spans all modules, one colour.
TEST(FrameAllocator, InterleavedPagesHaveOneColour) {
  const AddressMap map = interleave_map();
  FrameAllocator a(uint64_t{1} << 24, 4096, map);
  EXPECT_EQ(a.colours(), std::vector<uint64_t>{0xf});
  EXPECT_EQ(a.allocate(), std::optional<uint64_t>(0));
  EXPECT_EQ(a.allocate(), std::optional<uint64_t>(1));
}

// Two processes using the same virtual address touch different physical pages.
TEST(MemoryManager, SameVirtualAddressInTwoContextsMapsToDifferentFrames) {
  const AddressMap map = interleave_map();
  MemoryManager mm({4096, uint64_t{1} << 30}, map);
  AddressSpaceDesc d;
  d.allocations = {alloc("a", 0x10000000, 8192, Placement::device)};
  const uint32_t c0 = mm.create_context(d), c1 = mm.create_context(d);
  EXPECT_NE(c0, c1);
  const PageWalk w0 = mm.walk(c0, 0x10000), w1 = mm.walk(c1, 0x10000);
  ASSERT_EQ(w0.leaf, PageWalk::Leaf::present);
  ASSERT_EQ(w1.leaf, PageWalk::Leaf::present);
  EXPECT_NE(w0.frame, w1.frame);
  EXPECT_NE(mm.page_table_base(c0), mm.page_table_base(c1));
  EXPECT_NE(w0.pte_address[3], w1.pte_address[3]);
}

// A 48-bit space with 4 KB pages has 4 levels; each read is inside the level's 4 KB node at the
// index given by the virtual page number's 9-bit slice; the root is the page-table base.
TEST(MemoryManager, WalkReadsOnePteAddressPerLevel) {
  const AddressMap map = interleave_map();
  MemoryManager mm({4096, uint64_t{1} << 30}, map);
  AddressSpaceDesc d;
  d.allocations = {alloc("a", 0x7f2b2d500000, 4096, Placement::device)};
  const uint32_t c = mm.create_context(d);
  ASSERT_EQ(mm.levels(), 4u);
  const uint64_t vpn = 0x7f2b2d500000 >> 12;
  const PageWalk w = mm.walk(c, vpn);
  ASSERT_EQ(w.reads, 4u);
  EXPECT_EQ(w.pte_address[0], mm.page_table_base(c) + ((vpn >> 27) & 511) * 8);
  for (uint32_t l = 0; l < 4; ++l) EXPECT_EQ(w.pte_address[l] % 4096 / 8, (vpn >> (9 * (3 - l))) & 511) << l;
  EXPECT_EQ(MemoryManager({65536, uint64_t{1} << 30}, map).levels(), 4u);   // 32 bits of page number
  EXPECT_EQ(MemoryManager({2 << 20, uint64_t{1} << 32}, map).levels(), 3u);  // 27 bits
}

// Placement: host and lazy pages are not resident until a fault or a copy; outside every
// allocation is invalid, except the local-memory window; no allocations: everything implicit.
TEST(MemoryManager, PlacementsAndImplicitSpace) {
  const AddressMap map = interleave_map();
  MemoryManager mm({4096, uint64_t{1} << 30}, map);
  AddressSpaceDesc d;
  d.allocations = {alloc("in", 0x100000, 4 * 4096, Placement::host), alloc("out", 0x200000, 4096, Placement::lazy)};
  const uint32_t c = mm.create_context(d);
  EXPECT_EQ(mm.walk(c, 0x100).leaf, PageWalk::Leaf::not_resident_host);
  EXPECT_EQ(mm.walk(c, 0x200).leaf, PageWalk::Leaf::not_resident_lazy);
  EXPECT_EQ(mm.walk(c, 0x300).leaf, PageWalk::Leaf::invalid);
  EXPECT_EQ(mm.walk(c, kLocalMemoryBase >> 12).leaf, PageWalk::Leaf::present);
  // A copy of 5000 bytes at the allocation's start makes its first two pages resident.
  EXPECT_EQ(mm.make_resident(c, 0x100000, 5000), 8192u);
  EXPECT_EQ(mm.walk(c, 0x101).leaf, PageWalk::Leaf::present);
  // A 64 KB fault granule, clipped to the allocation: the two remaining pages.
  EXPECT_EQ(mm.resolve_fault(c, 0x103, 65536), 8192u);
  const uint32_t all = mm.create_context({});
  EXPECT_EQ(mm.walk(all, 0x12345).leaf, PageWalk::Leaf::present);
}

// A run of frames starts at the lowest multiple of its alignment whose frames are all free.
TEST(FrameAllocator, RunsAreAlignedAndSkipTakenFrames) {
  const AddressMap map = interleave_map();
  FrameAllocator a(64 * 4096, 4096, map);  // 64 frames
  EXPECT_EQ(a.allocate(), std::optional<uint64_t>(0));
  EXPECT_EQ(a.allocate_run(8, 8), std::optional<uint64_t>(8));    // 0 is taken: the next multiple of 8
  EXPECT_EQ(a.allocate_run(3, 4), std::optional<uint64_t>(4));    // frames 4..6 are free
  EXPECT_EQ(a.allocate_run(16, 16), std::optional<uint64_t>(16));
  EXPECT_EQ(a.allocate_run(32, 32), std::optional<uint64_t>(32));
  EXPECT_EQ(a.allocate_run(2, 2), std::optional<uint64_t>(2));
  EXPECT_EQ(a.allocate_run(2, 1), std::nullopt);                   // only frames 1 and 7 are left
  EXPECT_EQ(a.allocate(), std::optional<uint64_t>(1));
  EXPECT_EQ(a.allocated(), 63u);
}

// A contiguous allocation: every page's frame is the run's start plus its page index, the run is
// aligned to the size rounded up to a power of two, its leaves are present from the start (a
// walk finds them, copies and faults map nothing more), and another context's pages lie outside it.
TEST(MemoryManager, ContiguousAllocationIsOneAlignedRun) {
  const AddressMap map = interleave_map();
  MemoryManager mm({4096, uint64_t{1} << 30}, map);
  AddressSpaceDesc d;
  Allocation big = alloc("big", 0x40000000, 300 * 4096, Placement::device);
  big.contiguous = true;
  d.allocations = {alloc("small", 0x10000000, 4096, Placement::device), big};
  const uint32_t c = mm.create_context(d);
  const uint64_t first = *mm.frame_of(c, 0x40000);
  EXPECT_EQ(first % 512, 0u);  // 300 pages: a 512-frame aligned block
  EXPECT_GT(first, 0u);        // frame 0 holds the page-table root
  for (uint64_t i = 0; i < 300; ++i) {
    const PageWalk w = mm.walk(c, 0x40000 + i);
    ASSERT_EQ(w.leaf, PageWalk::Leaf::present);
    ASSERT_EQ(w.frame, first + i);
  }
  EXPECT_EQ(mm.resident_pages(c), 301u);
  EXPECT_EQ(mm.make_resident(c, 0x40000000, 300 * 4096), 0u);
  EXPECT_EQ(mm.resolve_fault(c, 0x40010, 65536), 0u);
  const uint32_t other = mm.create_context(d);
  const uint64_t other_first = *mm.frame_of(other, 0x40000);
  EXPECT_TRUE(other_first >= first + 300 || other_first + 300 <= first);
  EXPECT_EQ(other_first % 512, 0u);
  EXPECT_NE(*mm.frame_of(other, 0x10000), *mm.frame_of(c, 0x10000));
}

// ---------------------------------------------------------------------------------------------
// Fill unit: L2 TLB, walkers, PTE reads through a memory target, faults
// ---------------------------------------------------------------------------------------------

namespace {

// Answers every read after 100 ns and records it.
struct PteMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<PteMemory> in;
  std::vector<std::pair<uint64_t, uint32_t>> reads;  // address, bytes
  explicit PteMemory(sc_core::sc_module_name n) : sc_module(n), in("in") {
    in.register_b_transport(this, &PteMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    reads.emplace_back(gp.get_address(), gp.get_data_length());
    delay += sc_core::sc_time(100, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// A fill unit at 1 GHz (1 cycle = 1 ns) with a small L2 TLB, 64 walkers, 4 KB pages.
struct FillRig {
  AddressMap map = interleave_map();
  MemoryManager mm;
  FillUnitParams p;
  std::unique_ptr<FillUnit> fu;
  std::unique_ptr<PteMemory> mem;
  std::unique_ptr<test::TestInitiator> sm;

  explicit FillRig(const std::function<void(FillUnitParams&)>& tweak = {}) : mm({4096, uint64_t{1} << 30}, map) {
    p.l2_tlb = {16, 4, 10, 8};
    p.fault = {25, 12, 4096};
    if (tweak) tweak(p);
    fu = std::make_unique<FillUnit>("fill_unit", p, ClockDomain(1000), mm);
    mem = std::make_unique<PteMemory>("mem");
    sm = std::make_unique<test::TestInitiator>("sm");
    fu->mem_out.bind(mem->in);
    sm->out.bind(fu->walk_in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // end elaboration: sockets bound
  }
  // Translates (context, va) requested at cycle `at`; returns {status, physical address, done cycle}.
  std::tuple<tlm::tlm_response_status, uint64_t, uint64_t> translate(uint32_t context, uint64_t va, uint64_t at,
                                                                      uint64_t page_table_base = 0) {
    tlm::tlm_generic_payload gp;
    gpu_mem_ext ext;
    ext.context = context;
    ext.page_table_base = page_table_base;
    ext.kind = AccessKind::page_walk;
    ext.vaddr = va;
    gp.set_address(va);
    gp.set_extension(&ext);
    sc_core::sc_time delay(double(at), sc_core::SC_NS);
    delay -= sc_core::sc_time_stamp();
    sm->out->b_transport(gp, delay);
    gp.clear_extension(&ext);
    return {gp.get_response_status(), gp.get_address(), uint64_t((sc_core::sc_time_stamp() + delay).to_seconds() * 1e9 + 0.5)};
  }
};

}  // namespace

// One miss: L2 TLB lookup (10 cycles), then 4 levels x 8 B read one after the other (100 ns each);
// the answer is the allocation's frame; a second access to the page hits (10 cycles).
TEST(FillUnit, AWalkReadsLevelsTimesEightBytesThroughTheMemoryPath) {
  FillRig r;
  AddressSpaceDesc d;
  d.allocations = {alloc("a", 0x10000000, 4096, Placement::device)};
  const uint32_t c = r.mm.create_context(d);
  const auto [st, pa, done] = r.translate(c, 0x10000123, 0);
  EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(pa, *r.mm.frame_of(c, 0x10000) * 4096 + 0x123);
  EXPECT_EQ(done, 10u + 4 * 100);
  ASSERT_EQ(r.mem->reads.size(), 4u);
  uint64_t bytes = 0;
  const PageWalk w = r.mm.walk(c, 0x10000);
  for (size_t i = 0; i < 4; ++i) {
    bytes += r.mem->reads[i].second;
    EXPECT_EQ(r.mem->reads[i].first, w.pte_address[i]);
  }
  EXPECT_EQ(bytes, 4u * 8);
  const auto [st2, pa2, done2] = r.translate(c, 0x10000fff, 1000);
  EXPECT_EQ(done2, 1010u);
  EXPECT_EQ(r.mem->reads.size(), 4u);
  EXPECT_EQ(r.fu->total().walks, 1u);
  EXPECT_EQ(r.fu->total().l2_tlb_hits, 1u);
  EXPECT_EQ(r.fu->total().walk_cycles_max, 400u);
}

// L2 TLB reach 16 pages (16 entries, 4 ways): 16 pages twice -> 16 walks; 32 pages twice in
// order -> LRU thrashes, 64 walks. Two requests to one page at once: one walk, one merge.
TEST(FillUnit, L2TlbReachAndMerges) {
  FillRig r;
  AddressSpaceDesc d;
  d.allocations = {alloc("a", 0x10000000, 64 * 4096, Placement::device)};
  const uint32_t c = r.mm.create_context(d);
  uint64_t t = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t p = 0; p < 16; ++p) r.translate(c, 0x10000000 + p * 4096, t += 1000);
  EXPECT_EQ(r.fu->total().walks, 16u);
  EXPECT_EQ(r.fu->total().l2_tlb_hits, 16u);
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t p = 16; p < 48; ++p) r.translate(c, 0x10000000 + p * 4096, t += 1000);
  EXPECT_EQ(r.fu->total().walks, 16u + 64);
  r.translate(c, 0x10000000 + 60 * 4096, t += 1000);
  const auto [st, pa, done] = r.translate(c, 0x10000000 + 60 * 4096 + 8, t + 5);
  EXPECT_EQ(r.fu->total().walks, 16u + 64 + 1);
  EXPECT_EQ(r.fu->total().l2_tlb_merged, 1u);
  EXPECT_EQ(done, t + 10 + 400);  // the pending walk's end
  EXPECT_EQ(r.fu->total().pte_reads, 4u * r.fu->total().walks);
}

// P host-owned pages touched once each (4 KB fault granule): P faults, P x 4 KB migrated, each
// answered after walk + 25 us + the replayed walk. A second warp on a faulting page waits for it.
TEST(FillUnit, HostPagesFaultOncePerPageAndMigrate) {
  FillRig r;
  AddressSpaceDesc d;
  d.allocations = {alloc("in", 0x20000000, 8 * 4096, Placement::host)};
  const uint32_t c = r.mm.create_context(d);
  const uint64_t P = 5;
  std::vector<uint64_t> done;
  for (uint64_t p = 0; p < P; ++p) done.push_back(std::get<2>(r.translate(c, 0x20000000 + p * 4096, p * 100)));
  const TranslationStats s = r.fu->total();
  EXPECT_EQ(s.faults_host, P);
  EXPECT_EQ(s.migrated_bytes, P * 4096);
  EXPECT_EQ(s.walks, 2 * P);  // each fault replays its walk
  EXPECT_EQ(done[0], 10u + 400 + 25000 + 400);
  // Another line of page 0 while its fault is resolved: merged in the L2 TLB, same end.
  EXPECT_EQ(std::get<2>(r.translate(c, 0x20000040, 500)), done[0]);
  EXPECT_EQ(r.fu->total().faults_host, P);
  EXPECT_DOUBLE_EQ(r.fu->total().fault_ns_max, 25000 + 400);
}

// A 64 KB fault granule: one fault maps 16 pages; a walk of another page of the block before
// the migration is done waits for that fault (batched), no second migration.
TEST(FillUnit, FaultGranuleBatchesNeighbouringPages) {
  FillRig r([](FillUnitParams& p) { p.fault.granularity_bytes = 65536; });
  AddressSpaceDesc d;
  d.allocations = {alloc("out", 0x30000000, 65536, Placement::lazy)};
  const uint32_t c = r.mm.create_context(d);
  const uint64_t first = std::get<2>(r.translate(c, 0x30000000, 0));
  EXPECT_EQ(first, 10u + 400 + 12000 + 400);  // allocation only: 12 us
  const uint64_t second = std::get<2>(r.translate(c, 0x30005000, 100));
  EXPECT_EQ(second, first);  // waits for the block, then its replayed walk (same timing)
  const TranslationStats s = r.fu->total();
  EXPECT_EQ(s.faults_lazy, 1u);
  EXPECT_EQ(s.faults_batched, 1u);
  EXPECT_EQ(s.allocated_bytes, 65536u);
  EXPECT_EQ(s.migrated_bytes, 0u);
}

// The CPU runs one handler at a time (2 us each): three lazy faults found at 410, 411, 412 start
// at 410, 2410, 4410 and are each resident 12 us later; the replayed walks end 400 after that.
TEST(FillUnit, CpuFaultHandlerServesOneFaultAtATime) {
  FillRig r([](FillUnitParams& p) { p.fault.cpu_handler_us = 2; });
  AddressSpaceDesc d;
  d.allocations = {alloc("out", 0x30000000, 3 * 4096, Placement::lazy)};
  const uint32_t c = r.mm.create_context(d);
  std::vector<uint64_t> done;
  for (uint64_t p = 0; p < 3; ++p) done.push_back(std::get<2>(r.translate(c, 0x30000000 + p * 4096, p)));
  EXPECT_EQ(done, (std::vector<uint64_t>{410 + 12000 + 400, 2410 + 12000 + 400, 4410 + 12000 + 400}));
  const TranslationStats s = r.fu->total();
  EXPECT_EQ(s.faults_lazy, 3u);
  EXPECT_EQ(s.allocated_bytes, 3u * 4096);
  EXPECT_DOUBLE_EQ(s.cpu_queue_ns, (2410 - 411) + (4410 - 412));
}

// Local fault handling: lazy pages are allocated by the GPU's handler (20 us), in parallel and
// without the CPU; a host page still migrates through the CPU (25 us).
TEST(FillUnit, LocalHandlerAllocatesLazyPagesOnTheGpu) {
  FillRig r([](FillUnitParams& p) {
    p.fault.cpu_handler_us = 2;
    p.fault.local_lazy = true;
    p.fault.gpu_handler_us = 20;
  });
  AddressSpaceDesc d;
  d.allocations = {alloc("out", 0x30000000, 3 * 4096, Placement::lazy), alloc("in", 0x20000000, 4096, Placement::host)};
  const uint32_t c = r.mm.create_context(d);
  for (uint64_t p = 0; p < 3; ++p)
    EXPECT_EQ(std::get<2>(r.translate(c, 0x30000000 + p * 4096, p)), 410 + p + 20000 + 400);
  EXPECT_EQ(std::get<2>(r.translate(c, 0x20000000, 10)), 420u + 25000 + 400);
  const TranslationStats s = r.fu->total();
  EXPECT_EQ(s.faults_lazy, 3u);
  EXPECT_EQ(s.faults_local, 3u);
  EXPECT_EQ(s.faults_host, 1u);
  EXPECT_EQ(s.allocated_bytes, 3u * 4096);
  EXPECT_DOUBLE_EQ(s.cpu_queue_ns, 0);
}

// Outside every allocation: an address error, after a walk that found no mapping.
TEST(FillUnit, InvalidAddressIsAnAddressError) {
  FillRig r;
  AddressSpaceDesc d;
  d.allocations = {alloc("a", 0x10000000, 4096, Placement::device)};
  const uint32_t c = r.mm.create_context(d);
  EXPECT_EQ(std::get<0>(r.translate(c, 0x50000000, 0)), tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(r.fu->total().invalid_accesses, 1u);
}

// SPEC 2: a walk request carries the SM's context id and page-table base registers; a base that
// is not the context's (a model error) is refused, the right one is walked.
TEST(FillUnit, PageTableBaseRegisterMustMatchTheContext) {
  FillRig r;
  const uint32_t c0 = r.mm.create_context({}), c1 = r.mm.create_context({});
  EXPECT_EQ(std::get<0>(r.translate(c0, 0x1000, 0, r.mm.page_table_base(c1))), tlm::TLM_COMMAND_ERROR_RESPONSE);
  EXPECT_EQ(std::get<0>(r.translate(c0, 0x1000, 0, r.mm.page_table_base(c0))), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r.mem->reads.at(0).first >> 12, r.mm.page_table_base(c0) >> 12);  // the walk starts at that root
}

// fixed_walk_cycles (SPEC 3's 500-cycle walk): no PTE reads, 10 + 500 cycles.
TEST(FillUnit, FixedWalkTakesItsCyclesWithoutMemoryReads) {
  FillRig r([](FillUnitParams& p) { p.fixed_walk_cycles = 500; });
  const uint32_t c = r.mm.create_context({});
  EXPECT_EQ(std::get<2>(r.translate(c, 0x1000, 0)), 510u);
  EXPECT_TRUE(r.mem->reads.empty());
}

// ---------------------------------------------------------------------------------------------
// The SM's L1 TLB in the pipeline
// ---------------------------------------------------------------------------------------------

namespace {
void paged(SmParams& p) {
  p.translate = true;
  p.page_bytes = 4096;
  p.l1_tlb = {32, 8, 1, 32};
}
}  // namespace

// One warp loads 32 lanes 4 KB apart: 32 pages -> 32 L1 TLB misses, 32 walks, and each request
// leaves with its physical address (frame = page + offset in the fake port).
TEST(PipelineTranslation, StridedLoadMissesOncePerPage) {
  Rig r("body:\n  - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4096}}\n", 32, paged);
  r.start();
  r.run();
  EXPECT_EQ(r.st().l1_tlb_accesses, 32u);
  EXPECT_EQ(r.st().l1_tlb_misses, 32u);
  EXPECT_EQ(r.port.walks.size(), 32u);
  ASSERT_EQ(r.port.log.size(), 32u);
  std::set<uint64_t> pages, expected;
  for (const MemAccess& a : r.port.log) {
    pages.insert(a.addr >> 12);
    EXPECT_EQ(a.addr % 4096, 0u);
  }
  for (uint64_t i = 0; i < 32; ++i) expected.insert((0x10000000 >> 12) + i + FakePort::kFrameOffset);
  EXPECT_EQ(pages, expected);
}

// 32 lanes 128 B apart: 32 lines of one page; the first misses, the other 31 merge into its walk.
TEST(PipelineTranslation, SamePageMissesMerge) {
  Rig r("body:\n  - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 128}}\n", 32, paged);
  r.start();
  r.run();
  EXPECT_EQ(r.st().l1_tlb_misses, 1u);
  EXPECT_EQ(r.st().l1_tlb_merged, 31u);
  EXPECT_EQ(r.port.walks.size(), 1u);
  // Line i is looked up at cycle i; all wait for the walk (sent at 0 + 1 lookup, back 50 later).
  for (const MemAccess& a : r.port.log) EXPECT_GE(a.cycle, 51u);
}

// Physically tagged L1: a second pass over the same 32 pages hits the L1 TLB (32 entries).
TEST(PipelineTranslation, SecondPassHitsWithinReach) {
  Rig r("body:\n"
        "  - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4096}}\n"
        "  - {op: sp, dst: r2, src: r1}\n"
        "  - {op: ld.global, dst: r3, addr: {base: 0x10000000, gtid: 4096}}\n"
        "  - {op: sp, dst: r4, src: [r2, r3]}\n",
        32, [](SmParams& p) {
          paged(p);
          p.l1d_virtual_tags = false;
        });
  r.start();
  r.run();
  EXPECT_EQ(r.st().l1_tlb_accesses, 64u);
  EXPECT_EQ(r.st().l1_tlb_misses, 32u);
  EXPECT_EQ(r.st().l1_tlb_hits, 32u);
  EXPECT_EQ(r.port.walks.size(), 32u);
}

// An invalid page: its request is never sent (the SM reports the abort), the others are.
TEST(PipelineTranslation, UntranslatableLineIsNotSent) {
  Rig r("body:\n  - {op: st.global, src: [r1], addr: {base: 0x10000000, gtid: 4096}}\n", 2, paged);
  r.port.invalid_pages = {0x10001};
  r.start();
  r.run();
  EXPECT_EQ(r.port.walks.size(), 2u);
  ASSERT_EQ(r.port.log.size(), 1u);
  EXPECT_EQ(r.port.log[0].addr >> 12, 0x10000 + FakePort::kFrameOffset);
}

// ---------------------------------------------------------------------------------------------
// Whole runs
// ---------------------------------------------------------------------------------------------

namespace {
const char* kAllocWorkload = R"(name: alloc
policy: fcfs
kernels:
  touch:
    grid: 1
    threads_per_tb: 32
    registers_per_thread: 8
    program:
      body:
        - {op: ld.global, dst: r1, addr: {base: 0x10000000, gtid: 4096}}
        - {op: st.global, src: [r1], addr: {base: BASE, gtid: 4}}
processes:
  - name: p
    memory:
      allocations:
        - {name: input, va: 0x10000000, bytes: 131072, placement: PLACEMENT}
        - {name: output, va: 0x20000000, bytes: 4096, placement: lazy}
    launches:
      - {kernel: touch}
)";
std::string alloc_workload(const std::string& base, const std::string& placement) {
  std::string s = kAllocWorkload;
  s.replace(s.find("BASE"), 4, base);
  s.replace(s.find("PLACEMENT"), 9, placement);
  return s;
}
std::string gtx1080() { return source_path("platforms/gtx1080.yaml"); }
}  // namespace

// 32 host pages read once (64 KB granule: 2 faults of 16 pages), one lazy output page.
TEST(TranslationRun, HostAndLazyPagesFaultAndMigrate) {
  TempDir d;
  const auto wl = d.write("w.yaml", alloc_workload("0x20000000", "host"));
  const auto r = run_mpgpu("run --platform " + gtx1080() + " --workload " + wl + " --out " + (d.path / "o").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = json::parse(std::ifstream(d.path / "o/stats.json"));
  EXPECT_EQ(s["status"], "completed");
  const json& t = s["processes"][0]["translation"];
  EXPECT_EQ(t["faults"]["host"], 2);
  EXPECT_EQ(t["faults"]["lazy"], 1);
  EXPECT_EQ(t["migrated_bytes"], 131072);
  EXPECT_EQ(t["allocated_bytes"], 4096);
  EXPECT_EQ(t["l1_tlb"]["misses"], 33);  // 32 input pages + 1 output page, one SM
  EXPECT_EQ(s["memory"]["translation"]["walks"].get<uint64_t>(), t["walks"].get<uint64_t>());
  EXPECT_GT(s["sim"]["time_ns"].get<double>(), 25000.0);  // at least one PCIe migration
}

// A store outside every allocation aborts the kernel: exit 3, a message naming the kernel,
// process and address, and stats.json marked aborted with no metrics.
TEST(TranslationRun, AccessOutsideEveryAllocationAbortsTheKernel) {
  TempDir d;
  const auto wl = d.write("w.yaml", alloc_workload("0x60000000", "device"));
  const auto r = run_mpgpu("run --platform " + gtx1080() + " --workload " + wl + " --out " + (d.path / "o").string());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("kernel 'touch' of process 'p' aborted"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0x60000000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("outside every allocation"), std::string::npos) << r.output;
  const json s = json::parse(std::ifstream(d.path / "o/stats.json"));
  EXPECT_EQ(s["status"], "aborted");
  EXPECT_EQ(s["abort"]["vaddr"], "0x60000000");
  EXPECT_FALSE(s.contains("metrics"));
}

// Bad input: exit 2, file:line:col and the key, no stats.json.
TEST(TranslationRun, BadAllocationsAndPageSizesAreRejected) {
  TempDir d;
  auto expect_rejected = [&](const std::string& platform, const std::string& workload, const std::string& what) {
    const auto out = d.path / ("o" + std::to_string(std::hash<std::string>{}(what)));
    const auto r = run_mpgpu("run --platform " + platform + " --workload " + workload + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\.yaml:\d+:\d+)"))) << r.output;
    EXPECT_FALSE(std::filesystem::exists(out / "stats.json")) << what;
  };
  std::string w = alloc_workload("0x20000000", "device");
  std::string overlap = w;
  overlap.replace(overlap.find("va: 0x20000000"), 14, "va: 0x10010000");
  expect_rejected(gtx1080(), d.write("overlap.yaml", overlap), "overlaps allocation 'input'");
  std::string big = w;
  big.replace(big.find("bytes: 4096"), 11, "bytes: 17179869184");
  expect_rejected(gtx1080(), d.write("big.yaml", big), "larger than the device memory");
  expect_rejected(gtx1080(), d.write("place.yaml", alloc_workload("0x20000000", "pinned")), "pinned");
  expect_rejected(gtx1080(), d.write("contig.yaml", alloc_workload("0x20000000", "host, contiguous: true")),
                  "a contiguous allocation is device-resident (placement host");
  std::string coloured = alloc_workload("0x20000000", "device, contiguous: true");
  coloured.replace(coloured.find("processes:"), 10, "partitions:\n  - {name: P, colours: [0]}\nprocesses:");
  coloured.replace(coloured.find("  - name: p\n"), 12, "  - name: p\n    partition: P\n");
  expect_rejected(gtx1080(), d.write("contig_col.yaml", coloured), "is contiguous, so its frames span every page colour");
  std::ifstream pf(gtx1080());
  std::string plat((std::istreambuf_iterator<char>(pf)), std::istreambuf_iterator<char>());
  plat.replace(plat.find("page_bytes: 4096"), 16, "page_bytes: 5000");
  expect_rejected(d.write("p.yaml", plat), d.write("ok.yaml", w), "must be a power of two");
}

// A trace kernel (the vectoradd sample: its three arrays share the page at 0x7f2b2d500000) in a
// process whose 64 KB allocation is host-owned: a host-to-device copy into it makes that page
// resident (no fault); without the copy the first touch faults and migrates the 64 KB block.
TEST(TranslationRun, CopiesMakeHostPagesResident) {
  TempDir d;
  const std::string trace = source_path("../shared/traces/vectoradd-100-32/kernel-1.traceg");
  auto workload = [&](bool copy) {
    return std::string("name: t\npolicy: fcfs\nkernels:\n  vecadd: {trace: ") + trace +
           "}\nprocesses:\n  - name: p\n    memory:\n      allocations:\n"
           "        - {name: heap, va: 0x7f2b2d500000, bytes: 65536, placement: host}\n    launches:\n" +
           (copy ? "      - {copy: {bytes: 1200, va: 0x7f2b2d500000}}\n" : "") + "      - {kernel: vecadd}\n";
  };
  for (bool copy : {true, false}) {
    const auto wl = d.write(copy ? "c.yaml" : "n.yaml", workload(copy));
    const auto out = d.path / (copy ? "c" : "n");
    const auto r = run_mpgpu("run --platform " + gtx1080() + " --workload " + wl + " --out " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const json t = json::parse(std::ifstream(out / "stats.json"))["processes"][0]["translation"];
    EXPECT_EQ(t["faults"]["host"], copy ? 0 : 1) << copy;
    EXPECT_EQ(t["copied_bytes"], copy ? 4096 : 0);
    EXPECT_EQ(t["migrated_bytes"], copy ? 0 : 65536);
  }
}
