#include "platform/registry.hpp"

#include "common/error.hpp"
#include "platform/extension_report.hpp"
#include "platform/gpu.hpp"

namespace mpgpu {

void ModuleRegistry::add(ModuleRole role, const std::string& kind, Creator c) {
  creators_[role].emplace_back(kind, std::move(c));
}

sc_core::sc_module* ModuleRegistry::create(ModuleRole role, const std::string& kind, const std::string& name,
                                           uint32_t index, ElabContext& ctx) const {
  for (const auto& [k, c] : creators_.at(role))
    if (k == kind) return c(name, index, ctx);
  throw SimError("no module kind '" + kind + "' registered");  // validation rejects it earlier
}

std::vector<std::string> ModuleRegistry::kinds(ModuleRole role) const {
  std::vector<std::string> out;
  for (const auto& kc : creators_.at(role)) out.push_back(kc.first);
  return out;
}

namespace {
ModuleRegistry make_builtin() {
  ModuleRegistry r;
  using R = ModuleRole;
  r.add(R::host, "command_processor", [](const std::string& n, uint32_t, ElabContext& c) {
    return new Host(n.c_str(), c.cfg.host, c.workload, c.selected, ClockDomain(c.cfg.clocks.core), c.timeline);
  });
  r.add(R::block_scheduler, "sm_driver", [](const std::string& n, uint32_t, ElabContext& c) {
    SchedulingSetup s;
    s.policy = c.workload.policy;
    s.mechanism = c.workload.policy == "chimera"           ? Mechanism::chimera
                  : c.workload.policy == "dual_kernel"       ? Mechanism::dual_kernel
                  : c.workload.preemption == "draining"      ? Mechanism::draining
                  : c.workload.preemption == "flush"         ? Mechanism::flush
                                                             : Mechanism::context_switch;
    s.latency_constraint_ns = c.workload.latency_constraint_ns;
    s.oracle = c.workload.oracle;
    s.dram_bytes_per_cycle = c.cfg.dram_peak_gbps() / (c.cfg.clocks.core * 1e-3);  // GB/s over GHz: bytes per core cycle
    s.flush_fallback = c.workload.flush_fallback == "context_switch" ? TbTechnique::switch_out : TbTechnique::drain;
    for (const auto& p : c.workload.processes) {
      s.dss_budgets.push_back(p.dss_tokens);
      s.process_partition.push_back(p.partition);
    }
    for (const auto& p : c.workload.partitions) s.partitions.push_back({p.sms, p.thread_limit});
    s.sharing.scheme = c.workload.policy == "warped_slicer" ? SharingScheme::warped_slicer : SharingScheme::mias;
    s.sharing.model = mias_model(c.workload.sharing_model);
    s.sharing.hw = sharing_hw_params(c.cfg, c.workload.sharing_window_cycles);
    return new BlockScheduler(n.c_str(), c.cfg.block_scheduler, c.cfg.sm, ClockDomain(c.cfg.clocks.core), s,
                              c.planned_tbs, c.progress);
  });
  // One SM model for both fidelities: TB-level kernels run for a sampled time, warp-level ones
  // on the pipeline. "sm_tb" is the name it had before the pipeline existed.
  for (const char* kind : {"sm", "sm_tb"})
    r.add(R::sm, kind, [](const std::string& n, uint32_t i, ElabContext& c) {
      auto* sm = new Sm(n.c_str(), i, c.cfg.sm, ClockDomain(c.cfg.clocks.core), c.timeline, *c.sm_calendar, c.cfg.quantum_cycles);
      if (c.workload.policy == "mias") sm->count_outstanding_misses();  // counter A (SPEC 5)
      return sm;
    });
  r.add(R::crossbar, "crossbar", [](const std::string& n, uint32_t, ElabContext& c) {
    return new Crossbar(n.c_str(), c.cfg.crossbar, ClockDomain(c.cfg.clocks.icnt), c.address_map);
  });
  r.add(R::l2, "l2_slice", [](const std::string& n, uint32_t, ElabContext& c) {
    return new L2Slice(n.c_str(), c.cfg.l2, ClockDomain(c.cfg.clocks.l2), c.address_map);
  });
  r.add(R::dram, "memory_controller", [](const std::string& n, uint32_t, ElabContext& c) {
    return new MemoryController(n.c_str(), c.cfg.dram, ClockDomain(c.cfg.clocks.dram), c.address_map);
  });
  r.add(R::fill_unit, "fill_unit", [](const std::string& n, uint32_t, ElabContext& c) {
    return new FillUnit(n.c_str(), c.cfg.fill_unit, ClockDomain(c.cfg.clocks.core), *c.memory, c.timeline);
  });
  return r;
}
}  // namespace

ModuleRegistry& registry() {
  static ModuleRegistry r = make_builtin();
  return r;
}

}  // namespace mpgpu
