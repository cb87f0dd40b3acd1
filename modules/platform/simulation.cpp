#include "platform/simulation.hpp"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "common/metrics.hpp"
#include "common/vcd_writer.hpp"
#include "block_scheduler/block_scheduler.hpp"
#include "extensions/ksrt.hpp"
#include "platform/gpu.hpp"
#include "platform/json_array_text.hpp"
#include "platform/sharing_stats.hpp"
#include "sm/occupancy.hpp"

namespace mpgpu {

using nlohmann::json;

// SPEC 6 partitions against the platform: SM ids, the page colours its page size gives (each
// partition's processes then allocate only frames of its colours), and who uses the other SMs.
void resolve_partitions(const PlatformConfig& cfg, WorkloadDesc& w) {
  if (w.partitions.empty()) return;
  // The SM-driver policies give whole SMs to one kernel at a time, each partition through its own
  // framework tables: a thread share of an SM and a pin view of one SMST do not apply.
  if (w.policy != "fcfs") {
    for (const PartitionDesc& p : w.partitions)
      if (p.thread_limit < 1.0)
        throw ConfigError(p.source + ": partition '" + p.name + "': thread_limit (an MPS-style share of each SM) needs "
                          "policy fcfs; policy '" + w.policy + "' (" + w.policy_source + ") gives whole SMs to one kernel");
    for (const char* t : {"command_buffers", "active_queue", "smst", "ksrt", "ptbq"})
      if (cfg.extensions.link(t).impl != ExtensionImpl::core || cfg.extensions.link(t).latency_cycles != 1)
        throw ConfigError(w.partitions[0].source + ": partitions under policy '" + w.policy + "' keep one " + t +
                          " per partition; extensions." + t + " (" + cfg.file + ") links a single one: use impl "
                          "core with latency_cycles 1");
  }
  const std::vector<uint64_t> colours = page_colours(cfg);
  std::vector<bool> claimed(cfg.sm.count, false);
  for (PartitionDesc& p : w.partitions) {
    for (uint32_t sm : p.sms)
      if (sm >= cfg.sm.count)
        throw ConfigError(fmt::format("{}: partition '{}': SM {} does not exist (platform '{}' has SMs 0..{})",
                                      p.sms_source, p.name, sm, cfg.name, cfg.sm.count - 1));
    for (uint32_t i = 0; i < cfg.sm.count; ++i)
      if (p.sms.empty() || std::find(p.sms.begin(), p.sms.end(), i) != p.sms.end()) claimed[i] = true;
    if (p.colours.empty()) continue;
    if (!cfg.fill_unit.translation)
      throw ConfigError(p.colours_source + ": partition '" + p.name + "': page colours need address translation "
                        "(fill_unit.translation: paged in " + cfg.file + ")");
    for (uint32_t c : p.colours) {
      if (c >= colours.size())
        throw ConfigError(fmt::format("{}: partition '{}': colour {} does not exist: {} B pages on platform '{}' give "
                                      "{} colour(s), 0..{} (mpgpu validate lists them)",
                                      p.colours_source, p.name, c, cfg.fill_unit.paging.page_bytes, cfg.name,
                                      colours.size(), colours.size() - 1));
      p.modules |= colours[c];
    }
  }
  for (auto& proc : w.processes)
    if (proc.partition >= 0 && w.partitions[proc.partition].modules)
      proc.address_space.allowed_modules = w.partitions[proc.partition].modules;
  for (const auto& proc : w.processes)
    if (proc.partition < 0 && std::find(claimed.begin(), claimed.end(), false) == claimed.end())
      throw ConfigError(proc.source + ": process '" + proc.name + "' is in no partition and every SM belongs to one "
                        "(give it a partition, or leave SMs out of the partitions)");
}

// What the SM driver writes into the KSRT must fit its fields (checked again by the table at run
// time; here so that validate rejects it, with the key's location and the field's width).
void check_ksrt_fields(const PlatformConfig& cfg, const WorkloadDesc& w) {
  const FieldLayout ksrt = Ksrt::layout(extension_params(cfg.sm, cfg.block_scheduler));
  const uint32_t prio_bits = field_bits(ksrt, "priority"), token_bits = field_bits(ksrt, "tokens");
  const int64_t max_prio = (int64_t{1} << prio_bits) - 1, max_tokens = (int64_t{1} << (token_bits - 1)) - 1;
  for (const auto& p : w.processes) {
    const std::string at = [&](const std::string& src) { return src.empty() ? p.source : src; }(p.priority_source);
    if (p.priority > max_prio)
      throw ConfigError(fmt::format("{}: priority {} of process '{}' does not fit the KSRT's {}-bit priority field "
                                    "(0..{}) of platform '{}'", at, p.priority, p.name, prio_bits, max_prio, cfg.name));
    if ((w.policy == "dss" || w.policy == "spatial") && p.dss_tokens > max_tokens)
      throw ConfigError(fmt::format("{}: dss_tokens {} of process '{}' does not fit the KSRT's {}-bit signed token "
                                    "field (at most {} on platform '{}': {} SMs)",
                                    p.dss_tokens_source.empty() ? p.source : p.dss_tokens_source, p.dss_tokens, p.name,
                                    token_bits, max_tokens, cfg.name, cfg.sm.count));
  }
}

void resolve_workload(const PlatformConfig& cfg, WorkloadDesc& w) {
  resolve_partitions(cfg, w);  // first: its policy message is more specific than the mechanism check
  const double mhz = cfg.clocks.core;
  auto cycles = [&](double ns) { return ns * mhz / 1e3; };
  if (w.stop_at_cycles > 0) w.stop_at_ns = w.stop_at_cycles * 1e3 / mhz;
  const auto& offered = cfg.mechanisms.policies;
  if (std::find(offered.begin(), offered.end(), w.policy) == offered.end())
    throw ConfigError(w.policy_source + ": policy '" + w.policy + "' is not among the mechanisms of platform '" +
                      cfg.name + "' (" + cfg.file + ": mechanisms.policies)");
  if (sharing_policy(w.policy)) {  // SPEC 5: TB mixes live on the interference inside an SM's pipeline
    for (const auto& k : w.kernels)
      if (!warp_level(k))
        throw ConfigError(k.source + ": kernel '" + k.name + "' is TB-level (a sampled time per TB); policy '" +
                          w.policy + "' (" + w.policy_source + ") profiles kernels on the SM pipeline and needs " +
                          "warp-level kernels (a program or a trace)");
    if (!w.partitions.empty())
      throw ConfigError(w.partitions[0].source + ": partitions do not combine with policy '" + w.policy + "' (" +
                        w.policy_source + "), which divides every SM between the kernels");
  }
  const auto& mechs = cfg.mechanisms.preemption;
  const bool per_tb = per_tb_policy(w.policy);
  if (per_tb && w.oracle)
    for (const auto& k : w.kernels)
      if (warp_level(k))
        throw ConfigError(w.drain_estimate_source + ": the oracle needs each TB's exact remaining time, which only " +
                          "TB-level kernels have; kernel '" + k.name + "' (" + k.source + ") is warp-level");
  const bool whole_sm = w.policy != "fcfs" && !per_tb && !sharing_policy(w.policy);  // SM-driver policies
  if (whole_sm && std::find(mechs.begin(), mechs.end(), w.preemption) == mechs.end())
    throw ConfigError(w.preemption_source + ": preemption '" + w.preemption + "' is not among the mechanisms of platform '" +
                      cfg.name + "' (" + cfg.file + ": mechanisms.preemption)");
  if (whole_sm && w.preemption == "flush" && w.flush_fallback == "none")
    for (const auto& k : w.kernels)
      if (may_lose_idempotence(k))
        throw ConfigError(k.source + ": kernel '" + k.name + "' can lose its idempotence (" +
                          (warp_level(k) ? std::string("it has an atomic or a global store") : "idempotent below 1") +
                          "), so its TBs cannot always be flushed: " + w.preemption_source +
                          " needs flush_fallback: draining or context_switch");
  if (w.policy != "fcfs" && w.processes.size() > cfg.block_scheduler.max_contexts)
    throw ConfigError(w.processes[cfg.block_scheduler.max_contexts].source + ": process '" +
                      w.processes[cfg.block_scheduler.max_contexts].name + "': " + std::to_string(w.processes.size()) +
                      " processes exceed the " + std::to_string(cfg.block_scheduler.max_contexts) +
                      " command buffers (contexts) of platform '" + cfg.name + "' (block_scheduler.max_contexts)");
  if (w.policy != "fcfs") check_ksrt_fields(cfg, w);
  if (cfg.fill_unit.translation) {
    // Address spaces against the platform's device memory and memory modules.
    const uint64_t mem = cfg.fill_unit.paging.device_memory_bytes;
    uint64_t resident = 0;
    for (const auto& p : w.processes) {
      for (const Allocation& a : p.address_space.allocations) {
        if (a.bytes > mem)
          throw ConfigError(fmt::format("{}: allocation '{}' of process '{}' ({} MiB) is larger than the device memory "
                                        "of platform '{}' ({} MiB, {}: fill_unit.device_memory_bytes)",
                                        a.source, a.name, p.name, a.bytes >> 20, cfg.name, mem >> 20, cfg.file));
        if (a.placement == Placement::device) resident += a.bytes;
        if (a.contiguous && p.address_space.allowed_modules)
          throw ConfigError(a.source + ": allocation '" + a.name + "' of process '" + p.name + "' is contiguous, so its "
                            "frames span every page colour; its process takes frames only from some memory modules (" +
                            (p.partition >= 0 ? w.partitions[p.partition].colours_source : p.address_space.modules_source) + ")");
      }
      const uint64_t all = cfg.l2.slices >= 64 ? ~uint64_t{0} : (uint64_t{1} << cfg.l2.slices) - 1;
      if (p.address_space.allowed_modules & ~all)
        throw ConfigError(fmt::format("{}: process '{}' names a memory module the platform '{}' does not have "
                                      "(modules 0..{}: one per L2 slice)",
                                      p.address_space.modules_source, p.name, cfg.name, cfg.l2.slices - 1));
    }
    if (resident > mem)
      throw ConfigError(fmt::format("{}: the device-resident allocations of all processes ({} MiB) exceed the device "
                                    "memory of platform '{}' ({} MiB, {}: fill_unit.device_memory_bytes)",
                                    w.file, resident >> 20, cfg.name, mem >> 20, cfg.file));
  }
  std::vector<bool> used(w.kernels.size(), false);
  for (const auto& p : w.processes)
    for (const auto& s : p.streams)
      for (const auto& c : s.commands)
        if (c.kind == Command::Kind::launch) used[c.kernel] = true;
  for (size_t i = 0; i < w.kernels.size(); ++i) {
    KernelDesc& k = w.kernels[i];
    if (!used[i]) continue;  // a library kernel no process launches need not fit
    const Occupancy o = compute_occupancy(cfg.sm, {k.threads_per_tb, k.registers_per_tb, k.shared_mem_per_tb});
    if (o.tbs_per_sm == 0 || o.shared_mem_config == 0)
      throw ConfigError(fmt::format(
          "{}: kernels.{}: a TB ({} threads, {} registers, {} B shared memory) never fits an SM of "
          "platform '{}' ({} threads, {} registers, {} KB largest shared memory): limited by {}",
          k.source, k.name, k.threads_per_tb, k.registers_per_tb, k.shared_mem_per_tb, cfg.name,
          cfg.sm.max_threads, cfg.sm.registers, cfg.sm.largest_shared_mem() / 1024,
          o.shared_mem_config == 0 ? "shared_memory" : o.limiting));
    if (warp_level(k)) continue;  // its time comes from the pipeline
    TbTimeDist& d = k.tb_time;
    if (d.mean_ns > 0) d.mean_cycles = cycles(d.mean_ns);
    if (d.min_ns > 0 || d.max_ns > 0) {
      d.min_cycles = cycles(d.min_ns);
      d.max_cycles = cycles(d.max_ns);
    }
    if (d.kind == TbTimeDist::Kind::calibrated) {
      const double waves = std::ceil(double(k.grid) / (double(o.tbs_per_sm) * cfg.sm.count));
      d.mean_cycles = cycles(d.kernel_time_ns) / waves;
    }
    if (d.kind == TbTimeDist::Kind::uniform) d.mean_cycles = (d.min_cycles + d.max_cycles) / 2;
    if (d.kind != TbTimeDist::Kind::uniform && d.mean_cycles < 1)
      throw ConfigError(k.source + ": kernels." + k.name + ": tb_time: mean TB time is below one core cycle");
  }
}

namespace {

// CPU time of the calling thread: the simulation's own cost, whatever else shares the machine.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// The shared memory hierarchy: L2 slices, crossbar ports, DRAM channels.
json memory_stats(Gpu& gpu, const PlatformConfig& cfg, const sc_core::sc_time& end) {
  const double t = to_ns(end);
  uint64_t hits = 0, misses = 0, merged = 0, writebacks = 0, mshr_full = 0, set_full = 0;
  double mshr_busy_ns = 0;
  for (const L2Slice* s : gpu.l2_slices()) {
    hits += s->hits(), misses += s->misses(), merged += s->merged(), writebacks += s->writebacks();
    mshr_full += s->mshr_full_waits();
    set_full += s->set_full_waits();
    mshr_busy_ns += to_ns(s->mshr_busy());
  }
  uint64_t bytes = 0, reads = 0, writes = 0, row_hits = 0, row_misses = 0, row_conflicts = 0;
  for (const MemoryController* m : gpu.memory_controllers()) {
    bytes += m->bytes(), reads += m->reads(), writes += m->writes();
    row_hits += m->row_hits(), row_misses += m->row_misses(), row_conflicts += m->row_conflicts();
  }
  const Crossbar& x = gpu.crossbar();
  double req_busy = 0, reply_busy = 0;
  for (uint32_t p = 0; p < x.ports(); ++p) req_busy += to_ns(x.busy(p)), reply_busy += to_ns(x.reply_busy(p));
  const double port_ns = t * std::max(1u, x.ports());
  const uint64_t l2 = hits + misses + merged, rows = row_hits + row_misses + row_conflicts;
  return {{"crossbar_requests", x.requests()},
          {"crossbar_request_utilization", port_ns > 0 ? req_busy / port_ns : 0.0},
          {"crossbar_reply_utilization", port_ns > 0 ? reply_busy / port_ns : 0.0},
          {"l2_hits", hits}, {"l2_misses", misses}, {"l2_merged", merged}, {"l2_writebacks", writebacks},
          {"l2_hit_rate", l2 ? double(hits + merged) / l2 : 0.0},
          {"l2_mshr_occupancy", t > 0 ? mshr_busy_ns / t / std::max<size_t>(1, gpu.l2_slices().size()) : 0.0},
          {"l2_mshr_full_waits", mshr_full}, {"l2_set_full_waits", set_full},
          {"dram_bytes", bytes}, {"dram_reads", reads}, {"dram_writes", writes},
          {"dram_bandwidth_gbps", t > 0 ? bytes / t : 0.0}, {"dram_peak_gbps", cfg.dram_peak_gbps()},
          {"dram_row_hits", row_hits}, {"dram_row_misses", row_misses}, {"dram_row_conflicts", row_conflicts},
          {"dram_row_hit_rate", rows ? double(row_hits) / rows : 0.0}};
}

// Address translation over the whole GPU: L1 TLBs (all SMs), the fill unit, the allocator.
json translation_stats(Gpu& gpu, const PlatformConfig& cfg) {
  if (!cfg.fill_unit.translation) return {{"mode", "none"}};
  PipelineStats l1;
  uint64_t l1_mshr_full = 0;
  for (const Sm* sm : gpu.sms()) l1 += sm->pipeline().stats(), l1_mshr_full += sm->pipeline().l1_tlb().stats().mshr_full_waits;
  json t = gpu.fill_unit().total().to_json();
  t["mode"] = "paged";
  t["page_bytes"] = cfg.fill_unit.paging.page_bytes;
  t["levels"] = gpu.memory().levels();
  t["walk"] = cfg.fill_unit.fixed_walk_cycles ? "fixed" : "memory";
  t["l1_tlb"] = {{"accesses", l1.l1_tlb_accesses}, {"hits", l1.l1_tlb_hits}, {"misses", l1.l1_tlb_misses},
                 {"merged", l1.l1_tlb_merged}, {"mshr_full_waits", l1_mshr_full}};
  t["l2_tlb"]["mshr_full_waits"] = gpu.fill_unit().l2_tlb().stats().mshr_full_waits;
  t["frames_allocated"] = gpu.memory().frames().allocated();
  t["device_memory_bytes"] = cfg.fill_unit.paging.device_memory_bytes;
  return t;
}

// SPEC 6 partitions: what each got and how much the others got in its way. Contexts are host
// slots; "by others" counts lines / open rows of the partition's contexts displaced by contexts
// outside it, "of others" the converse.
json partition_stats(Gpu& gpu, const PlatformConfig& cfg, const WorkloadDesc& w, double t_ns) {
  json out = json::array();
  if (w.partitions.empty()) return out;
  const auto& procs = gpu.host().processes();
  std::vector<int32_t> part_of(procs.size());
  for (size_t c = 0; c < procs.size(); ++c) part_of[c] = w.processes[procs[c].index].partition;
  for (int32_t p = 0; p < int32_t(w.partitions.size()); ++p) {
    const PartitionDesc& pd = w.partitions[p];
    json members = json::array();
    uint64_t pages = 0, dram_bytes = 0, l2_by = 0, l2_of = 0, row_by = 0, row_of = 0;
    const uint32_t n = static_cast<uint32_t>(procs.size());
    for (uint32_t c = 0; c < n; ++c) {
      if (part_of[c] != p) continue;
      members.push_back(w.processes[procs[c].index].name);
      if (cfg.fill_unit.translation) pages += gpu.memory().resident_pages(c);
      for (const MemoryController* m : gpu.memory_controllers()) dram_bytes += m->by_context().bytes(c);
      for (uint32_t o = 0; o < n; ++o) {
        if (part_of[o] == p) continue;
        for (const L2Slice* s : gpu.l2_slices()) l2_by += s->by_context().displaced(o, c), l2_of += s->by_context().displaced(c, o);
        for (const MemoryController* m : gpu.memory_controllers())
          row_by += m->by_context().displaced(o, c), row_of += m->by_context().displaced(c, o);
      }
    }
    json mods = json::array();
    for (int m = 0; m < 64; ++m)
      if (pd.modules >> m & 1) mods.push_back(m);
    json sms = pd.sms.empty() ? json("all") : json(pd.sms);
    out.push_back({{"name", pd.name}, {"sms", sms}, {"thread_limit", pd.thread_limit}, {"colours", pd.colours},
                   {"modules", mods}, {"processes", members}, {"pages", pages}, {"dram_bytes", dram_bytes},
                   {"dram_bandwidth_gbps", t_ns > 0 ? dram_bytes / t_ns : 0.0},
                   {"l2_lines_evicted_by_others", l2_by}, {"l2_lines_of_others_evicted", l2_of},
                   {"dram_rows_closed_by_others", row_by}, {"dram_rows_of_others_closed", row_of}});
  }
  return out;
}

// With a list sink (forked runs), the launch records and the preemption list go to it as the text
// stats.json prints (JsonArrayText), for the parent to splice, instead of into the tree; the
// result then holds "_kernel_records", their count.
json collect(Gpu& gpu, const PlatformConfig& cfg, const WorkloadDesc& w, const SimRequest& req) {
  const auto& sink = req.list_sink;
  auto spill_to = [&](ListKind kind) {
    return sink ? JsonArrayText::Spill([&sink, kind](std::string_view text) { sink(kind, text); })
                : JsonArrayText::Spill();
  };
  const ClockDomain core(cfg.clocks.core);
  const sc_core::sc_time end = sc_core::sc_time_stamp();
  json r;
  r["sim"] = {{"cycles", core.to_cycles(end)}, {"time_ns", to_ns(end)}, {"core_clock_mhz", cfg.clocks.core}};
  Host& host = gpu.host();
  json kernels = json::array();
  JsonArrayText kernels_text(1, spill_to(ListKind::kernels));  // "kernels"
  uint64_t instructions = 0;
  std::vector<const KernelLaunch*> by_id;
  for (const auto& k : host.launches()) by_id.push_back(&k);
  std::sort(by_id.begin(), by_id.end(), [](auto* a, auto* b) { return a->id < b->id; });
  std::map<uint32_t, PipelineStats> pipe;  // by launch id, summed over SMs
  for (const Sm* sm : gpu.sms())
    for (const auto& [id, ks] : sm->pipeline().kernel_stats()) pipe[id] += ks;
  for (const KernelLaunch* kp : by_id) {
    const KernelLaunch& k = *kp;
    const ProcessDesc& pd = w.processes[host.processes()[k.process].index];
    const bool done = k.end_ns >= 0;
    json warp;
    if (warp_level(*k.kernel)) {
      const PipelineStats& ks = pipe[k.id];
      instructions += ks.warp_instructions;
      warp = ks.to_json();
      // A kernel still running when a measuring window ended: its cycles up to the end.
      const double cycles = done ? core.ns_to_cycles(k.end_ns - k.start_ns)
                            : k.start_ns >= 0 ? core.ns_to_cycles(to_ns(end) - k.start_ns) : 0;
      warp["cycles"] = cycles;
      warp["ipc"] = cycles > 0 ? ks.warp_instructions / cycles : 0.0;
      if (k.kernel->trace) warp["trace_instructions"] = k.kernel->trace->instruction_count();
    } else if (done) {
      instructions += k.kernel->instructions_per_tb * k.kernel->grid;
    }
    json kj = {{"name", k.kernel->name}, {"process", pd.name}, {"launch_id", k.id == ~0u ? json(nullptr) : json(k.id)},
               {"submit_ns", k.submit_ns}, {"launch_ns", k.arrive_ns}, {"start_ns", k.start_ns},
               {"end_ns", k.end_ns}, {"tbs", k.kernel->grid}, {"completed", done},
               {"duration_ns", done ? k.end_ns - k.arrive_ns : -1.0}};
    kj["warp_level"] = std::move(warp);
    if (sink)
      kernels_text.add(kj);
    else
      kernels.push_back(std::move(kj));  // moved, not copied: thousands of launches make it large
  }
  if (sink) {
    r["_kernel_records"] = kernels_text.items();
    kernels_text.finish();
  } else {
    r["kernels"] = std::move(kernels);
  }
  json procs = json::array();
  for (const auto& p : host.processes()) {
    const ProcessDesc& pd = w.processes[p.index];
    json runs = json::array();
    for (const auto& run : p.runs) runs.push_back({{"start_ns", run.start_ns}, {"end_ns", run.end_ns}});
    json& pj = procs.emplace_back(json{{"name", pd.name}, {"index", p.index}, {"priority", pd.priority},
                                       {"arrival_ns", pd.arrival_ns}});
    pj["runs"] = std::move(runs);
  }
  if (cfg.fill_unit.translation) {
    // Per process: its L1 TLB traffic (summed over its kernels) and its fill-unit counters.
    std::vector<PipelineStats> l1(procs.size());
    for (const KernelLaunch* kp : by_id)
      if (warp_level(*kp->kernel)) l1[kp->process] += pipe[kp->id];
    const auto& fu = gpu.fill_unit().stats();
    for (size_t i = 0; i < procs.size(); ++i) {
      json t = i < fu.size() ? fu[i].to_json() : TranslationStats{}.to_json();
      t["l1_tlb"] = {{"accesses", l1[i].l1_tlb_accesses}, {"hits", l1[i].l1_tlb_hits},
                     {"misses", l1[i].l1_tlb_misses}, {"merged", l1[i].l1_tlb_merged}};
      procs[i]["translation"] = std::move(t);
    }
  }
  r["processes"] = std::move(procs);
  json sms = json::array();
  for (const Sm* sm : gpu.sms())
  {
    json pj = sm->pipeline().stats().to_json();
    const double cycles = double(core.to_cycles(end));
    pj["ipc"] = cycles > 0 ? sm->pipeline().stats().warp_instructions / cycles : 0.0;
    pj["l1_mshr_occupancy"] = cycles > 0 ? sm->pipeline().l1d().mshr_busy_cycles() / cycles : 0.0;
    pj["l1_mshr_full_waits"] = sm->pipeline().l1d().mshr_full_waits();
    if (cfg.fill_unit.translation) {  // the fill unit's work for this SM's L1 TLB misses
      const auto& by_sm = gpu.fill_unit().stats_by_sm();
      pj["translation"] = sm->id() < by_sm.size() ? by_sm[sm->id()].to_json() : TranslationStats{}.to_json();
    }
    const SmStats& st = sm->stats();
    json smj = {{"id", sm->id()}, {"tbs", st.tbs_done}, {"busy_ns", to_ns(st.busy)}, {"peak_resident_tbs", st.peak_resident},
                {"utilization", end > sc_core::SC_ZERO_TIME ? st.busy / end : 0.0}, {"pipeline", pj}};
    if (sharing_policy(w.policy)) {  // the TB-mix register as the SM holds it at the end
      json reg = json::array();
      for (const TbMixEntry& e : sm->tb_mix()) reg.push_back({{"launch", e.launch}, {"max_tbs", e.max_tbs}});
      smj["tb_mix"] = std::move(reg);
    }
    if (cfg.sm.block_switching.enabled)
      smj["block_switching"] = {{"switched_out", st.tbs_switched_out}, {"switched_in", st.tbs_switched_in},
                                {"peak_switched_out", st.peak_switched_out}, {"bytes_saved", st.switch_bytes_saved},
                                {"bytes_restored", st.switch_bytes_restored}};
    sms.push_back(std::move(smj));
  }
  r["sms"] = std::move(sms);
  r["memory"] = memory_stats(gpu, cfg, end);
  r["memory"]["page_walks"] = gpu.fill_unit().walks();
  r["memory"]["translation"] = translation_stats(gpu, cfg);
  if (!w.partitions.empty()) r["partitions"] = partition_stats(gpu, cfg, w, to_ns(end));
  r["tbs_done"] = gpu.block_scheduler().tbs_done();
  // Preemption: per preemption, request to SM free; context traffic; SM idle time.
  json pre = json::array();
  JsonArrayText pre_text(2, spill_to(ListKind::preemptions));  // scheduling.preemption_list
  size_t preemptions = 0;
  double lat_sum = 0, lat_max = 0, util_sum = 0;
  uint32_t util_n = 0;
  const bool per_tb = per_tb_policy(w.policy);
  for (const auto& p : gpu.block_scheduler().preemptions()) {
    const double lat = p.done_ns - p.request_ns;
    json tbs = json::array();
    for (const auto& t : p.tbs) {
      json tb = {{"launch", t.launch}, {"kernel", t.kernel}, {"tb", t.tb}, {"technique", technique_name(t.technique)},
                 {"wasted_instructions", t.wasted_instructions}, {"wasted_cycles", t.wasted_cycles}, {"bytes", t.bytes}};
      if (t.left_ns >= 0) {  // chimera, dual_kernel: what the cost model predicted, and when it left
        tb["estimated_latency_ns"] = t.estimated_ns >= 0 ? json(t.estimated_ns) : json(nullptr);
        tb["latency_ns"] = t.left_ns - p.request_ns;
        tb["estimated_overhead"] = t.estimated_overhead;
      }
      tbs.push_back(std::move(tb));
    }
    // Moved in, not listed in the braces: a braced list copies (thousands of TBs per run).
    json item = {{"sm", p.sm}, {"request_ns", p.request_ns}, {"done_ns", p.done_ns}, {"latency_ns", lat}};
    item["tbs"] = std::move(tbs);
    if (per_tb) {
      item["resident_instructions"] = p.resident_instructions;
      item["register_utilization"] = p.register_utilization >= 0 ? json(p.register_utilization) : json(nullptr);
      if (p.register_utilization >= 0) util_sum += p.register_utilization, ++util_n;
    }
    if (sink)
      pre_text.add(item);
    else
      pre.push_back(std::move(item));
    ++preemptions;
    lat_sum += lat;
    lat_max = std::max(lat_max, lat);
  }
  uint64_t saved = 0, restored = 0, tbs_saved = 0, tbs_restored = 0, switched_out = 0, switched_in = 0;
  uint64_t flushed = 0, restarted = 0, flushed_instructions = 0, flushed_cycles = 0;
  double idle_ns = 0;
  for (const Sm* sm : gpu.sms()) {
    switched_out += sm->stats().tbs_switched_out;
    switched_in += sm->stats().tbs_switched_in;
    saved += sm->stats().bytes_saved;
    restored += sm->stats().bytes_restored;
    tbs_saved += sm->stats().tbs_saved;
    tbs_restored += sm->stats().tbs_restored;
    flushed += sm->stats().tbs_flushed;
    restarted += sm->stats().tbs_restarted;
    flushed_instructions += sm->stats().flushed_instructions;
    flushed_cycles += sm->stats().flushed_cycles;
    idle_ns += to_ns(end) - to_ns(sm->stats().busy);
  }
  r["scheduling"] = {{"policy", w.policy},
                     {"mechanism", w.policy == "fcfs" || sharing_policy(w.policy) ? "none" : per_tb ? "per_tb" : w.preemption},
                     {"peak_kernels_per_sm", gpu.block_scheduler().peak_kernels_per_sm()},
                     {"preemptions", preemptions},
                     {"preemption_latency_mean_ns", preemptions == 0 ? 0.0 : lat_sum / preemptions},
                     {"preemption_latency_max_ns", lat_max},
                     {"bytes_saved", saved},
                     {"bytes_restored", restored},
                     {"tbs_saved", tbs_saved},
                     {"tbs_restored", tbs_restored},
                     {"policy_decisions", gpu.block_scheduler().policy_decisions()},
                     {"sm_idle_ns", idle_ns}};
  if (sink)
    pre_text.finish();
  else
    r["scheduling"]["preemption_list"] = std::move(pre);
  if (per_tb)
    r["scheduling"]["per_tb"] = {{"latency_constraint_ns", w.latency_constraint_ns},
                                 {"drain_estimate", w.oracle ? "oracle" : "predicted"},
                                 {"register_utilization_mean", util_n ? json(util_sum / util_n) : json(nullptr)}};
  if (w.policy != "fcfs" && (w.preemption == "flush" || per_tb))  // the work flushed TBs lost, and their restarts
    r["scheduling"]["flush"] = {{"fallback", w.flush_fallback}, {"tbs_flushed", flushed}, {"tbs_restarted", restarted},
                                {"wasted_instructions", flushed_instructions}, {"wasted_cycles", flushed_cycles}};
  if (const SharingController* sc = gpu.block_scheduler().sharing()) r["scheduling"]["sharing"] = sharing_stats(*sc);
  if (cfg.sm.block_switching.enabled)  // bytes_saved / bytes_restored above include their traffic
    r["scheduling"]["block_switching"] = {{"extra_tbs", cfg.sm.block_switching.extra_tbs},
                                          {"switched_out", switched_out}, {"switched_in", switched_in}};
  r["warp_instructions"] = instructions;
  r["copies"] = host.copies().size();
  return r;
}

}  // namespace

constexpr uint64_t kSimTimeLimitPs = uint64_t{1} << 62;  // about 53 days

json simulate_here(const PlatformConfig& cfg, const WorkloadDesc& w_in, const SimRequest& req) {
  WorkloadDesc w = w_in;  // the isolated variant differs in repeats
  if (req.isolated) {
    w.replay_until_all_done = false;
    for (uint32_t i : req.processes) {
      w.processes[i].repeat = 1;
      w.processes[i].arrival_ns = 0;
    }
  }
  // The model ends a run with sc_stop(); SystemC's "stopped by user" note would only confuse.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  Timeline timeline(req.timeline_path);
  // The model is never destroyed: destroying a module kills its suspended SC_THREADs by throwing
  // sc_unwind_exception on their coroutine stacks, which AddressSanitizer cannot follow (it
  // ignores the unwind and later reports stale poison as stack-buffer-underflow on this stack).
  // One simulation runs per OS process (DESIGN, Testing), which ends soon after; the pointer
  // stays reachable, so it is not a leak report either.
  static Gpu* model = nullptr;
  model = new Gpu("gpu", cfg, w, req.processes, &timeline, req.progress);
  Gpu& gpu = *model;
  // Errors come back as {"error", "kind"}, not as exceptions: after sc_start the stack has been
  // switched by SystemC, and ASan cannot follow an unwind from here (see above).
  auto fail = [](const std::string& msg, bool config) {
    return json{{"error", msg}, {"kind", config ? "config" : "sim"}};
  };
  std::optional<VcdWriter> vcd;
  if (!req.vcd_path.empty()) {
    vcd.emplace();
    const uint64_t period_ps = static_cast<uint64_t>(1e6 / cfg.clocks.core + 0.5);  // the block scheduler's clock
    gpu.for_each_table_link([&](auto& l) { l.trace(*vcd, period_ps); });
    if (vcd->empty())
      return fail("--vcd: no pin view or Verilog twin in use (set extensions.<table>.impl: pins or verilog for a "
                  "table the run uses: the framework tables (smst, ksrt, ptbq, command_buffers, active_queue) under "
                  "its policies, victim_sets, preempting_status or allocation_positions under dual_kernel, "
                  "running_tb_status in any run, replay_queue or operand_log under their sm.fault_organization)",
                  true);
  }
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_seconds();
  // SystemC counts 1 ps steps in 64 bits and wraps silently. Every single delay the inputs can
  // ask for is far below 2^60 ps (TB times <= 1000 s, copies <= 1 TiB), so stopping at 2^62 ps
  // leaves no event past 2^64.
  const sc_core::sc_time time_limit(double(kSimTimeLimitPs), sc_core::SC_PS);
  sc_core::sc_time stop_at =
      w.max_sim_time_ns > 0 ? std::min(time_limit, sc_core::sc_time(w.max_sim_time_ns, sc_core::SC_NS)) : time_limit;
  // A measuring window: the run ends at its end, finished or not (sc_start stops before events
  // at exactly that time, so the window is [0, stop_at)).
  const bool windowed = w.stop_at_ns > 0 && sc_core::sc_time(w.stop_at_ns, sc_core::SC_NS) < stop_at;
  if (windowed) stop_at = sc_core::sc_time(w.stop_at_ns, sc_core::SC_NS);
  if (cfg.quantum_cycles == 1 && cfg.run_ahead) gpu.sm_calendar().enable_run_ahead(ClockDomain(cfg.clocks.core), stop_at);
  sc_core::sc_start(stop_at, sc_core::SC_EXIT_ON_STARVATION);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = thread_cpu_seconds() - cpu0;
  if (const auto& a = gpu.abort()) {
    // The run stopped at the first access it could not translate: the statistics so far, marked.
    json r = collect(gpu, cfg, w, req);
    r["status"] = "aborted";
    r["abort"] = {{"process", w.processes[gpu.host().processes()[a->launch->process].index].name},
                  {"kernel", a->launch->kernel->name}, {"launch_id", a->launch->id}, {"sm", a->sm},
                  {"tb", a->tb}, {"warp", a->warp}, {"vaddr", fmt::format("{:#x}", a->vaddr)},
                  {"reason", a->reason}, {"at_ns", a->at_ns}};
    r["host_sim_seconds"] = wall;
    r["host_sim_cpu_seconds"] = cpu;
    return r;
  }
  const bool finished = gpu.host().all_done() || gpu.host().stopped_by_replay();
  std::string unfinished;
  for (const auto& p : gpu.host().processes())
    if (p.runs.size() < w.processes[p.index].repeat) unfinished += " " + w.processes[p.index].name;
  // Events still pending: sc_start stopped at its end time (it returns at the last event before it).
  const bool pending = !finished && sc_core::sc_pending_activity();
  // A measuring window ended: the run completes there, with the statistics over the window.
  const bool window_ended = pending && windowed;
  const bool stopped = pending && !windowed;
  if (window_ended) {
    // The clock stopped at the last event before the window's end: advance it to the end itself
    // (no event lies between), so that IPC is over exactly the window.
    if (sc_core::sc_time_stamp() < stop_at) sc_core::sc_start(stop_at - sc_core::sc_time_stamp(), sc_core::SC_RUN_TO_TIME);
    for (const Sm* sm : gpu.sms()) sm->timeline_running(sc_core::sc_time_stamp());
  }
  if (stopped && stop_at < time_limit)
    return fail(fmt::format("not finished within max_sim_time_us = {:.0f}: unfinished:{} (starvation or "
                     "livelock under policy '{}'?)",
                     w.max_sim_time_ns / 1e3, unfinished, w.policy),
         false);
  if (stopped)
    return fail(fmt::format("simulated time reached {:.3g} s, the model's limit (2^62 ps: SystemC counts 1 ps steps in 64 "
                     "bits), with unfinished:{} ({} of {} TBs done)",
                     time_limit.to_seconds(), unfinished, gpu.block_scheduler().tbs_done(),
                     gpu.block_scheduler().tbs_issued()),
         false);
  if (!finished && !window_ended)
    return fail(fmt::format("no progress: simulation ran out of events at {:.1f} us with {} kernel(s) waiting and {} of {} "
                     "TBs done (deadlock in the model)",
                     to_ns(sc_core::sc_time_stamp()) / 1e3, gpu.block_scheduler().kernels_waiting(),
                     gpu.block_scheduler().tbs_done(), gpu.block_scheduler().tbs_issued()),
         false);
  json r = collect(gpu, cfg, w, req);
  r["status"] = window_ended ? "stopped_at" : "completed";  // stopped_at: kernels still running are not completed
  r["host_sim_seconds"] = wall;  // moved under "host" by run_workload
  r["host_sim_cpu_seconds"] = cpu;
  r["host_sm_steps_run_ahead"] = gpu.sm_calendar().steps_run_ahead();
  r["host_sm_steps"] = gpu.sm_calendar().steps();
  if (vcd) vcd->write(req.vcd_path);
  gpu.for_each_table_link([&](auto& l) {
    // Per table (the victim sets of every SM together): what its owner accessed, in cycles.
    std::string table = l.name();
    while (!table.empty() && isdigit(static_cast<unsigned char>(table.back()))) table.pop_back();
    json& c = r["cosim"][table];
    c["impl"] = impl_name(l.impl());
    c["instances"] = c.value("instances", 0) + 1;
    c["accesses"] = c.value("accesses", uint64_t{0}) + l.accesses();
    c["cycles"] = c.value("cycles", uint64_t{0}) + l.cycles();
  });
  if (const SharingController* sc = gpu.block_scheduler().sharing())
    sharing_timeline(*sc, timeline, to_ns(sc_core::sc_time_stamp()));
  timeline.commit();
  return r;
}

RunStats run_workload_stats(const PlatformConfig& cfg, const WorkloadDesc& w, const RunOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<SimRequest> reqs;
  SimRequest mp;
  if (opt.isolated_process) {
    mp.processes = {*opt.isolated_process};
    mp.isolated = true;
  } else {
    for (uint32_t i = 0; i < w.processes.size(); ++i) mp.processes.push_back(i);
  }
  mp.timeline_path = opt.timeline_path;
  mp.vcd_path = opt.vcd_path;
  mp.progress = true;
  reqs.push_back(mp);
  // A lone process that runs once from time 0 is its own isolated run.
  // Replaying "until all done" ends with the first run when there is one process: also lone.
  const bool lone = opt.isolated_process ||
                    (w.processes.size() == 1 && w.processes[0].repeat == 1 && w.processes[0].arrival_ns == 0);
  // A windowed run completes no process run to compare with: no isolated runs, no NTT/STP.
  for (uint32_t i = 0; i < w.processes.size() && opt.t_sp.empty() && !lone && w.stop_at_ns <= 0; ++i) {
    SimRequest iso;
    iso.processes = {i};
    iso.isolated = true;
    reqs.push_back(iso);
  }
  std::vector<ListTexts> list_texts;
  std::vector<json> res = simulate_forked(cfg, w, reqs, opt.jobs, opt.max_host_seconds, &list_texts);
  // The isolated runs' T_SP are read from res below; the main run is moved, not copied.
  size_t main_run = 0;
  for (size_t i = 0; i < res.size(); ++i)
    if (res[i].value("status", "") == "aborted") {  // no metrics from a run that stopped early
      main_run = i;
      break;
    }
  RunStats out;
  out.kernels_text = std::move(list_texts[main_run].kernels);
  out.preemptions_text = std::move(list_texts[main_run].preemptions);
  out.kernels = res[main_run].value("_kernel_records", size_t{0});
  res[main_run].erase("_kernel_records");
  json& stats = out.doc = std::move(res[main_run]);
  const bool aborted = stats.value("status", "") == "aborted" || stats.value("status", "") == "stopped_at";
  std::vector<ProgramTimes> times;
  for (uint32_t i = 0; i < mp.processes.size() && !aborted; ++i) {
    json& p = stats["processes"][i];
    const ProcessDesc& desc = w.processes[mp.processes[i]];
    const json& runs = p["runs"];
    double t_sp;
    if (opt.t_sp.empty()) {
      const json& iso_runs = lone ? stats["processes"][0]["runs"] : res[i + 1]["processes"][0]["runs"];
      t_sp = iso_runs[0]["end_ns"].get<double>() - iso_runs[0]["start_ns"].get<double>();
    } else {
      auto it = opt.t_sp.find(desc.name);
      if (it == opt.t_sp.end()) throw ConfigError("--tsp: no T_SP for process '" + desc.name + "'");
      t_sp = it->second;
    }
    double sum = 0;
    for (const auto& r : runs) sum += r["end_ns"].get<double>() - r["start_ns"].get<double>();
    p["runs_completed"] = runs.size();
    p["T_SP"] = t_sp;
    if (runs.empty()) {  // replay stopped before this process completed a run
      p["T_MP"] = nullptr;
      p["NTT"] = nullptr;
      continue;
    }
    const double t_mp = sum / runs.size();
    p["T_MP"] = t_mp;
    p["NTT"] = t_mp / t_sp;
    times.push_back({t_sp, t_mp});
  }
  if (!aborted) {
    const MultiprogramMetrics m = compute_metrics(times);
    stats["metrics"] = {{"antt", m.antt}, {"stp", m.stp}, {"fairness", m.fairness}, {"programs", times.size()}};
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Host measurements: the only part of stats.json that differs between identical runs.
  // Rates use the CPU time of the simulation proper (not loading, elaboration or the isolated runs).
  const double sim_wall = stats["host_sim_seconds"].get<double>();
  const double sim_secs = stats["host_sim_cpu_seconds"].get<double>();
  stats.erase("host_sim_seconds");
  stats.erase("host_sim_cpu_seconds");
  const uint64_t steps_ahead = stats.value("host_sm_steps_run_ahead", uint64_t{0});
  stats.erase("host_sm_steps_run_ahead");
  const uint64_t steps = stats.value("host_sm_steps", uint64_t{0});
  stats.erase("host_sm_steps");
  stats["host"] = {{"seconds", secs}, {"simulations", reqs.size()}, {"jobs", opt.jobs},
                   {"main_simulation_seconds", sim_wall},
                   {"main_simulation_cpu_seconds", sim_secs},
                   {"warp_instructions_per_second", sim_secs > 0 ? stats["warp_instructions"].get<double>() / sim_secs : 0.0},
                   {"simulated_cycles_per_second", sim_secs > 0 ? stats["sim"]["cycles"].get<double>() / sim_secs : 0.0},
                   {"sm_steps", steps},  // SM steps the calendar ran (wake-ups)
                   {"sm_steps_run_ahead", steps_ahead},  // SM steps run without the calendar (quantum 1)
                   {"peak_rss_mib", peak_rss_mib()}, {"heap_huge_pages", heap_huge_pages()}};
  // Co-simulation checks describe the host run, not the modelled GPU: kept out of the results.
  if (stats.contains("cosim")) {
    stats["host"]["cosim"] = stats["cosim"];
    stats.erase("cosim");
  }
  stats["units"] = {{"times", "ns"}, {"T_MP", "mean over completed runs, ns"}, {"T_SP", "isolated run, ns"}};
  json wdocs = json::array();
  for (const auto& d : w.docs) wdocs.push_back({{"file", d->file}, {"content", yaml_to_json(d->root)}});
  stats["config"] = {{"platform", {{"file", cfg.file}, {"content", cfg.resolved()}}},
                     {"workload", {{"file", w.file}, {"policy", w.policy}, {"seed", w.seed}, {"documents", wdocs}}}};
  bool warp = false, tb = false;
  for (const auto& k : w.kernels) (warp_level(k) ? warp : tb) = true;
  stats["model"] = {{"name", "mpgpu"}, {"fidelity", warp && tb ? "mixed" : warp ? "warp" : "tb"}};
  return out;
}

json run_workload(const PlatformConfig& cfg, const WorkloadDesc& w, const RunOptions& opt) {
  RunStats r = run_workload_stats(cfg, w, opt);
  if (!r.kernels_text.empty()) r.doc["kernels"] = json::parse(r.kernels_text.str());
  if (!r.preemptions_text.empty()) r.doc["scheduling"]["preemption_list"] = json::parse(r.preemptions_text.str());
  return std::move(r.doc);
}

void RunStats::write(std::ostream& out) {
  // Placeholders no record can print (a control character is escaped), replaced by the texts. Put
  // into the document and taken out again: a copy of a large document doubled the writer's memory.
  struct Spliced {
    json* parent;
    std::string key;
    const TextPieces* text;
    std::string mark;  // the placeholder as dump() prints it
  };
  std::vector<Spliced> spliced;
  auto splice = [&](json& parent, const std::string& key, const TextPieces& text) {
    if (!text.empty()) spliced.push_back({&parent, key, &text, "\"\\u0001" + key + "\""});
  };
  splice(doc, "kernels", kernels_text);
  if (!preemptions_text.empty()) splice(doc["scheduling"], "preemption_list", preemptions_text);
  for (const Spliced& s : spliced) (*s.parent)[s.key] = "\x01" + s.key;
  const std::string text = doc.dump(2);
  for (const Spliced& s : spliced) s.parent->erase(s.key);
  // Each mark is found once; the document's text is written up to it, then the list's.
  std::vector<std::pair<size_t, const Spliced*>> at;
  for (const Spliced& s : spliced) {
    const size_t pos = text.find(s.mark);
    if (pos == std::string::npos) throw SimError("stats: the " + s.key + " placeholder went missing");
    at.push_back({pos, &s});
  }
  std::sort(at.begin(), at.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t from = 0;
  for (const auto& [pos, s] : at) {
    out.write(text.data() + from, std::streamsize(pos - from));
    out << *s->text;
    from = pos + s->mark.size();
  }
  out.write(text.data() + from, std::streamsize(text.size() - from));
}

std::string RunStats::dump() {
  std::ostringstream out;
  write(out);
  return std::move(out).str();
}

}  // namespace mpgpu
