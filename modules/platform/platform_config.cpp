#include "platform/platform_config.hpp"

#include "fill_unit/frame_allocator.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"
#include "platform/registry.hpp"
#include "platform/table_links.hpp"

namespace mpgpu {

namespace {

constexpr int64_t kBig = int64_t{1} << 31;

bool pow2(uint64_t x) { return x && !(x & (x - 1)); }

std::string read_kind(const ConfigNode& n, ModuleRole role) {
  auto kinds = registry().kinds(role);
  return n.opt_enum("kind", kinds.front(), kinds);
}

// Defaults: GPGPU-Sim-like Pascal values, used for any unit a platform leaves out.
void read_pipeline(const std::optional<ConfigNode>& n, PipelineParams& p) {
  const UnitParams defaults[kUnitClasses] = {
      {1, 4, 1}, {1, 4, 1}, {1, 8, 4}, {1, 20, 4}, {1, 32, 8}, {1, 1, 1}, {1, 4, 1}, {1, 1, 1}, {1, 1, 1}};
  for (int u = 0; u < kUnitClasses; ++u) p.units[u] = defaults[u];
  if (!n) return;
  p.issue_width = n->opt_int("issue_width", 1, 1, 8);
  p.fetch_latency = n->opt_int("fetch_latency_cycles", 2, 0, 1000);
  p.barrier_latency = n->opt_int("barrier_latency_cycles", 1, 0, 1000);
  p.operand_read = n->opt_int("operand_read_cycles", 0, 0, 1000);
  p.writeback = n->opt_int("writeback_cycles", 0, 0, 1000);
  p.atomics_block_warp = n->opt_bool("atomics_block_warp", false);
  p.branch_stalls_fetch = n->opt_bool("branch_stalls_fetch", true);
  if (auto units = n->opt("units")) {
    for (auto& [name, u] : units->entries()) {
      int cls = -1;
      for (int k = 0; k < kUnitClasses; ++k)
        if (name == unit_class_name(UnitClass(k))) cls = k;
      const UnitClass c = UnitClass(cls);
      if (cls < 0 || c == UnitClass::ldst || c == UnitClass::barrier || c == UnitClass::nop)
        u.fail("unknown unit '" + name + "': expected sp, fma, dp, sfu, tensor or branch "
               "(the ld/st unit's timing comes from l1d and shared memory)");
      UnitParams& up = p.units[cls];
      up.count = u.opt_int("count", up.count, 1, 64);
      up.latency = u.opt_int("latency", up.latency, 1, 100000);
      up.ii = u.opt_int("ii", up.ii, 1, 100000);
      u.finish();
    }
  }
  n->finish();
}

// sets, ways, line_bytes (a power of two, at least `min_line`) and mshrs of an SM cache.
// An SM-private cache (L1D, instruction cache). Capacities beyond 1 MiB are legal but no GPU has
// them (the largest L1 is 256 KB, H100): a mistyped key gets a warning, since simulating it costs
// memory in proportion to the lines it touches.
void read_cache_geometry(const ConfigNode& n, uint32_t& sets, uint32_t& ways, uint32_t& line_bytes, uint32_t& mshrs,
                         int64_t min_line) {
  sets = n.req_int("sets", 1, 1 << 16);
  ways = n.req_int("ways", 1, 1024);
  line_bytes = n.req_int("line_bytes", min_line, 4096);
  if (!pow2(line_bytes)) n.req("line_bytes").fail("must be a power of two");
  mshrs = n.req_int("mshrs", 1, 1 << 16);
  const uint64_t bytes = uint64_t{sets} * ways * line_bytes;
  if (bytes > (uint64_t{1} << 20))
    n.warn(fmt::format("{} sets x {} ways x {} B = {} KiB per SM, beyond any GPU's (256 KB at most): intended?", sets,
                       ways, line_bytes, bytes >> 10));
}

void read_tlb(const ConfigNode& n, TlbParams& t) {
  t.entries = n.req_int("entries", 1, 1 << 20);
  t.ways = n.req_int("ways", 1, 1 << 20);
  t.latency = n.req_int("latency_cycles", 0, 1 << 20);
  t.mshrs = n.req_int("mshrs", 1, 1 << 20);
  if (t.entries % t.ways) n.req("ways").fail("must divide entries (" + std::to_string(t.entries) + ")");
  n.finish();
}

// The fill unit and the address translation it serves (SPEC 1): page size, device memory for the
// physical allocator, walkers, L2 TLB, fault costs. `translation: none` leaves addresses physical.
void read_fill_unit(const ConfigNode& root, PlatformConfig& c) {
  const ConfigNode fu = root.req("fill_unit");
  c.fill_unit_kind = read_kind(fu, ModuleRole::fill_unit);
  FillUnitParams& f = c.fill_unit;
  f.translation = fu.req_enum("translation", {"paged", "none"}) == "paged";
  c.sm.translate = f.translation;
  // With `none` the other keys are still validated (one --set toggles translation), then unused.
  if (!f.translation && !fu.has("page_bytes")) {  // a platform without translation keys
    fu.finish();
    return;
  }
  const int64_t page = fu.req_int("page_bytes", 4096, int64_t{1} << 30);
  if (!pow2(page)) fu.req("page_bytes").fail("must be a power of two (4096, 65536, 2097152, ...)");
  f.paging.page_bytes = page;
  c.sm.page_bytes = static_cast<uint32_t>(page);
  f.paging.device_memory_bytes = fu.req_int("device_memory_bytes", page, int64_t{1} << 50);
  f.walkers = fu.req_int("walkers", 1, 4096);
  f.fixed_walk_cycles = fu.opt_int("fixed_walk_cycles", 0, 0, 1 << 24);
  read_tlb(fu.req("l2_tlb"), f.l2_tlb);
  auto fault = fu.req("fault");
  f.fault.migrate_us = fault.req_num("migrate_us", 0, 1e9);
  f.fault.allocate_us = fault.req_num("allocate_us", 0, 1e9);
  f.fault.granularity_bytes = fault.opt_int("granularity_bytes", page, page, int64_t{1} << 40);
  if (!pow2(f.fault.granularity_bytes)) fault.req("granularity_bytes").fail("must be a power of two");
  f.fault.cpu_handler_us = fault.opt_num("cpu_handler_us", 0, 0, 1e9);
  f.fault.local_lazy = fault.opt_enum("lazy_pages", "cpu", {"cpu", "gpu"}) == "gpu";
  f.fault.gpu_handler_us = fault.opt_num("gpu_handler_us", 20, 0, 1e9);
  fault.finish();
  if (f.translation && !root.req("sm").has("l1_tlb"))
    root.req("sm").fail("needs an l1_tlb section (entries, ways, latency_cycles, mshrs) with fill_unit.translation: paged");
  fu.finish();
}

// The replay queue and operand log the pipeline runs with, from `extensions` (SPEC 3): the one
// place they are sized, read by the pipeline and by `mpgpu report` alike.
void size_fault_tables(const ConfigNode& root, PlatformConfig& c) {
  SmParams& s = c.sm;
  const uint32_t warps = s.max_threads / s.warp_size;
  s.replay_queue.entries = c.extensions.replay_queue_entries ? c.extensions.replay_queue_entries : 2 * warps;
  s.replay_queue.max_warps = warps;
  s.operand_log.bytes = c.extensions.operand_log_bytes;
  s.operand_log.warp_size = s.warp_size;
  s.operand_log.max_warps = warps;
  s.operand_log.max_tbs = s.max_tbs;
  // Split among up to max_tbs resident TBs, each TB's share must hold a store (two entries).
  if (s.fault_organization == FaultOrganization::operand_log && s.operand_log.share(s.max_tbs) < 2) {
    const std::string why = fmt::format(
        "{} B is {} entries of {} B; split among {} resident TBs a TB gets {}, but a store needs 2 (at least {} B)",
        s.operand_log.bytes, s.operand_log.entries(), s.operand_log.entry_bytes(), s.max_tbs,
        s.operand_log.share(s.max_tbs), 2 * s.max_tbs * s.operand_log.entry_bytes());
    if (root.has("extensions") && root.req("extensions").has("operand_log_bytes"))
      root.req("extensions").req("operand_log_bytes").fail(why);
    root.req("sm").req("fault_organization").fail("the default operand log (" + why + ")");
  }
}

void read_sm(const ConfigNode& n, PlatformConfig& c) {
  SmParams& s = c.sm;
  c.sm_kind = read_kind(n, ModuleRole::sm);
  s.count = n.req_int("count", 1, 1024);
  s.warp_size = n.opt_int("warp_size", 32, 1, 64);
  s.max_threads = n.req_int("max_threads", 1, 1 << 16);
  s.max_tbs = n.req_int("max_tbs", 1, 256);
  s.registers = n.req_int("registers", 1, 1 << 24);
  s.register_alloc_unit = n.opt_int("register_alloc_unit", 1, 1, 1 << 16);
  auto shm = n.req("shared_mem_kb");
  for (const auto& v : shm.req("configs").items()) s.shared_mem_configs.push_back(v.as_int(0, 1 << 16) * 1024);
  if (s.shared_mem_configs.empty()) shm.req("configs").fail("expected at least one configuration");
  if (!std::is_sorted(s.shared_mem_configs.begin(), s.shared_mem_configs.end()))
    shm.req("configs").fail("configurations must be in ascending order");
  auto def = shm.req("default");
  s.shared_mem_default = def.as_int(0, 1 << 16) * 1024;
  if (std::find(s.shared_mem_configs.begin(), s.shared_mem_configs.end(), s.shared_mem_default) ==
      s.shared_mem_configs.end())
    def.fail("default carve-out must be one of the configurations");
  shm.finish();
  s.warp_schedulers = n.req_int("warp_schedulers", 1, 16);
  s.warp_scheduler = n.opt_enum("warp_scheduler", "gto", {"gto", "lrr", "qaws"});
  s.shared_mem_latency = n.opt_int("shared_mem_latency_cycles", 26, 1, 10000);
  {
    const std::vector<std::string> orgs(std::begin(kFaultOrganizationNames), std::end(kFaultOrganizationNames));
    const std::string org = n.opt_enum("fault_organization", orgs.front(), orgs);
    s.fault_organization = FaultOrganization(std::find(orgs.begin(), orgs.end(), org) - orgs.begin());
  }
  if (auto bs = n.opt("block_switching")) {
    s.block_switching.enabled = bs->opt_bool("enabled", false);
    s.block_switching.extra_tbs = bs->opt_int("extra_tbs", s.block_switching.extra_tbs, 1, 256);
    if (s.block_switching.enabled && s.fault_organization == FaultOrganization::stall_on_fault)
      bs->req("enabled").fail("block switching needs a preemptible sm.fault_organization (wd_commit, wd_lastcheck, "
                              "replay_queue or operand_log): under stall_on_fault a faulted TB cannot leave the SM");
    bs->finish();
  }
  if (auto pre = n.opt("preemption")) {
    s.drain_cycles = pre->opt_int("drain_cycles", s.drain_cycles, 0, 1 << 24);
    s.trap_cycles = pre->opt_int("trap_cycles", s.trap_cycles, 0, 1 << 24);
    s.tb_state_bytes = pre->opt_int("tb_state_bytes", s.tb_state_bytes, 0, 1 << 20);
    pre->finish();
  }
  if (auto l1 = n.opt("l1d")) {
    L1dParams& d = s.l1d;
    read_cache_geometry(*l1, d.sets, d.ways, d.line_bytes, d.mshrs, 32);
    d.latency = l1->req_int("latency_cycles", 1, 10000);
    d.write_policy = l1->opt_enum("write_policy", "write_evict", {"write_evict", "write_through"}) == "write_through"
                         ? L1dParams::WritePolicy::write_through
                         : L1dParams::WritePolicy::write_evict;
    d.bypass_global_loads = l1->opt_bool("bypass_global_loads", false);
    d.cache_local = l1->opt_bool("cache_local", true);
    s.l1d_virtual_tags = l1->opt_enum("tags", "virtual", {"virtual", "physical"}) == "virtual";
    l1->finish();
  }
  if (auto ic = n.opt("icache")) {
    InstructionCacheParams& i = s.icache;
    read_cache_geometry(*ic, i.sets, i.ways, i.line_bytes, i.mshrs, 8);
    i.latency = ic->opt_int("latency_cycles", 0, 0, 10000);
    i.instruction_bytes = ic->opt_int("instruction_bytes", 8, 1, 64);
    ic->finish();
  }
  if (auto tlb = n.opt("l1_tlb")) read_tlb(*tlb, s.l1_tlb);
  s.shared_mem_banks = n.opt_int("shared_mem_banks", 32, 1, 64);
  read_pipeline(n.opt("pipeline"), s.pipeline);
  if (s.max_threads % s.warp_size) n.req("max_threads").fail("must be a multiple of warp_size");
  // The issue stage keeps each scheduler's ready warps in one 64-bit mask (real SMs: <= 64 warps).
  if ((s.max_threads / s.warp_size + s.warp_schedulers - 1) / s.warp_schedulers > 64)
    n.req("max_threads").fail("gives more than 64 warps per warp scheduler (max_threads / warp_size / warp_schedulers)");
  n.finish();
}

void read_address_map(const ConfigNode& n, PlatformConfig& c) {
  AddressMapParams& a = c.address_map;
  a.partitions = c.l2.slices;
  a.line_bytes = c.l2.line_bytes;
  a.l2_sets = c.l2.sets;
  a.banks = c.dram.banks;
  a.row_bytes = c.dram.row_bytes;
  const std::string kind = n.req_enum("kind", {"interleave", "xor"});
  auto equations = [&](const std::string& key, uint32_t count) {
    std::vector<std::vector<int>> eqs;
    auto list = n.req(key);
    for (const auto& eq : list.items()) {
      std::vector<int> bits;
      for (const auto& b : eq.items()) bits.push_back(static_cast<int>(b.as_int(0, 63)));
      if (bits.empty()) eq.fail("an equation needs at least one address bit");
      eqs.push_back(bits);
    }
    if (eqs.size() != static_cast<size_t>(std::log2(count)) || !pow2(count))
      list.fail("expected log2(" + std::to_string(count) + ") equations, got " + std::to_string(eqs.size()));
    return eqs;
  };
  if (kind == "interleave") {
    a.kind = AddressMapParams::Kind::interleave;
    a.interleave_bytes = n.req_int("interleave_bytes", 1, 1 << 30);
  } else {
    a.kind = AddressMapParams::Kind::xor_hash;
    a.partition_bits = equations("partition_bits", a.partitions);
    a.set_bits = equations("set_bits", a.l2_sets);
    a.bank_bits = equations("bank_bits", a.banks);
  }
  n.finish();
}

// `latency_clock`: the clock domain a block's fixed latency counts in (GPGPU-Sim gives its ROP
// and DRAM latencies in core cycles); its own domain when absent. Returns its frequency.
double latency_clock(const ConfigNode& n, const std::string& own, const ClocksMhz& clocks) {
  const std::string d = n.opt_enum("latency_clock", own, {"core", "icnt", "l2", "dram"});
  return d == "core" ? clocks.core : d == "icnt" ? clocks.icnt : d == "l2" ? clocks.l2 : clocks.dram;
}

}  // namespace

std::vector<uint64_t> page_colours(const PlatformConfig& cfg) {
  if (!cfg.fill_unit.translation) return {};
  const auto& pg = cfg.fill_unit.paging;
  return FrameAllocator::colours_of(AddressMap(cfg.address_map), pg.page_bytes, pg.device_memory_bytes / pg.page_bytes);
}

PlatformConfig load_platform(const std::string& file,
                             const std::vector<std::pair<std::string, std::string>>& overrides) {
  PlatformConfig c;
  c.file = file;
  c.doc = ConfigDoc::load(file);
  for (const auto& [k, v] : overrides)
    if (k.rfind("workload.", 0) != 0) c.doc->override_key(k, v);
  auto root = ConfigNode::root(c.doc);
  c.name = root.req_str("name");
  root.opt("description");

  auto clk = root.req("clocks_mhz");
  c.clocks.core = clk.req_num("core", 1, 1e5);
  c.clocks.icnt = clk.req_num("icnt", 1, 1e5);
  c.clocks.l2 = clk.req_num("l2", 1, 1e5);
  c.clocks.dram = clk.req_num("dram", 1, 1e5);
  clk.finish();

  if (auto sim = root.opt("sim")) {
    c.quantum_cycles = sim->opt_int("quantum_cycles", 1, 1, 1 << 20);
    c.run_ahead = sim->opt_bool("run_ahead", true);
    sim->finish();
  }

  auto host = root.req("host");
  c.host_kind = read_kind(host, ModuleRole::host);
  c.host.hardware_queues = host.req_int("hardware_queues", 1, 1024);
  c.host.kernel_launch_cycles = host.opt_int("kernel_launch_cycles", 0, 0, 1 << 30);
  c.host.copies_fill_l2 = host.opt_bool("copies_fill_l2", false);
  auto link = host.req("link");
  c.host.link.kind = link.req_enum("kind", {"pcie", "nvlink"});
  c.host.link.clock_mhz = link.req_num("clock_mhz", 1, 1e5);
  c.host.link.width_bytes = link.req_int("width_bytes", 1, 1024);
  c.host.link.burst_bytes = link.req_int("burst_bytes", 1, 1 << 24);
  c.host.link.latency_ns = link.opt_num("latency_ns", 1000, 0, 1e9);
  link.finish();
  host.finish();

  auto bs = root.req("block_scheduler");
  c.block_scheduler_kind = read_kind(bs, ModuleRole::block_scheduler);
  c.block_scheduler.tb_dispatch_cycles = bs.opt_int("tb_dispatch_cycles", 1, 0, 1 << 20);
  c.block_scheduler.search_cycles_per_entry = bs.opt_int("search_cycles_per_entry", 1, 0, 1 << 10);
  c.block_scheduler.max_contexts = bs.opt_int("max_contexts", 32, 1, 4096);
  bs.finish();

  read_sm(root.req("sm"), c);

  auto xb = root.req("crossbar");
  c.crossbar_kind = read_kind(xb, ModuleRole::crossbar);
  c.crossbar.latency_cycles = xb.req_int("latency_cycles", 0, 1 << 20);
  c.crossbar.flit_bytes = xb.req_int("flit_bytes", 1, 4096);
  c.crossbar.flits_per_cycle = xb.opt_int("flits_per_cycle", 1, 1, 64);
  xb.finish();

  auto l2 = root.req("l2");
  c.l2_kind = read_kind(l2, ModuleRole::l2);
  c.l2.slices = l2.req_int("slices", 1, 1024);
  c.l2.sets = l2.req_int("sets", 1, 1 << 20);
  c.l2.ways = l2.req_int("ways", 1, 1024);
  c.l2.line_bytes = l2.req_int("line_bytes", 32, 4096);
  {
    // The tag arrays are allocated up front (about 23 B per line): bounded so that a mistyped key
    // is an error, not an allocation failure. Real L2s hold at most 96 MB (AD102).
    const uint64_t lines = uint64_t{c.l2.slices} * c.l2.sets * c.l2.ways, bytes = lines * c.l2.line_bytes;
    if (lines > (uint64_t{1} << 24))
      l2.fail(fmt::format("{} slices x {} sets x {} ways = {} lines: the model holds at most 2^24 L2 lines", c.l2.slices,
                          c.l2.sets, c.l2.ways, lines));
    if (bytes > (uint64_t{256} << 20))
      l2.warn(fmt::format("{} MiB of L2, beyond any GPU's (96 MB at most): intended?", bytes >> 20));
  }
  c.l2.hit_latency_cycles = l2.req_int("hit_latency_cycles", 0, 1 << 20);
  c.l2.mshrs = l2.req_int("mshrs", 1, 1 << 20);
  c.l2.latency_clock_mhz = latency_clock(l2, "l2", c.clocks);
  c.l2.write_miss = l2.opt_enum("write_miss", "allocate_no_fetch", {"allocate_no_fetch", "fetch_write_through"}) ==
                            "fetch_write_through"
                        ? L2Params::WriteMiss::fetch_write_through
                        : L2Params::WriteMiss::allocate_no_fetch;
  if (!pow2(c.l2.line_bytes)) l2.req("line_bytes").fail("must be a power of two");
  l2.finish();

  auto dr = root.req("dram");
  c.dram_kind = read_kind(dr, ModuleRole::dram);
  c.dram.channels = dr.req_int("channels", 1, 1024);
  c.dram.bus_bytes = dr.req_int("bus_bytes", 1, 1024);
  c.dram.burst_length = dr.req_int("burst_length", 1, 64);
  c.dram.data_rate = dr.req_int("data_rate", 1, 16);
  c.dram.banks = dr.req_int("banks", 1, 1024);
  c.dram.row_bytes = dr.opt_int("row_bytes", 2048, 64, 1 << 20);
  c.dram.latency_cycles = dr.req_int("latency_cycles", 0, 1 << 20);
  c.dram.latency_clock_mhz = latency_clock(dr, "dram", c.clocks);
  auto t = dr.req("timing");
  DramTiming& tm = c.dram.timing;
  for (auto [key, field] : std::initializer_list<std::pair<const char*, uint32_t*>>{
           {"CCD", &tm.CCD}, {"RRD", &tm.RRD}, {"RCD", &tm.RCD}, {"RAS", &tm.RAS}, {"RP", &tm.RP},
           {"RC", &tm.RC}, {"CL", &tm.CL}, {"WL", &tm.WL}, {"WR", &tm.WR}})
    *field = t.req_int(key, 0, 1000);
  t.finish();
  if (auto peak = dr.opt("peak_gbps")) {
    const double declared = peak->as_num(0.1, 1e5);
    if (std::fabs(declared - c.dram_peak_gbps()) > 0.01 * declared)
      peak->fail("declared " + std::to_string(declared) + " GB/s but channels x bus_bytes x data_rate x dram clock gives " +
                 std::to_string(c.dram_peak_gbps()) + " GB/s");
  }
  dr.finish();
  if (c.dram.channels != c.l2.slices && c.l2.slices % c.dram.channels != 0)
    root.req("l2").req("slices").fail("must be a multiple of dram.channels");

  read_address_map(root.req("address_map"), c);

  read_fill_unit(root, c);

  std::map<std::string, ConfigNode> link_nodes;  // extensions.<table>, checked once the widths are known
  if (auto ex = root.opt("extensions")) {
    c.extensions.operand_log_bytes = ex->opt_int("operand_log_bytes", 8192, 256, 1 << 24);
    c.extensions.replay_queue_entries = ex->opt_int("replay_queue_entries", 0, 0, 1 << 16);
    // SPEC 4's allocation-position table has 64 entries (16-bit offsets x 64).
    c.extensions.dual_kernel_positions = ex->opt_int("dual_kernel_positions", 0, 0, 64);
    for (const char* table : kLinkedTables)
      if (auto t = ex->opt(table)) link_nodes.emplace(table, read_table_link(*t, c.extensions.links[table]));
    ex->finish();
  }
  size_fault_tables(root, c);
  DualKernelParams& dk = c.sm.dual_kernel;
  dk.positions = c.extensions.dual_kernel_positions ? c.extensions.dual_kernel_positions : c.sm.max_tbs;
  dk.tb_slots = c.sm.max_tbs;
  dk.offset_bits = bits_for(std::max(c.sm.registers, c.sm.largest_shared_mem()));
  check_links(c, link_nodes);
  auto mech = root.req("mechanisms");
  auto strings = [&](const std::string& key, const std::vector<std::string>& allowed) {
    std::vector<std::string> out;
    for (const auto& v : mech.req(key).items()) out.push_back(v.as_enum(allowed));
    return out;
  };
  c.mechanisms.policies = strings("policies", {"fcfs", "npq", "ppq_exclusive", "ppq_shared", "dss", "spatial",
                                               "warped_slicer", "mias", "dual_kernel", "chimera"});
  c.mechanisms.preemption = strings("preemption", {"context_switch", "draining", "flush"});
  c.mechanisms.warp_schedulers = strings("warp_schedulers", {"gto", "lrr", "qaws"});
  const auto& ws = c.mechanisms.warp_schedulers;
  if (std::find(ws.begin(), ws.end(), c.sm.warp_scheduler) == ws.end())
    (root.req("sm").has("warp_scheduler") ? root.req("sm").req("warp_scheduler") : mech.req("warp_schedulers"))
        .fail("warp scheduler '" + c.sm.warp_scheduler + "' is not among the platform's mechanisms.warp_schedulers");
  mech.finish();
  root.finish();
  return c;
}

}  // namespace mpgpu
