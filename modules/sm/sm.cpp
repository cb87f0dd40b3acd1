#include "sm/sm.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgpu {

using sc_core::sc_time;

Sm::Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& p, ClockDomain clock,
       Timeline* timeline, SmCalendar& calendar, uint32_t quantum_cycles)
    : sc_module(name), ctrl_in("ctrl_in"), ctrl_out("ctrl_out"), mem_out("mem_out"),
      walk_out("walk_out"), id_(id), p_(p), clock_(clock), timeline_(timeline), calendar_(calendar),
      quantum_cycles_(std::max(1u, quantum_cycles)), res_(p), warp_tbs_(p.max_tbs),
      tb_status_(p.per_slot_tables()), carried_(p.max_tbs), pipe_(p, *this) {
  ctrl_in.register_b_transport(this, &Sm::ctrl_b_transport);
  // No process of its own: activate() never waits inside (every memory and block-scheduler call
  // it makes returns without waiting), so the calendar calls it, SMs due together in its
  // rotating SM order.
  calendar_index_ = calendar_.add(this);
  if (timeline_ && timeline_->enabled()) {
    timeline_->name_group(Timeline::sm_pid(id), fmt::format("SM {}", id));
    for (uint32_t s = 0; s < p.max_tbs; ++s)
      timeline_->name_track(Timeline::sm_pid(id), s, fmt::format("TB slot {}", s));
  }
}

void Sm::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (ext && ext->command == CtrlCommand::save_context) {
    start_save(delay);
    return;
  }
  if (ext && ext->command == CtrlCommand::flush_tbs) {
    start_flush(delay, *static_cast<const TbTechnique*>(ext->info));
    return;
  }
  if (ext && ext->command == CtrlCommand::preempt_tbs) {
    execute_plan(delay, *static_cast<const PreemptPlan*>(ext->info), false);
    return;
  }
  if (ext && ext->command == CtrlCommand::status_query && ext->reply) {
    // The reads of the running-TB status beyond one cycle each delay the answer.
    delay += clock_.cycles(double(report_status(*static_cast<SmStatusReport*>(ext->reply), delay)));
    return;
  }
  if (ext && ext->command == CtrlCommand::set_tb_mix) {
    tb_mix_ = *static_cast<const TbMixRegister*>(ext->info);
    return;
  }
  if (!ext || ext->command != CtrlCommand::dispatch_tb) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const auto* d = static_cast<const TbDispatch*>(ext->info);
  const sc_time start = sim_now() + delay;
  if (!parked_.empty() && parked_due(start)) {  // a TB back from its faults takes the room first
    ext->accepted = false;
    refused_for_parked_ = true;
    wake(delay);
    return;
  }
  if (!tb_mix_.empty()) {  // the TB-mix register caps this kernel's TBs here (warp level only)
    const uint32_t limit = tb_mix_limit(tb_mix_, d->launch->id);
    if (limit != ~0u && resident_tbs_of(d->launch->id) >= limit) {
      ext->accepted = false;
      return;
    }
  }
  auto alloc = d->position ? res_.try_allocate_at(d->resources, d->carve_out, *d->position)
                           : res_.try_allocate(d->resources, d->carve_out);
  ext->accepted = alloc.has_value();
  if (!alloc) return;
  // The block scheduler's next ask for this launch would only be refused (a parked TB's claim
  // aside, which refuses with side effects): it can mark the SM full without asking.
  ext->full = parked_.empty() && !res_.fits(d->resources, d->carve_out);
  if (ext->reply) *static_cast<uint32_t*>(ext->reply) = alloc->slot;
  if (idle()) busy_since_ = start;
  // A flushed TB comes back with no context (remaining 0): it starts again from the beginning.
  const PtbqEntry* restore = d->restore && d->restore->remaining_cycles > 0 ? d->restore : nullptr;
  if (d->restore && !restore) ++stats_.tbs_restarted;
  const uint64_t cycle = clock_.to_cycles_ceil(start);
  const uint64_t cycle_mask = p_.dual_kernel.cycle_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << p_.dual_kernel.cycle_bits) - 1;
  tb_status_.start(alloc->slot, cycle & cycle_mask, true);  // nothing executed here yet
  carried_[alloc->slot] = {};
  if (warp_level(*d->launch->kernel)) {
    start_warp_tb(d->launch, d->tb, *alloc, start, restore ? &restore->save_pointer : nullptr);
    if (restore) ++stats_.tbs_restored;
    return;
  }
  uint64_t cycles;
  sc_time run_start = start;
  if (restore) {  // the context comes back, then the TB runs the rest of its time
    sc_time issue_at = start + clock_.cycles(p_.trap_cycles);
    run_start = restore_context(*d->launch, restore->save_pointer, issue_at);
    ++stats_.tbs_restored;
    cycles = restore->remaining_cycles;
  } else {
    cycles = sample_tb_cycles(d->launch->kernel->tb_time, d->launch->seed, d->launch->uid, d->tb);
  }
  const sc_time end = run_start + clock_.cycles(double(cycles));
  resident_.push({d->launch, d->tb, *alloc, start, end, run_start});
  stats_.peak_resident = std::max<uint32_t>(stats_.peak_resident, static_cast<uint32_t>(resident_.size()) + warp_tbs_live_);
  // Nothing to do before the TB ends: wake then (an earlier pending wake-up stays), not now.
  wake(end - sim_now());
}

void Sm::start_warp_tb(KernelLaunch* launch, uint32_t tb, const TbAllocation& alloc, const sc_time& start,
                       const uint64_t* saved_pointer) {
  sc_time run_start = start;
  std::vector<WarpPosition> resume;
  if (saved_pointer) {  // the context comes back, then the warps continue where they stopped
    auto it = launch->saved_warps.find(tb);
    if (it == launch->saved_warps.end()) throw SimError(name() + std::string(": restore of a TB that was never saved"));
    resume = std::move(it->second);
    launch->saved_warps.erase(it);
    if (auto pr = launch->saved_progress.find(tb); pr != launch->saved_progress.end()) {
      carried_[alloc.slot] = pr->second;
      launch->saved_progress.erase(pr);
    }
    sc_time issue_at = start + clock_.cycles(p_.trap_cycles);
    run_start = restore_context(*launch, *saved_pointer, issue_at);
    run_start = std::max(run_start, move_replay_state(*launch, tb, resume, issue_at, false));
  }
  warp_tbs_.at(alloc.slot) = {launch, tb, alloc, start, start, false, run_start};
  ++warp_tbs_live_;
  if (!pipe_.launch_tb(alloc.slot, launch, tb, clock_.to_cycles_ceil(run_start), saved_pointer ? &resume : nullptr))
    throw SimError(name() + std::string(": no free warp slots for an admitted TB"));
  stats_.peak_resident = std::max<uint32_t>(stats_.peak_resident, static_cast<uint32_t>(resident_.size()) + warp_tbs_live_);
  wake(sc_core::SC_ZERO_TIME);
}

void Sm::activate() {
  for (;;) {
    const sc_time now = sim_now();
    if (save_pending_ && save_done_ <= now) {
      finish_save();
      continue;
    }
    if (warp_tbs_finished_ > 0 && next_report_ <= now) report_warp_tbs(now);  // checked on every wake-up
    // Pop all TB-level TBs ending now first, then report: reports may trigger new dispatches.
    if (!resident_.empty() && resident_.top().end <= now) {
      std::vector<Resident>& done = done_;  // reused: one allocation per SM, not per TB
      done.clear();
      while (!resident_.empty() && resident_.top().end <= now) {
        done.push_back(resident_.top());
        resident_.pop();
        res_.release(done.back().alloc);
      }
      if (idle() && !save_pending_) stats_.busy += now - busy_since_;
      // A TB-level TB executes its kernel's instruction count; a restored one started before.
      for (const auto& r : done) finish(r, r.launch->kernel->instructions_per_tb, r.run_start == r.start);
      continue;
    }
    if (!parked_.empty()) run_local_scheduler(now);
    sc_time next = sc_core::SC_ZERO_TIME;
    bool timed = false;
    auto consider = [&](const sc_time& t) {
      if (!timed || t < next) next = t;
      timed = true;
    };
    if (!resident_.empty()) consider(resident_.top().end);
    if (save_pending_) consider(save_done_);
    if (warp_tbs_live_ > 0)
      if (const auto t = step_pipeline(now)) consider(*t);
    if (block_switching_) {
      switch_out_blocked(now);
      if (const auto t = next_local_event(now)) consider(*t);
    }
    if (timed && next <= now) continue;
    // Every wake-up is one calendar request: a dispatch asks for the time that matters (a
    // TB-level TB's end), and the calendar keeps the earliest pending request.
    if (timed) wake(next - now);
    return;
  }
}

std::optional<sc_time> Sm::step_pipeline(const sc_time& now) {
  const uint64_t now_cycle =
      planned_cycle_ != ~uint64_t{0} && now == planned_time_ ? planned_cycle_ : clock_.to_cycles_ceil(now);
  if (pipe_.busy() && pipe_.cycle() <= now_cycle) {
    pipe_.advance_to(now_cycle);
    pipe_.run_until(now_cycle + quantum_cycles_);
  }
  return plan_pipeline(now);
}

std::optional<sc_time> Sm::plan_pipeline(const sc_time& now) {
  for (const FinishedTb& f : pipe_.finished()) {
    WarpTb& t = warp_tbs_.at(f.slot);
    t.finished = true;
    t.end = clock_.cycles(double(f.cycle));
    next_report_ = warp_tbs_finished_++ == 0 ? t.end : std::min(next_report_, t.end);
  }
  pipe_.finished().clear();
  // Wake at the next report, or when simulated time catches up with the pipeline, or - when
  // every warp waits - at the first cycle one can issue: an SM whose warps all wait for memory
  // sleeps through the quanta in between (a dispatch or a context save wakes it earlier).
  bool any = false;
  sc_time next = sc_core::SC_ZERO_TIME;
  if (pipe_.busy()) {
    const uint64_t issue_at = pipe_.next_issue_cycle();
    if (issue_at != ~uint64_t{0}) {
      planned_cycle_ = std::max(pipe_.cycle(), issue_at);
      next = planned_time_ = calendar_.cycle_time(planned_cycle_, clock_);
      any = true;
    }
  }
  if (warp_tbs_finished_ > 0 && (!any || next_report_ < next))  // finished TBs waiting for their report time
    next = next_report_, any = true;
  if (!any) return std::nullopt;  // warps wait for each other (a barrier) or for a TB to arrive
  return std::max(next, now);
}

uint64_t Sm::private_until(uint64_t enough) {
  if (save_pending_ || !parked_.empty() || block_switching_) return 0;
  // Its next report: a finished warp-level TB's (at a cycle edge), a TB-level TB's end (any time:
  // the cycle before it).
  uint64_t bound = SmCalendar::kNever;
  if (warp_tbs_finished_ > 0) bound = clock_.to_cycles(next_report_);
  if (!resident_.empty()) bound = std::min(bound, clock_.to_cycles(resident_.top().end));
  if (bound < enough || warp_tbs_live_ == warp_tbs_finished_) return bound;  // no pipeline work, or enough said
  return std::min(bound, pipe_.private_until(enough));
}

void Sm::run_ahead(const sc_time& first, uint64_t until, CycleMarks& visited) {
  // What step_pipeline() does at quantum 1 on each of the wake-ups it would have had: a run
  // through cycles that skips those in which nothing can issue simulates exactly the cycles at
  // which such an SM would have woken (it sleeps to its next issue cycle, as the run skips).
  uint64_t c = first == planned_time_ ? planned_cycle_ : clock_.to_cycles_ceil(first);
  if (pipe_.cycle() > c) {  // a wake-up with the pipeline already past it: no step, the next planned
    visited.mark(c);
    const uint64_t issue_at = pipe_.next_issue_cycle();
    c = issue_at == SmPipeline::kNever ? issue_at : std::max(pipe_.cycle(), issue_at);
  }
  if (c < until) {
    pipe_.set_running_ahead(true);
    pipe_.advance_to(c);
    pipe_.run_until(until, &visited);
    pipe_.set_running_ahead(false);
  }
  // The next wake-up, as activate() asks for it: the pipeline's or a report's, or a TB-level end.
  const sc_time now = sim_now();
  std::optional<sc_time> next = plan_pipeline(now);
  if (!resident_.empty() && (!next || resident_.top().end < *next)) next = resident_.top().end;
  if (next) wake(*next - now);
}

void Sm::report_warp_tbs(const sc_time& now) {
  struct Done {
    Resident r;
    uint64_t instructions;
    bool whole;  // nothing carried over from a save
  };
  std::vector<Done> done;
  bool later = false;  // a finished TB reported later: the earliest of them is the next report
  for (WarpTb& t : warp_tbs_) {
    if (!t.launch || !t.finished) continue;
    if (t.end > now) {
      next_report_ = later ? std::min(next_report_, t.end) : t.end;
      later = true;
      continue;
    }
    res_.release(t.alloc);
    done.push_back({{t.launch, t.tb, t.alloc, t.start, t.end, t.run_start}, progress_of(t.alloc.slot).executed,
                    carried_[t.alloc.slot].executed == 0});
    t = WarpTb{};
    --warp_tbs_live_;
    --warp_tbs_finished_;
  }
  if (!done.empty() && idle() && !save_pending_) stats_.busy += now - busy_since_;
  for (const auto& d : done) finish(d.r, d.instructions, d.whole);
}

gpu_mem_ext Sm::request_ext(const MemAccess& a) const {
  gpu_mem_ext ext;
  ext.context = a.launch->context;
  ext.kernel = a.launch->id;
  ext.sm = id_;
  ext.warp = a.warp;
  ext.tb = a.tb;
  ext.kind = a.kind;
  ext.vaddr = a.addr;
  return ext;
}

uint64_t Sm::access(const MemAccess& a) {
  static uint8_t line[4096];  // targets model timing only; the data pointer is never read
  tlm::tlm_generic_payload& gp = mem_.gp;  // reused: a payload allocates its extension array
  mem_.ext = request_ext(a);
  gp.set_command(a.kind == AccessKind::store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp.set_address(a.addr);
  gp.set_data_ptr(line);
  // An atomic goes as one transaction per serialized operation (lanes naming one word), each
  // carrying a 32-byte sector of operands: the L2 performs them one after the other.
  constexpr uint32_t kSector = 32;
  const bool atomic = a.kind == AccessKind::atomic;
  gp.set_data_length(atomic ? (a.bytes + kSector - 1) / kSector * kSector : a.bytes);
  const sc_time now = sim_now();
  const sc_time at = clock_.cycles(double(a.cycle));
  sc_time last = now;
  for (uint32_t op = 0; op < (atomic ? std::max(1u, a.ops) : 1); ++op) {
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    mem_out->b_transport(gp, delay);
    last = std::max(last, now + delay);
  }
  return std::max(a.cycle + 1, clock_.to_cycles_ceil(last));
}

Translation Sm::translate(const MemAccess& a) {
  walk_.ext = request_ext(a);  // a.kind is page_walk
  walk_.ext.page_table_base = a.launch->page_table_base;
  tlm::tlm_generic_payload& gp = walk_.gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(a.addr);
  gp.set_data_ptr(nullptr);
  gp.set_data_length(0);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_time now = sim_now();
  const sc_time at = clock_.cycles(double(a.cycle));
  sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
  walk_out->b_transport(gp, delay);
  Translation t;
  t.ready = std::max(a.cycle + 1, clock_.to_cycles_ceil(now + delay));
  t.ok = gp.is_response_ok();
  if (!t.ok) {
    if (on_abort)
      on_abort({a.launch, id_, a.tb, a.warp, a.addr,
                gp.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "access outside every allocation of the process"
                : gp.get_response_status() == tlm::TLM_COMMAND_ERROR_RESPONSE
                    ? "the page-table base register does not match the context table (model error)"
                    : "page fault the driver could not serve: device memory exhausted",
                to_ns(now + delay)});
    return t;
  }
  t.frame = gp.get_address() >> __builtin_ctz(p_.page_bytes);
  if (const gpu_mem_ext& ext = walk_.ext; ext.page_fault) {
    t.fault = true;
    t.fault_at = std::clamp(clock_.to_cycles_ceil(ext.fault_at), a.cycle, t.ready);
  }
  return t;
}

uint32_t tb_context_bytes(const SmParams& p, const KernelDesc& k) {
  return rounded_registers(p, k.registers_per_tb) * 4 + k.shared_mem_per_tb + p.tb_state_bytes;
}

uint32_t Sm::context_bytes(const KernelLaunch& l) const { return tb_context_bytes(p_, *l.kernel); }

uint64_t save_address(const KernelLaunch& l, uint64_t save_pointer) {
  // Far above ordinary data; 4 GiB per launch (the save pointer is 32 bits).
  return (uint64_t{1} << 40) + (uint64_t{l.id} << 32) + save_pointer;
}

sc_time Sm::move_context(uint64_t addr, uint64_t bytes, sc_time& issue_at, bool write) {
  const sc_time now = sim_now();
  constexpr uint32_t kLine = 128;
  std::vector<uint8_t> line(kLine);
  sc_time done = issue_at;
  MemPayload ctx;  // one for every line: constructing one allocates its extension array
  tlm::tlm_generic_payload& gp = ctx.gp;
  gpu_mem_ext& ext = ctx.ext;
  const sc_time period = clock_.period();
  for (uint64_t off = 0; off < bytes; off += kLine) {
    ext = gpu_mem_ext{};  // fresh per line, as the memory path may mark it
    ext.sm = id_;
    ext.kind = write ? AccessKind::context_save : AccessKind::context_restore;
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(addr + off);
    gp.set_data_ptr(line.data());
    gp.set_data_length(static_cast<uint32_t>(std::min<uint64_t>(kLine, bytes - off)));
    sc_time delay = issue_at - now;
    issue_at += period;  // one line leaves the SM per cycle
    mem_out->b_transport(gp, delay);
    done = std::max(done, now + delay);
  }
  ctx_port_free_ = std::max(ctx_port_free_, issue_at);
  return done;
}

sc_time Sm::write_context(const KernelLaunch& l, uint32_t tb, uint64_t& pointer, sc_time& issue_at) {
  const uint64_t bytes = context_bytes(l);
  pointer = uint64_t{tb} * ((bytes + 127) / 128 * 128);  // line-aligned slots
  stats_.bytes_saved += bytes;
  return move_context(save_address(l, pointer), bytes, issue_at, true);
}

sc_time Sm::save_tb(KernelLaunch* launch, uint32_t tb, const TbAllocation& alloc, uint64_t remaining,
                    sc_time& issue_at) {
  uint64_t pointer;
  const sc_time done = write_context(*launch, tb, pointer, issue_at);
  ++stats_.tbs_saved;
  saving_.push_back({{launch, {tb, pointer, remaining}, TbTechnique::switch_out, 0, 0, context_bytes(*launch)}, alloc});
  return done;
}

namespace {
// The table's executed-instructions field saturates (4 B in SPEC 4) instead of overflowing.
uint64_t saturated(uint64_t n, const DualKernelParams& p) {
  return p.instruction_count_bits >= 64 ? n : std::min(n, (uint64_t{1} << p.instruction_count_bits) - 1);
}
}  // namespace

KernelLaunch::Progress Sm::progress_of(uint32_t slot) const {
  return {carried_[slot].executed + pipe_.tb_issued(slot), carried_[slot].overwrote || pipe_.tb_overwrote(slot)};
}

void Sm::refresh_status(uint32_t slot) {
  const RunningTbStatusEntry& e = tb_status_.at(slot);
  const KernelLaunch::Progress pr = progress_of(slot);
  const uint64_t executed = saturated(pr.executed, p_.dual_kernel);
  if (executed > e.executed_instructions) tb_status_.executed(slot, executed - e.executed_instructions);
  if (pr.overwrote) tb_status_.lost_idempotence(slot);
}

void Sm::record_flush(KernelLaunch* launch, uint32_t tb, const TbAllocation& alloc, uint64_t instructions,
                      uint64_t cycles) {
  saving_.push_back({{launch, {tb, 0, 0}, TbTechnique::flush, instructions, cycles, 0}, alloc});
  ++stats_.tbs_flushed;
  stats_.flushed_instructions += instructions;
  stats_.flushed_cycles += cycles;
}

void Sm::refresh_status(const Resident& r, const sc_time& now, uint64_t& executed_cycles) {
  const KernelDesc& k = *r.launch->kernel;
  // The TB's whole run is its sampled time (the same draw as at its first dispatch); a restored
  // TB ran the part before its save already.
  const uint64_t total = sample_tb_cycles(k.tb_time, r.launch->seed, r.launch->uid, r.tb);
  const uint64_t given = clock_.to_cycles(r.end - r.run_start);
  const uint64_t here = now > r.run_start ? clock_.to_cycles(now - r.run_start) : 0;
  executed_cycles = std::min(total, total - std::min(total, given) + here);
  const uint32_t slot = r.alloc.slot;
  const RunningTbStatusEntry& e = tb_status_.at(slot);
  const uint64_t instructions =
      total ? saturated(static_cast<uint64_t>(double(k.instructions_per_tb) * double(executed_cycles) / double(total)),
                        p_.dual_kernel)
            : 0;
  if (instructions > e.executed_instructions) tb_status_.executed(slot, instructions - e.executed_instructions);
  // Its first non-idempotent instruction is at this part of its run (1: none).
  if (k.idempotent_fraction < 1.0 && double(executed_cycles) >= k.idempotent_fraction * double(total))
    tb_status_.lost_idempotence(slot);
}

void Sm::start_flush(sc_time delay, TbTechnique fallback) {
  // The running-TB status decides: a TB still idempotent is flushed, the others take the fallback.
  SmStatusReport status;
  const uint64_t reading = report_status(status, delay);  // the plan waits for the table's answers
  PreemptPlan plan;
  for (const auto& t : status.tbs) plan.push_back({t.alloc.slot, t.status.flush ? TbTechnique::flush : fallback});
  execute_plan(delay + clock_.cycles(double(reading)), plan, true);
}

std::vector<Sm::Resident> Sm::resident_tbs() const {
  auto q = resident_;
  std::vector<Resident> out;
  for (; !q.empty(); q.pop()) out.push_back(q.top());
  return out;
}

uint32_t Sm::resident_tbs_of(uint32_t launch) const {
  uint32_t n = 0;
  for (const WarpTb& t : warp_tbs_) n += t.launch && t.launch->id == launch;
  return n;
}

uint64_t Sm::report_status(SmStatusReport& out, sc_time delay) {
  const sc_time now = sim_now() + delay;
  out.cycle = clock_.to_cycles_ceil(now);
  out.registers = p_.registers;
  out.shared_mem = res_.shared_mem_config();
  const std::vector<Resident> resident = resident_tbs();
  out.executing_register_ns = executing_register_ns(now, resident);
  out.at_ns = to_ns(now);
  const PipelineStats& ps = pipe_.stats();
  out.counters = {out.cycle, ps.warp_instructions, ps.l1_misses, pipe_.sharing_counters().mem_stall_cycles,
                  pipe_.sharing_counters().outstanding};
  out.tb_mix = tb_mix_;
  out.tbs.clear();
  uint64_t extra = 0;  // cycles of the running-TB status reads beyond one each
  for (uint32_t slot = 0; slot < warp_tbs_.size(); ++slot) {
    const WarpTb& t = warp_tbs_[slot];
    if (!t.launch || t.finished) continue;
    refresh_status(slot);
    out.tbs.push_back({t.launch, t.tb, t.alloc, tb_status_.at(slot), std::nullopt});
    extra += read_status(slot);
  }
  for (const Resident& r : resident) {
    if (r.end <= now) continue;
    uint64_t executed_cycles = 0;
    refresh_status(r, now, executed_cycles);
    out.tbs.push_back({r.launch, r.tb, r.alloc, tb_status_.at(r.alloc.slot), clock_.to_cycles_ceil(r.end - now)});
    extra += read_status(r.alloc.slot);
  }
  return extra;
}

void Sm::execute_plan(sc_time delay, const PreemptPlan& plan, bool whole_sm) {
  const sc_time now = sim_now() + delay;
  const uint64_t now_cycle = clock_.to_cycles_ceil(now);
  std::vector<std::optional<TbTechnique>> how(warp_tbs_.size());
  for (const auto& [slot, t] : plan) how.at(slot) = t;
  auto illegal = [&](uint32_t slot) {
    throw SimError(name() + std::string(": flush of the TB in slot ") + std::to_string(slot) +
                   ", which is no longer idempotent");
  };
  sc_time done = now;
  // Warp level: a flushed TB stops issuing and is dropped once its in-flight instructions
  // (loads: nothing it wrote) have completed; switched ones stop and drain, then save.
  uint64_t drained = now_cycle;
  std::vector<std::pair<uint32_t, std::vector<WarpPosition>>> to_save;
  for (uint32_t slot = 0; slot < warp_tbs_.size(); ++slot) {
    WarpTb& t = warp_tbs_[slot];
    if (!t.launch || t.finished || !how[slot]) continue;
    refresh_status(slot);
    const RunningTbStatusEntry& e = tb_status_.at(slot);
    if (*how[slot] == TbTechnique::flush) {
      if (!e.flush) illegal(slot);
      uint64_t flushed_at = now_cycle;
      pipe_.evict_tb(slot, flushed_at);
      done = std::max(done, clock_.cycles(double(flushed_at)));
      record_flush(t.launch, t.tb, t.alloc, e.executed_instructions,
                   now_cycle - std::min(now_cycle, clock_.to_cycles(t.start)));
      stopped_executing(t.alloc, t.run_start, now);
      t = WarpTb{};
      --warp_tbs_live_;
    } else if (*how[slot] == TbTechnique::switch_out) {
      stopped_executing(t.alloc, t.run_start, now);
      to_save.push_back({slot, pipe_.evict_tb(slot, drained)});
    } else {
      saving_.push_back({{t.launch, {t.tb, 0, 0}, TbTechnique::drain}, std::nullopt});
    }
  }
  // TB level: a flush is immediate (the TB's results so far are dropped with it).
  std::vector<Resident> keep, to_switch;
  for (; !resident_.empty(); resident_.pop()) {
    const Resident& r = resident_.top();
    const auto t = how.at(r.alloc.slot);
    if (r.end <= now || !t) {  // ends by now, or not in the plan: runs on
      keep.push_back(r);
      continue;
    }
    uint64_t executed_cycles = 0;
    refresh_status(r, now, executed_cycles);
    const RunningTbStatusEntry& e = tb_status_.at(r.alloc.slot);
    if (*t != TbTechnique::drain) stopped_executing(r.alloc, r.run_start, now);
    if (*t == TbTechnique::flush) {
      if (!e.flush) illegal(r.alloc.slot);
      record_flush(r.launch, r.tb, r.alloc, e.executed_instructions, executed_cycles);
    } else if (*t == TbTechnique::switch_out) {
      to_switch.push_back(r);
    } else {
      saving_.push_back({{r.launch, {r.tb, 0, 0}, TbTechnique::drain}, std::nullopt});
      keep.push_back(r);
    }
  }
  for (const auto& r : keep) resident_.push(r);
  if (!to_save.empty() || !to_switch.empty()) {  // a context save of the switched TBs
    sc_time drain_end = clock_.cycles(double(drained));
    if (!to_switch.empty()) drain_end = std::max(drain_end, now + clock_.cycles(p_.drain_cycles));
    sc_time issue_at = drain_end + clock_.cycles(p_.trap_cycles);
    done = std::max(done, issue_at);
    for (auto& [slot, warps] : to_save) done = std::max(done, save_warp_tb(slot, std::move(warps), issue_at));
    for (const Resident& r : to_switch) done = std::max(done, save_resident(r, now, issue_at));
  }
  report_preemption_at(done, whole_sm);
}

sc_time Sm::move_replay_state(const KernelLaunch& l, uint32_t tb, const std::vector<WarpPosition>& warps,
                              sc_time& issue_at, bool write) {
  uint64_t bytes = 0;
  for (const WarpPosition& w : warps) bytes += w.replay_bytes;
  if (!bytes) return issue_at;
  (write ? stats_.bytes_saved : stats_.bytes_restored) += bytes;
  // A window of its own above the TB contexts: 64 KiB per TB, wrapping (timing only).
  const uint64_t pointer = (uint64_t{1} << 31) + (uint64_t{tb} % 32768) * 65536;
  return move_context(save_address(l, pointer), bytes, issue_at, write);
}

sc_time Sm::restore_context(const KernelLaunch& l, uint64_t pointer, sc_time& issue_at) {
  const uint64_t bytes = context_bytes(l);
  stats_.bytes_restored += bytes;
  return move_context(save_address(l, pointer), bytes, issue_at, false);
}

void Sm::start_save(sc_time delay) {
  const sc_time now = sim_now() + delay;
  // Warp-level TBs stop issuing now and drain their in-flight instructions (the pipeline knows
  // when the last one completes); TB-level ones take the platform's fixed drain time.
  uint64_t drained = clock_.to_cycles_ceil(now);
  std::vector<std::pair<uint32_t, std::vector<WarpPosition>>> evicted;
  for (uint32_t slot = 0; slot < warp_tbs_.size(); ++slot)
    if (warp_tbs_[slot].launch && !warp_tbs_[slot].finished) {
      stopped_executing(warp_tbs_[slot].alloc, warp_tbs_[slot].run_start, now);
      evicted.push_back({slot, pipe_.evict_tb(slot, drained)});
    }
  sc_time drain_end = clock_.cycles(double(drained));
  if (!resident_.empty()) drain_end = std::max(drain_end, now + clock_.cycles(p_.drain_cycles));
  // Freeze every TB still running; the ones ending by now finish normally.
  std::vector<Resident> keep;
  sc_time issue_at = drain_end + clock_.cycles(p_.trap_cycles);
  sc_time done = issue_at;
  for (auto& [slot, warps] : evicted) done = std::max(done, save_warp_tb(slot, std::move(warps), issue_at));
  while (!resident_.empty()) {
    Resident r = resident_.top();
    resident_.pop();
    if (r.end <= now) {
      keep.push_back(r);
      continue;
    }
    stopped_executing(r.alloc, r.run_start, now);
    done = std::max(done, save_resident(r, now, issue_at));
  }
  for (const auto& r : keep) resident_.push(r);
  report_preemption_at(done);
}

sc_time Sm::save_warp_tb(uint32_t slot, std::vector<WarpPosition>&& warps, sc_time& issue_at) {
  WarpTb& t = warp_tbs_[slot];
  sc_time done = save_tb(t.launch, t.tb, t.alloc, 1, issue_at);  // its work left is in the warps
  done = std::max(done, move_replay_state(*t.launch, t.tb, warps, issue_at, true));
  t.launch->saved_warps[t.tb] = std::move(warps);
  t.launch->saved_progress[t.tb] = progress_of(slot);
  t = WarpTb{};
  --warp_tbs_live_;
  return done;
}

sc_time Sm::save_resident(const Resident& r, const sc_time& now, sc_time& issue_at) {
  const sc_time from = std::max(now, r.run_start);
  const uint64_t remaining = std::max<uint64_t>(1, clock_.to_cycles(r.end - from));
  return save_tb(r.launch, r.tb, r.alloc, remaining, issue_at);
}

void Sm::report_preemption_at(sc_time done, bool with_parked) {
  // TBs block switching has switched out go to the block scheduler too: their contexts are (being)
  // written already.
  if (with_parked) {
    for (const ParkedTb& p : parked_) {
      saving_.push_back({{p.launch, {p.tb, p.pointer, 1}, TbTechnique::switch_out, 0, 0, context_bytes(*p.launch)},
                         p.holding ? std::optional<TbAllocation>(p.alloc) : std::nullopt});
      done = std::max(done, p.saved);
    }
    parked_.clear();
  }
  save_done_ = save_pending_ ? std::max(save_done_, done) : done;  // one report for both
  save_pending_ = true;
  wake(sc_core::SC_ZERO_TIME);
}

void Sm::finish_save() {
  save_pending_ = false;
  std::vector<SavedTbRecord> saved;
  for (const auto& [rec, alloc] : saving_) {
    if (alloc) res_.release(*alloc);
    saved.push_back(rec);
    if (alloc && timeline_ && timeline_->enabled())
      timeline_->instant(Timeline::sm_pid(id_), alloc->slot,
                         (rec.technique == TbTechnique::flush ? "flushed " : "saved ") + rec.launch->kernel->name,
                         to_ns(save_done_));
  }
  saving_.clear();
  if (idle()) stats_.busy += sim_now() - busy_since_;
  gpu_ctrl_ext ext;
  ext.command = CtrlCommand::preempted;
  ext.sm = id_;
  ext.info = &saved;
  sc_time delay = sc_core::SC_ZERO_TIME;
  send_ctrl(ctrl_out, 0, ext, delay);
}

void Sm::stopped_executing(const TbAllocation& a, const sc_time& from, const sc_time& to) {
  if (to > from) stopped_register_ns_ += double(a.reg_size) * to_ns(to - from);
}

double Sm::executing_register_ns(const sc_time& t, const std::vector<Resident>& resident) const {
  double sum = stopped_register_ns_;
  auto add = [&](const TbAllocation& a, const sc_time& from, const sc_time& to) {
    if (to > from) sum += double(a.reg_size) * to_ns(to - from);
  };
  for (const WarpTb& w : warp_tbs_)
    if (w.launch) add(w.alloc, w.run_start, w.finished ? std::min(w.end, t) : t);
  for (const Resident& r : resident) add(r.alloc, r.run_start, std::min(r.end, t));
  return sum;
}

void Sm::timeline_span(const KernelLaunch& l, uint32_t tb, uint32_t slot, const sc_time& from, const sc_time& to,
                       bool running) const {
  timeline_->span(Timeline::sm_pid(id_), slot, fmt::format("{} tb{}", l.kernel->name, tb), "tb", to_ns(from), to_ns(to),
                  fmt::format(R"({{"launch":{},"process":{}{}}})", l.id, l.process, running ? R"(,"running":true)" : ""));
}

void Sm::timeline_running(const sc_time& at) const {
  if (!timeline_ || !timeline_->enabled()) return;
  for (const WarpTb& w : warp_tbs_)
    if (w.launch && !w.finished) timeline_tb(*w.launch, w.tb, w.alloc.slot, w.start, at, true);
  for (const Resident& r : resident_tbs())
    if (r.end > at) timeline_tb(*r.launch, r.tb, r.alloc.slot, r.start, at, true);
}

void Sm::finish(const Resident& r, uint64_t instructions, bool whole) {
  ++stats_.tbs_done;
  stopped_executing(r.alloc, r.run_start, r.end);
  timeline_tb(*r.launch, r.tb, r.alloc.slot, r.start, r.end, false);
  TbCompletion c{r.launch, r.tb, id_, r.alloc.slot, r.start, r.end, instructions, whole};
  gpu_ctrl_ext ext;
  ext.command = CtrlCommand::tb_finished;
  ext.sm = id_;
  ext.kernel = r.launch->id;
  ext.tb = r.tb;
  ext.info = &c;
  sc_time delay = sc_core::SC_ZERO_TIME;
  send_ctrl(ctrl_out, 0, ext, delay);
}

}  // namespace mpgpu
