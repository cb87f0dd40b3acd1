#include "platform/extension_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "extensions/active_queue.hpp"
#include "extensions/ksrt.hpp"
#include "extensions/ptbq.hpp"
#include "extensions/replay_queue.hpp"
#include "extensions/smst.hpp"
#include "extensions/victim_sets.hpp"
#include "platform/table_links.hpp"

namespace mpgpu {

using nlohmann::json;

namespace {

json row(const std::string& name, const std::string& spec, bool per_sm, uint64_t entries, const FieldLayout& l,
         uint32_t n_sm, uint32_t latency, const std::string& note) {
  json fields = json::array();
  for (const auto& f : l) fields.push_back({{"name", f.name}, {"bits", f.bits}});
  const uint64_t bits = uint64_t{total_bits(l)} * entries;
  const double bytes = std::ceil(bits / 8.0);
  return {{"name", name},
          {"spec", spec},
          {"scope", per_sm ? "sm" : "gpu"},
          {"entries", entries},
          {"bits_per_entry", total_bits(l)},
          {"fields", fields},
          {"bytes_per_sm", per_sm ? bytes : bytes / n_sm},
          {"bytes_total", per_sm ? bytes * n_sm : bytes},
          {"latency_cycles", latency},
          {"impl", "core"},
          {"latency_from", "fixed: one cycle (not linked)"},
          {"note", note}};
}

// A table its owner reaches through a link: the latency as configured (core), or counted on the
// pins of the pin view or the Verilog twin for one read (of entry 0, just after reset).
json linked(json r, const PlatformConfig& c, const std::string& table) {
  const TableLinkConfig& l = c.extensions.link(table);
  r["impl"] = impl_name(l.impl);
  r["latency_cycles"] = measured_latency(c, table);
  r["latency_from"] = l.impl == ExtensionImpl::core ? "configured (extensions." + table + ".latency_cycles)"
                      : l.impl == ExtensionImpl::pins ? std::string("counted on the pin view's pins")
                                                      : "counted on the pins of twin " + (l.rtl.empty() ? table : l.rtl);
  return r;
}

}  // namespace

SharingHwParams sharing_hw_params(const PlatformConfig& c, uint64_t window_cycles) {
  SharingHwParams h;
  h.window_cycles = window_cycles;
  h.issue_width = c.sm.warp_schedulers;
  h.warp_size = c.sm.warp_size;
  h.mshrs = c.sm.l1d.mshrs;
  h.max_tbs = c.sm.max_tbs;
  h.num_sms = c.sm.count;
  return h;
}

json extension_report(const PlatformConfig& c) {
  const ExtensionParams e = extension_params(c.sm, c.block_scheduler);
  const uint32_t n = c.sm.count, warps = c.sm.max_threads / c.sm.warp_size;
  const uint32_t search = n * c.block_scheduler.search_cycles_per_entry;
  json rows = json::array();
  rows.push_back(linked(row("command_buffers", "SPEC 2", false, e.max_contexts, CommandBuffers::layout(e), n, 1,
                            "one kernel-launch command per context"), c, "command_buffers"));
  rows.push_back(linked(row("active_queue", "SPEC 2", false, n, ActiveQueue::layout(e), n, 1, "KSRT indices, N_SM entries"),
                        c, "active_queue"));
  rows.push_back(linked(row("ksrt", "SPEC 2", false, n, Ksrt::layout(e), n, 1,
                            fmt::format("policy search walks it serially: {} cycles", search)), c, "ksrt"));
  rows.push_back(linked(row("smst", "SPEC 2", false, n, Smst::layout(e), n, 1,
                            fmt::format("policy search walks it serially: {} cycles", search)), c, "smst"));
  rows.push_back(linked(row("ptbq", "SPEC 2", false, uint64_t{n} * n * c.sm.max_tbs, Ptbq::layout(e), n, 1,
                            fmt::format("{} queues (one per KSRT entry) of N_SM x T_max = {} entries", n, n * c.sm.max_tbs)),
                        c, "ptbq"));
  const ReplayQueueParams& rq = c.sm.replay_queue;  // what the pipeline runs with
  rows.push_back(linked(row("replay_queue", "SPEC 3", true, rq.entries, ReplayQueue::layout(rq), n, 1,
                            "in-flight global memory instructions; holds no data"),
                        c, "replay_queue"));
  const OperandLogParams& ol = c.sm.operand_log;
  rows.push_back(linked(row("operand_log", "SPEC 3", true, ol.entries(), OperandLog::layout(ol), n, 1,
                            fmt::format("{} B of operands, split evenly among resident TBs; load 1 entry, store 2", ol.bytes)),
                        c, "operand_log"));
  const DualKernelParams& dk = c.sm.dual_kernel;  // what the SMs run with
  rows.push_back(linked(row("candidate_victim_sets", "SPEC 4", true, dk.positions, CandidateVictimSets::layout(dk), n, 1,
                            "K x P bitset; a preempted TB's bit is cleared in every candidate in one cycle"),
                        c, "victim_sets"));
  rows.push_back(linked(row("allocation_positions", "SPEC 4", true, dk.positions, allocation_positions_layout(dk), n, 1,
                            "register-file and shared-memory offset of each predetermined position"),
                        c, "allocation_positions"));
  rows.push_back(linked(row("running_tb_status", "SPEC 4", true, c.sm.max_tbs, running_tb_status_layout(dk), n, 1,
                            "per resident TB: executed instructions, issue cycle, flush (idempotent so far)"),
                        c, "running_tb_status"));
  rows.push_back(linked(row("preempting_allocation_status", "SPEC 4", true, dk.positions, preempting_status_layout(dk), n, 1,
                            "per position: allocated bit and the TB placed there"),
                        c, "preempting_status"));
  rows.push_back(linked(row("preempting_kernel", "SPEC 4", true, 1, preempting_kernel_layout(dk), n, 1,
                            "process id and kernel id of the preempting kernel (linked with the allocation status)"),
                        c, "preempting_status"));
  const SharingHwParams sh = sharing_hw_params(c);
  rows.push_back(row("profiling_counters", "SPEC 5", true, 1, profiling_counters_layout(sh), n, 1,
                     fmt::format("MIAS: I, C, L1 misses, M, A over a {}-cycle window; cleared at its start", sh.window_cycles)));
  rows.push_back(row("tb_mix_register", "SPEC 5", true, sh.kernels, tb_mix_layout(sh), n, 1,
                     fmt::format("Warped-Slicer, MIAS: per sharing kernel its TB limit; broadcast one SM per cycle "
                                 "({} cycles)", n)));
  return {{"platform", c.name},
          {"parameters",
           {{"num_sms", n}, {"max_tbs_per_sm", c.sm.max_tbs}, {"max_contexts", e.max_contexts}, {"warps_per_sm", warps},
            {"registers_per_sm", c.sm.registers}, {"shared_mem_per_sm", c.sm.largest_shared_mem()},
            {"operand_log_bytes", ol.bytes}, {"replay_queue_entries", rq.entries}, {"dual_kernel_positions", dk.positions},
            {"fault_organization", to_string(c.sm.fault_organization)},
            {"operand_log_entries_per_tb_at_full_occupancy", ol.share(c.sm.max_tbs)}}},
          {"extensions", rows}};
}

void print_extension_table(const json& r) {
  fmt::print("hardware extensions on platform {}\n", r["platform"].get<std::string>());
  fmt::print("{:<30} {:<6} {:<4} {:>8} {:>9} {:>12} {:>12} {:>4} {:<7}  fields (bits)\n", "extension", "spec", "per",
             "entries", "bits/ent", "B per SM", "B total", "lat", "impl");
  for (const auto& x : r["extensions"]) {
    std::string fields;
    for (const auto& f : x["fields"]) fields += fmt::format("{}{}:{}", fields.empty() ? "" : " ", f["name"].get<std::string>(), f["bits"].get<int>());
    fmt::print("{:<30} {:<6} {:<4} {:>8} {:>9} {:>12.1f} {:>12.0f} {:>4} {:<7}  {}\n", x["name"].get<std::string>(),
               x["spec"].get<std::string>(), x["scope"].get<std::string>(), x["entries"].get<uint64_t>(),
               x["bits_per_entry"].get<int>(), x["bytes_per_sm"].get<double>(), x["bytes_total"].get<double>(),
               x["latency_cycles"].get<int>(), x["impl"].get<std::string>(), fields);
  }
  fmt::print("lat: access latency in cycles, as configured (core) or counted on the pins of the pin view or Verilog twin "
             "(extensions.<table>.impl); the owner's step includes one cycle, each further cycle stalls it\n");
  const auto& p = r["parameters"];
  fmt::print("SM pipeline fault organization: {} (sm.fault_organization); under replay_queue / operand_log it runs "
             "on the replay queue and operand log above ({} log entries per TB with {} TBs resident)\n",
             p["fault_organization"].get<std::string>(), p["operand_log_entries_per_tb_at_full_occupancy"].get<uint32_t>(),
             p["max_tbs_per_sm"].get<uint32_t>());
}

}  // namespace mpgpu
