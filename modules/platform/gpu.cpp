#include "platform/gpu.hpp"

#include "common/error.hpp"
#include "platform/registry.hpp"
#include "platform/table_links.hpp"

namespace mpgpu {

template <typename T>
T* Gpu::make(ModuleRole role, const std::string& kind, const std::string& name, uint32_t index) {
  sc_core::sc_module* m = registry().create(role, kind, name, index, ctx_);
  owned_.emplace_back(m);
  T* t = dynamic_cast<T*>(m);
  if (!t) throw SimError("module kind '" + kind + "' does not implement the role of " + name);
  return t;
}

Gpu::Gpu(sc_core::sc_module_name name, const PlatformConfig& cfg, const WorkloadDesc& w,
         std::vector<uint32_t> selected, Timeline* timeline, bool progress)
    : sc_module(name), cfg_(cfg), map_(cfg.address_map),
      memory_(std::make_unique<MemoryManager>(cfg.fill_unit.paging, map_)),
      ctx_{cfg, w, selected, timeline, map_, Host::planned_tbs(w, selected), progress, memory_.get()} {
  // The driver creates a context per process, in the host's slot order (context id = slot).
  std::vector<uint64_t> bases;
  if (cfg.fill_unit.translation)
    for (uint32_t p : selected) bases.push_back(memory_->page_table_base(memory_->create_context(w.processes[p].address_space)));
  host_ = make<Host>(ModuleRole::host, cfg.host_kind, "host", 0);
  host_->page_table_bases = bases;
  bs_ = make<BlockScheduler>(ModuleRole::block_scheduler, cfg.block_scheduler_kind, "block_scheduler", 0);
  xbar_ = make<Crossbar>(ModuleRole::crossbar, cfg.crossbar_kind, "crossbar", 0);
  fill_ = make<FillUnit>(ModuleRole::fill_unit, cfg.fill_unit_kind, "fill_unit", 0);

  host_->launch_out.bind(bs_->launch_in);
  bs_->host_out.bind(host_->done_in);
  sm_calendar_ = std::make_unique<SmCalendar>("sm_calendar");
  host_->wakeups = bs_->wakeups = &wakeups_;
  sm_calendar_->watch_others(&wakeups_);
  ctx_.sm_calendar = sm_calendar_.get();
  auto decoded = std::make_shared<DecodedPrograms>();  // one decoded copy of each program for all SMs
  for (uint32_t i = 0; i < cfg.sm.count; ++i) {
    Sm* sm = make<Sm>(ModuleRole::sm, cfg.sm_kind, "sm" + std::to_string(i), i);
    sms_.push_back(sm);
    sm->share_decoded(decoded);
    SmTableLinks links;  // its replay queue and operand log (extensions.<table>)
    links.replay_queue = make_replay_queue_link(cfg, "replay_queue" + std::to_string(i));
    links.operand_log = make_operand_log_link(cfg, "operand_log" + std::to_string(i));
    if (links.replay_queue || links.operand_log) sm->link_tables(std::move(links));
    sm->link_status(make_running_tb_status_link(cfg, "running_tb_status" + std::to_string(i)));
    bs_->sm_out.bind(sm->ctrl_in);  // port i of the multi-socket is SM i
    sm->ctrl_out.bind(bs_->sm_in);
    sm->mem_out.bind(xbar_->mem_in);
    sm->walk_out.bind(fill_->walk_in);
    sm->on_abort = [this](const KernelAbort& a) {
      if (abort_) return;  // the first one stops the run
      abort_ = a;
      fill_->aborted(a.launch->context);
      sc_core::sc_stop();
    };
  }
  fill_->mem_out.bind(xbar_->mem_in);  // the walkers' PTE reads: the crossbar's last input port
  for (uint32_t i = 0; i < cfg.dram.channels; ++i)
    mcs_.push_back(make<MemoryController>(ModuleRole::dram, cfg.dram_kind, "mc" + std::to_string(i), i));
  // The block scheduler's extension tables through their links (extensions.<table>): the SM
  // driver's command buffers, active queue, KSRT, SMST and PTBQ (one scheduling domain), each SM's
  // candidate victim sets and preempting kernel's allocation status (dual_kernel).
  BlockSchedulerLinks links;
  if (bs_->driver()) {
    const ExtensionParams e = extension_params(cfg.sm, cfg.block_scheduler);
    links.smst = make_smst_link(cfg, e);
    links.ksrt = make_ksrt_link(cfg, e);
    links.ptbq = make_ptbq_link(cfg, e);
    links.command_buffers = make_command_buffers_link(cfg, e);
    links.active_queue = make_active_queue_link(cfg, e);
  }
  if (w.policy == "dual_kernel" && bs_->preemption_processor())
    for (uint32_t i = 0; i < cfg.sm.count; ++i) {
      const std::string n = std::to_string(i);
      if (auto l = make_victim_sets_link(cfg, cfg.sm.dual_kernel, "victim_sets" + n)) links.victim_sets.push_back(std::move(l));
      if (auto l = make_preempting_status_link(cfg, cfg.sm.dual_kernel, "preempting_status" + n))
        links.preempting_status.push_back(std::move(l));
      if (auto l = make_allocation_positions_link(cfg, cfg.sm.dual_kernel, "allocation_positions" + n))
        links.allocation_positions.push_back(std::move(l));
    }
  bs_->link_tables(std::move(links));
  // Sub-partitions: consecutive slices share one memory controller.
  const uint32_t per_channel = cfg.l2.slices / cfg.dram.channels;
  for (uint32_t i = 0; i < cfg.l2.slices; ++i) {
    L2Slice* s = make<L2Slice>(ModuleRole::l2, cfg.l2_kind, "l2_" + std::to_string(i), i);
    l2_.push_back(s);
    xbar_->mem_out.bind(s->mem_in);
    s->mem_out.bind(mcs_[i / per_channel]->mem_in);
  }
  host_->on_copy_to_device = [this](uint32_t context, uint64_t addr, uint64_t bytes) {
    const bool paged = cfg_.fill_unit.translation;
    if (paged) {
      const uint64_t mapped = memory_->make_resident(context, addr, bytes);
      if (mapped != MemoryManager::kOutOfMemory) fill_->copied(context, mapped);
    }
    if (!cfg_.host.copies_fill_l2) return;
    // The copy engine writes through the L2: the next kernel finds the copied lines there.
    const uint64_t lb = cfg_.l2.line_bytes;
    for (uint64_t line = addr / lb; line <= (addr + bytes - 1) / lb; ++line) {
      uint64_t pa = line * lb;
      if (paged) {
        const auto f = memory_->frame_of(context, pa >> memory_->page_shift());
        if (!f) continue;
        pa = *f << memory_->page_shift() | (pa & (memory_->page_bytes() - 1));
      }
      const DecodedAddress d = map_.decode(pa);
      l2_[d.partition]->install(d.set, d.line);
    }
  };
}

}  // namespace mpgpu
