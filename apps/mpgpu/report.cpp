#include "report.hpp"

#include <fmt/format.h>

#include "sm/occupancy.hpp"

namespace mpgpu {

using nlohmann::json;

json kernel_report(const PlatformConfig& cfg, const WorkloadDesc& w) {
  json rows = json::array();
  // An SM's equal share of DRAM bandwidth, bytes per microsecond.
  const double share_bytes_per_us = cfg.dram_peak_gbps() * 1e3 / cfg.sm.count;
  const double sm_storage = double(cfg.sm.register_file_bytes()) + cfg.sm.largest_shared_mem();
  for (const auto& k : w.kernels) {
    const Occupancy o = compute_occupancy(cfg.sm, {k.threads_per_tb, k.registers_per_tb, k.shared_mem_per_tb});
    json row = {{"name", k.name},
                {"tbs_per_sm", o.tbs_per_sm},
                {"limiting_resource", o.limiting},
                {"storage_fraction", o.storage_bytes() / sm_storage},
                {"context_bytes", o.storage_bytes()},
                {"context_save_us", o.storage_bytes() / share_bytes_per_us},
                {"threads_per_tb", k.threads_per_tb},
                {"registers_per_tb", o.registers_per_tb},
                {"shared_mem_per_tb", k.shared_mem_per_tb},
                {"shared_mem_config", o.shared_mem_config}};
    if (k.published_max_tbs_per_sm) row["published_tbs_per_sm"] = *k.published_max_tbs_per_sm;
    rows.push_back(row);
  }
  return {{"platform", cfg.name}, {"sm_storage_bytes", sm_storage},
          {"sm_dram_share_gbps", cfg.dram_peak_gbps() / cfg.sm.count}, {"kernels", rows}};
}

void print_kernel_table(const json& r) {
  fmt::print("platform {}: SM storage {:.0f} B (registers + largest shared memory), DRAM share {:.2f} GB/s per SM\n",
             r["platform"].get<std::string>(), r["sm_storage_bytes"].get<double>(),
             r["sm_dram_share_gbps"].get<double>());
  fmt::print("{:<32} {:>10} {:>5} {:<24} {:>8} {:>10} {:>9}\n", "kernel", "tbs_per_sm", "publ", "limiting_resource",
             "storage", "ctx_bytes", "save_us");
  for (const auto& k : r["kernels"])
    fmt::print("{:<32} {:>10} {:>5} {:<24} {:>7.1f}% {:>10} {:>9.2f}\n", k["name"].get<std::string>(),
               k["tbs_per_sm"].get<int>(),
               k.contains("published_tbs_per_sm") ? std::to_string(k["published_tbs_per_sm"].get<int>()) : "-",
               k["limiting_resource"].get<std::string>(), 100 * k["storage_fraction"].get<double>(),
               k["context_bytes"].get<uint64_t>(), k["context_save_us"].get<double>());
}

void print_summary(const json& s, size_t kernels) {
  if (s.value("status", "") == "stopped_at") {  // a measuring window: no run completed to compare
    const double cycles = s["sim"]["cycles"].get<double>();
    fmt::print("stopped at {:.0f} core cycles ({:.1f} us) as the workload asks (stop_at): {} warp instructions, IPC "
               "{:.3f}; {} TBs done; no NTT/STP (no run completed)\n",
               cycles, s["sim"]["time_ns"].get<double>() / 1e3, s["warp_instructions"].get<uint64_t>(),
               cycles > 0 ? s["warp_instructions"].get<double>() / cycles : 0.0, s["tbs_done"].get<uint64_t>());
    return;
  }
  fmt::print("{:<24} {:>5} {:>14} {:>14} {:>8}\n", "process", "runs", "T_SP (us)", "T_MP (us)", "NTT");
  for (const auto& p : s["processes"]) {
    const bool has = !p["T_MP"].is_null();
    fmt::print("{:<24} {:>5} {:>14.2f} {:>14} {:>8}\n", p["name"].get<std::string>(),
               p["runs_completed"].get<int>(), p["T_SP"].get<double>() / 1e3,
               has ? fmt::format("{:.2f}", p["T_MP"].get<double>() / 1e3) : "-",
               has ? fmt::format("{:.3f}", p["NTT"].get<double>()) : "-");
  }
  const auto& m = s["metrics"];
  fmt::print("ANTT {:.3f}   STP {:.3f}   fairness {:.3f}\n", m["antt"].get<double>(), m["stp"].get<double>(),
             m["fairness"].get<double>());
  fmt::print("simulated {} core cycles ({:.1f} us), {} TBs, {} kernels; {} simulations in {:.2f} s host time\n",
             s["sim"]["cycles"].get<uint64_t>(), s["sim"]["time_ns"].get<double>() / 1e3,
             s["tbs_done"].get<uint64_t>(), kernels, s["host"]["simulations"].get<int>(),
             s["host"]["seconds"].get<double>());
}

}  // namespace mpgpu
