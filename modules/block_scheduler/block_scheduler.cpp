#include "block_scheduler/block_scheduler.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "sm/occupancy.hpp"

namespace mpgpu {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

ExtensionParams extension_params(const SmParams& sm, const BlockSchedulerParams& p) {
  ExtensionParams e;
  e.num_sms = sm.count;
  e.max_tbs_per_sm = sm.max_tbs;
  e.max_contexts = p.max_contexts;
  e.registers_per_sm = sm.registers;
  e.shared_mem_per_sm = sm.largest_shared_mem();
  e.max_threads_per_tb = std::min<uint32_t>(1024, sm.max_threads);
  return e;
}

BlockScheduler::BlockScheduler(sc_core::sc_module_name name, const BlockSchedulerParams& p, const SmParams& sm,
                               ClockDomain clock, const SchedulingSetup& setup, uint64_t total_tbs,
                               bool show_progress)
    : sc_module(name), launch_in("launch_in"), host_out("host_out"), sm_out("sm_out"), sm_in("sm_in"), p_(p),
      sm_(sm), clock_(clock), setup_(setup), refused_(sm.count),
      preempt_started_(sm.count, -1), preempted_tbs_(sm.count), total_tbs_(total_tbs), progress_("simulating", show_progress) {
  launch_in.register_b_transport(this, &BlockScheduler::launch_b_transport);
  sm_in.register_b_transport(this, &BlockScheduler::sm_b_transport);
  std::vector<bool> claimed(sm.count, false);
  for (const auto& part : setup.partitions) {
    std::vector<uint32_t> sms = part.sms;
    if (sms.empty())
      for (uint32_t i = 0; i < sm.count; ++i) sms.push_back(i);
    for (uint32_t i : sms) claimed.at(i) = true;
    left_over_.emplace_back(sms);
    thread_cap_.push_back(static_cast<uint32_t>(part.thread_limit * sm.max_threads));
  }
  std::vector<uint32_t> rest;
  for (uint32_t i = 0; i < sm.count; ++i)
    if (!claimed[i]) rest.push_back(i);
  left_over_.emplace_back(rest);
  thread_cap_.push_back(sm.max_threads);
  part_threads_.assign(left_over_.size(), std::vector<uint32_t>(sm.count, 0));
  if (sharing_policy(setup.policy)) {  // Left-Over's issue order, two kernels side by side, TB-mix limits
    if (!setup.partitions.empty()) throw SimError("policy " + setup.policy + " runs without partitions");
    sharing_ = std::make_unique<SharingController>(setup.sharing, sm_capacity(sm), sm.count);
    left_over_.back().set_side_by_side(setup.sharing.hw.kernels);
  } else if (setup.policy != "fcfs") {
    make_domains(rest);
  }
  if (setup.mechanism == Mechanism::chimera || setup.mechanism == Mechanism::dual_kernel)
    processor_ = std::make_unique<PreemptionProcessor>(
        sm, PreemptionProcessorParams{setup.dram_bytes_per_cycle, clock.ns_to_cycles(setup.latency_constraint_ns), setup.oracle});
  planned_.resize(sm.count);
  window_start_.resize(sm.count);
  resident_instructions_.resize(sm.count);
  sm_kernels_.resize(sm.count);
  // A method like the SMs' processes: run() never waits inside a round, and each wake-up is then
  // a function call from the kernel instead of a coroutine switch.
  SC_METHOD(run);
}

// The framework's tables are sized by the SMs of their domain (an SMST entry per SM, a KSRT entry
// per kernel that can own one); partitions under these policies never share SMs (resolved earlier).
void BlockScheduler::make_domains(const std::vector<uint32_t>& rest) {
  sm_domain_.assign(sm_.count, kNone);
  sm_local_.assign(sm_.count, kNone);
  auto add = [&](std::vector<uint32_t> sms) {
    if (sms.empty()) {
      domains_.push_back(nullptr);  // no SM is left for processes outside the partitions
      return;
    }
    for (uint32_t i = 0; i < sms.size(); ++i) {
      if (sm_domain_.at(sms[i]) != kNone) throw SimError("SM " + std::to_string(sms[i]) + " in two driver domains");
      sm_domain_[sms[i]] = static_cast<uint32_t>(domains_.size());
      sm_local_[sms[i]] = i;
    }
    ExtensionParams e = extension_params(sm_, p_);
    e.num_sms = static_cast<uint32_t>(sms.size());
    domains_.push_back(std::make_unique<DriverDomain>(
        *this, std::move(sms), std::make_unique<SmDriver>(e, setup_.mechanism, make_policy(setup_.policy, setup_.dss_budgets))));
  };
  for (const auto& part : setup_.partitions) {
    std::vector<uint32_t> sms = part.sms;
    if (sms.empty())
      for (uint32_t i = 0; i < sm_.count; ++i) sms.push_back(i);
    add(std::move(sms));
  }
  add(rest);
}

uint64_t BlockScheduler::policy_decisions() const {
  uint64_t n = 0;
  for (const auto& d : domains_)
    if (d) n += d->driver().stats().decisions;
  return n;
}

uint32_t BlockScheduler::partition_of(const KernelLaunch& k) const {
  const auto& pp = setup_.process_partition;
  const int32_t p = k.process_index < pp.size() ? pp[k.process_index] : -1;
  return p < 0 ? static_cast<uint32_t>(left_over_.size() - 1) : static_cast<uint32_t>(p);
}

size_t BlockScheduler::kernels_waiting() const {
  size_t fcfs = 0;
  for (const auto& lo : left_over_) fcfs += lo.waiting_kernels();
  for (const auto& d : domains_)
    if (d) fcfs += d->driver().waiting_launches() + d->driver().active().order().size();
  return arrivals_.size() + fcfs;
}

void BlockScheduler::launch_b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  if (!ext || ext->command != CtrlCommand::launch_kernel) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  auto* launch = const_cast<KernelLaunch*>(static_cast<const KernelLaunch*>(ext->info));
  const sc_time at = sim_now() + delay;
  launch->arrive_ns = to_ns(at);
  arrivals_.emplace(at, launch);
  wake_after_busy(delay);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void BlockScheduler::kernel_finished(KernelLaunch* k, const sc_time& end) {
  k->end_ns = to_ns(end);
  active_.erase(k->id);
  gpu_ctrl_ext done;
  done.command = CtrlCommand::kernel_done;
  done.kernel = k->id;
  done.info = k;
  sc_time d = SC_ZERO_TIME;
  send_ctrl(host_out, 0, done, d);
}

void BlockScheduler::sm_b_transport(int, tlm::tlm_generic_payload& gp, sc_time&) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (ext && ext->command == CtrlCommand::preempted) {
    const auto* saved = static_cast<const std::vector<SavedTbRecord>*>(ext->info);
    std::vector<SavedTb> tbs;  // switched out or flushed: back to the PTBQ (a drained TB stays)
    const double now_ns = to_ns(sim_now());
    for (const auto& s : *saved) {
      if (s.technique != TbTechnique::drain) {
        tbs.push_back({s.launch->id, s.entry});
        resident_changed(ext->sm, s.launch->id, -1);
      }
      PreemptedTb rec{s.launch->id, static_cast<uint32_t>(s.entry.tb), s.launch->kernel->name, s.technique,
                      s.wasted_instructions, s.wasted_cycles, s.bytes};
      if (!processor_)
        preempted_tbs_[ext->sm].push_back(rec);
      else if (s.technique != TbTechnique::drain)
        planned_tb_left(ext->sm, s.launch->id, rec.tb, rec, now_ns);
    }
    domain_of(ext->sm).driver().preempted(sm_local_[ext->sm], tbs);
    refused_.clear(ext->sm);
  } else if (ext && ext->command == CtrlCommand::tb_wanted) {  // a question: nothing changes
    ext->accepted = !domains_.empty() ? domain_of(ext->sm).driver().has_tb_for(sm_local_[ext->sm])
                            : std::any_of(left_over_.begin(), left_over_.end(),
                                          [&](const LeftOverFcfs& lo) { return !lo.idle() && lo.serves(ext->sm); });
    return;
  } else if (ext && ext->command == CtrlCommand::room_freed) {
    if (!domains_.empty()) domain_of(ext->sm).driver().room_freed(sm_local_[ext->sm]);
    refused_.clear(ext->sm);
  } else if (ext && ext->command == CtrlCommand::tb_finished) {
    const auto* c = static_cast<const TbCompletion*>(ext->info);
    KernelLaunch* k = c->launch;
    refused_.clear(c->sm);
    ++tbs_done_;
    if (progress_.enabled()) progress_.tick(to_ns(sim_now()) / 1e3, tbs_done_, std::max(total_tbs_, tbs_done_));
    ++k->tbs_done;
    resident_changed(c->sm, k->id, -1);
    if (processor_) {
      if (c->whole) processor_->tb_finished(k->id, c->instructions, clock_.to_cycles(c->end - c->start));
      processor_->left(c->sm, c->slot);
      for (const PlannedTb& t : planned_[c->sm])  // a drained TB of a preemption in progress
        if (t.launch == k && t.tb == c->tb) {
          planned_tb_left(c->sm, k->id, c->tb, {k->id, c->tb, k->kernel->name, TbTechnique::drain, 0, 0, 0}, to_ns(c->end));
          break;
        }
    }
    if (const uint32_t part = partition_of(*k); thread_cap_[part] < sm_.max_threads)
      part_threads_[part][c->sm] -= k->kernel->threads_per_tb;
    const bool complete = !domains_.empty() ? domain_of(c->sm).driver().tb_finished(sm_local_[c->sm], k->id)
                                            : k->tbs_done == k->kernel->grid;
    if (complete) {
      if (processor_) processor_->kernel_done(k->id);
      kernel_finished(k, c->end);
    }
  } else {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  dirty_ = true;
  wake_after_busy(SC_ZERO_TIME);
}

void BlockScheduler::wake_after_busy(const sc_time& delay) {
  const sc_time now = sim_now();
  if (busy_until_ <= now) return notify_wake(delay);
  if (now + delay <= busy_until_) idle_owed_ = false;  // the window's end is a full round again
  notify_wake(std::max(delay, busy_until_ - now));
}

bool BlockScheduler::try_dispatch(uint32_t sm, uint32_t launch_id, uint32_t tb, const PtbqEntry* restore) {
  // An SM that refused this launch stays full for it until one of its TBs finishes.
  if (refused_.refused(sm, launch_id)) return false;
  KernelLaunch* k = active_.at(launch_id);
  const KernelDesc& kd = *k->kernel;
  const uint32_t part = partition_of(*k);
  // MPS-style share: the partition's resident threads on this SM stay within its limit (thread
  // limits run under fcfs only, so no TB leaves an SM by preemption).
  const bool capped = thread_cap_[part] < sm_.max_threads;
  if (capped && part_threads_[part][sm] + kd.threads_per_tb > thread_cap_[part]) return false;
  TbDispatch d{k, tb, {kd.threads_per_tb, kd.registers_per_tb, kd.shared_mem_per_tb},
               shared_mem_config_for(sm_, kd.shared_mem_per_tb), restore, std::nullopt};
  uint32_t slot = 0;
  bool full = false;
  auto send = [&] {
    gpu_ctrl_ext ext;
    ext.command = CtrlCommand::dispatch_tb;
    ext.sm = sm;
    ext.kernel = launch_id;
    ext.tb = tb;
    ext.info = &d;
    ext.reply = &slot;
    sc_time delay = offset_;
    const gpu_ctrl_ext& answer = send_ctrl(sm_out, static_cast<int>(sm), ext, delay);
    full = answer.full;
    return answer.accepted;
  };
  bool accepted = false;
  if (processor_ && processor_->dual(sm) && processor_->preempting_launch(sm) == launch_id) {
    // Dual-kernel: the preempting kernel's TBs go only at its positions, the first free one.
    for (uint32_t pos : processor_->free_positions(sm)) {
      d.position = processor_->position(sm, pos);
      if ((accepted = send())) {
        processor_->placed(sm, pos, slot);
        break;
      }
    }
  } else {
    accepted = send();
  }
  if (!accepted) {
    refused_.refuse(sm, launch_id);
    return false;
  }
  resident_changed(sm, launch_id, +1);
  if (full) refused_.refuse(sm, launch_id);  // the SM says it would refuse the next: no need to ask
  if (k->start_ns < 0) k->start_ns = to_ns(sim_now() + offset_);
  if (capped) part_threads_[part][sm] += kd.threads_per_tb;
  offset_ += clock_.cycles(p_.tb_dispatch_cycles);
  ++tbs_issued_;
  return true;
}

bool DriverDomain::dispatch(uint32_t sm, uint32_t launch_id, uint64_t tb, const PtbqEntry* restore) {
  return bs_.try_dispatch(sms_[sm], launch_id, static_cast<uint32_t>(tb), restore);
}
void DriverDomain::save_context(uint32_t sm) { bs_.save_context(sms_[sm]); }
void DriverDomain::flush(uint32_t sm) { bs_.flush(sms_[sm]); }
void DriverDomain::preemption_requested(uint32_t sm, Mechanism) { bs_.preemption_requested(sms_[sm]); }
void DriverDomain::preemption_completed(uint32_t sm) { bs_.preemption_completed(sms_[sm]); }
void DriverDomain::decision_made() { bs_.decision_made(static_cast<uint32_t>(sms_.size())); }
bool DriverDomain::plan_preemption(uint32_t sm, uint32_t next_launch, uint32_t needed) {
  return bs_.plan_preemption(sms_[sm], next_launch, needed);
}
std::pair<bool, double> DriverDomain::preemption_cost(uint32_t sm) { return bs_.preemption_cost(sms_[sm]); }
void DriverDomain::dual_ended(uint32_t sm) { bs_.processor_->end_dual(sms_[sm]); }

void BlockScheduler::resident_changed(uint32_t sm, uint32_t launch, int delta) {
  // A flat list: an SM holds a few kernels at most, and this runs for every TB.
  auto& m = sm_kernels_[sm];
  auto it = std::find_if(m.begin(), m.end(), [&](const auto& e) { return e.first == launch; });
  if (it == m.end()) it = m.insert(m.end(), {launch, 0});
  it->second = static_cast<uint32_t>(int64_t{it->second} + delta);
  if (it->second == 0) m.erase(it);
  peak_kernels_ = std::max(peak_kernels_, static_cast<uint32_t>(m.size()));
}

void BlockScheduler::command_sm(uint32_t sm, CtrlCommand c, const void* info, void* reply) {
  gpu_ctrl_ext ext;
  ext.command = c;
  ext.sm = sm;
  ext.info = info;
  ext.reply = reply;
  const sc_time sent = offset_;
  sc_time delay = sent;
  send_ctrl(sm_out, static_cast<int>(sm), ext, delay);
  // An SM that answers later (a status query reading a slower running-TB status table) holds the
  // scheduler until then: the difference is charged as a table access's stall is.
  if (delay > sent) (in_round_ ? offset_ : owed_) += delay - sent;
}

void BlockScheduler::query_status(uint32_t sm, SmStatusReport& out) { command_sm(sm, CtrlCommand::status_query, nullptr, &out); }

std::pair<bool, double> BlockScheduler::preemption_cost(uint32_t sm) {
  SmStatusReport s;
  query_status(sm, s);
  const PreemptionDecision d = processor_->plan_whole_sm(s);
  double latency = 0, overhead = 0;
  for (const PlannedTb& t : d.tbs) latency = std::max(latency, t.latency_cycles), overhead += t.overhead;
  const bool meets = latency <= clock_.ns_to_cycles(setup_.latency_constraint_ns);
  return {meets, meets ? overhead : latency};
}

bool BlockScheduler::plan_preemption(uint32_t sm, uint32_t next_launch, uint32_t needed) {
  SmStatusReport s;
  query_status(sm, s);
  const PreemptionDecision d = setup_.mechanism == Mechanism::dual_kernel
                                   ? processor_->plan_positions(sm, s, *active_.at(next_launch), needed)
                                   : processor_->plan_whole_sm(s);
  planned_[sm] = d.tbs;
  window_start_[sm] = s;
  resident_instructions_[sm] = 0;
  for (const auto& t : s.tbs) resident_instructions_[sm] += t.status.executed_instructions;
  if (d.tbs.empty()) {  // positions already free (or nothing resident): done at once
    preemption_completed_now(sm);
    return false;
  }
  const PreemptPlan plan = d.plan();
  command_sm(sm, CtrlCommand::preempt_tbs, &plan);
  return true;
}

void BlockScheduler::planned_tb_left(uint32_t sm, uint32_t launch, uint32_t tb, PreemptedTb rec, double at_ns) {
  auto& left = planned_[sm];
  for (auto it = left.begin(); it != left.end(); ++it) {
    if (it->launch->id != launch || it->tb != tb) continue;
    rec.estimated_ns = it->latency_cycles == PreemptionCostModel::kMaxCost ? -1 : to_ns(clock_.cycles(it->latency_cycles));
    rec.left_ns = at_ns;
    rec.estimated_overhead = it->overhead;
    preempted_tbs_[sm].push_back(rec);
    left.erase(it);
    if (left.empty()) preemption_completed_now(sm, at_ns);
    return;
  }
}

void BlockScheduler::save_context(uint32_t sm) { command_sm(sm, CtrlCommand::save_context); }

void BlockScheduler::flush(uint32_t sm) { command_sm(sm, CtrlCommand::flush_tbs, &setup_.flush_fallback); }

void BlockScheduler::preemption_requested(uint32_t sm) {
  preempt_started_[sm] = to_ns(sim_now() + offset_);
}

void BlockScheduler::preemption_completed(uint32_t sm) {
  if (processor_) {  // the record ended when the planned TBs had left; the SM has one kernel again
    if (processor_->dual(sm)) processor_->end_dual(sm);
    return;
  }
  preemption_completed_now(sm);
}

void BlockScheduler::preemption_completed_now(uint32_t sm, double at_ns) {
  if (at_ns < 0) at_ns = to_ns(sim_now() + offset_);
  double utilization = -1;
  if (processor_) {  // the executing register-time over the window, from two status reports
    SmStatusReport end;
    query_status(sm, end);
    const SmStatusReport& start = window_start_[sm];
    const double window = end.at_ns - start.at_ns;
    if (window > 0 && end.registers)
      utilization = (end.executing_register_ns - start.executing_register_ns) / (double(end.registers) * window);
  }
  preemptions_.push_back({sm, preempt_started_[sm], at_ns, std::move(preempted_tbs_[sm]), resident_instructions_[sm],
                          utilization});
  resident_instructions_[sm] = 0;
  preempted_tbs_[sm].clear();
}

void BlockScheduler::decision_made(uint32_t domain_sms) {
  // The policy walks its domain's KSRT/SMST one entry per cycle (SPEC 2).
  offset_ += clock_.cycles(double(domain_sms) * p_.search_cycles_per_entry);
}

std::vector<SmCounterReading> BlockScheduler::read_counters() {
  std::vector<SmCounterReading> out;
  SmStatusReport s;
  for (uint32_t sm = 0; sm < sm_.count; ++sm) {
    query_status(sm, s);
    out.push_back(s.counters);
  }
  return out;
}

void BlockScheduler::load_tb_mix(bool window_starts) {
  broadcast_tb_mix();
  if (!window_starts) return;
  // The window's counters start once every SM holds its mix.
  window_counters_ = read_counters();
  window_end_ = sim_now() + offset_ + clock_.cycles(double(setup_.sharing.hw.window_cycles));
}

void BlockScheduler::broadcast_tb_mix() {
  for (uint32_t sm = 0; sm < sm_.count; ++sm) {
    const TbMixRegister reg = sharing_->sm_register(sm);
    command_sm(sm, CtrlCommand::set_tb_mix, &reg);
    refused_.clear(sm);  // a refusal under the old limits says nothing now
    offset_ += clock_.cycles(1);  // one SM's register per cycle
  }
  dirty_ = true;
}

void BlockScheduler::update_sharing() {
  const std::vector<uint32_t> ids = left_over_.back().front();
  if (ids == sharing_set_) return;
  sharing_set_ = ids;
  std::vector<SharingKernel> ks;
  for (uint32_t id : ids) {
    const KernelDesc& kd = *active_.at(id)->kernel;
    ks.push_back({id, tb_footprint(sm_, {kd.threads_per_tb, kd.registers_per_tb, kd.shared_mem_per_tb})});
  }
  load_tb_mix(sharing_->restart(ks, to_ns(sim_now() + offset_)));
}

void BlockScheduler::end_profiling_window() {
  const std::vector<SmCounterReading> now = read_counters();
  load_tb_mix(sharing_->window_done(window_counters_, now, to_ns(sim_now() + offset_)));
}

void BlockScheduler::run() {
  if (idle_owed_) {  // the round at the end of the last busy window, which nothing changed
    idle_owed_ = false;
    for (auto& lo : left_over_) lo.idle_round();
  }
  for (;;) {
    const sc_time now = sim_now();
    // Nothing reported and nothing arrived since the last round (the end of a dispatch's busy
    // window, mostly): every SM refuses again, so Left-Over only moves its round-robin start.
    const bool unchanged = !dirty_ && owed_ == SC_ZERO_TIME && (arrivals_.empty() || arrivals_.begin()->first > now);
    while (!arrivals_.empty() && arrivals_.begin()->first <= now) {
      KernelLaunch* k = arrivals_.begin()->second;
      arrivals_.erase(arrivals_.begin());
      active_[k->id] = k;
      if (!domains_.empty()) {
        const KernelDesc& kd = *k->kernel;
        DriverKernel dk;
        dk.launch_id = k->id;
        dk.context = k->context;
        dk.process = k->process_index;
        dk.priority = k->priority;
        dk.grid = kd.grid;
        dk.threads = kd.threads_per_tb;
        dk.registers = kd.registers_per_tb;
        dk.shared_mem = kd.shared_mem_per_tb;
        dk.tbs_per_sm = compute_occupancy(sm_, {kd.threads_per_tb, kd.registers_per_tb, kd.shared_mem_per_tb}).tbs_per_sm;
        DriverDomain* dom = domains_.at(partition_of(*k)).get();
        if (!dom) throw SimError("launch " + std::to_string(k->id) + " belongs to no SM (every SM is in a partition)");
        dom->driver().launch(dk);
      } else {
        left_over_[partition_of(*k)].arrive(k->id, k->kernel->grid);
      }
    }
    dirty_ = false;
    offset_ = owed_;  // table accesses of the SMs' reports since the last round
    owed_ = SC_ZERO_TIME;
    in_round_ = true;
    if (sharing_) {
      if (sharing_->profiling() && now >= window_end_) end_profiling_window();
      update_sharing();
    }
    if (!domains_.empty()) {
      for (auto& d : domains_)
        if (d) d->driver().step(*d);
    } else {
      // The refusal check first, inline: Left-Over asks every SM on each pass, and most are full.
      for (auto& lo : left_over_)
        if (unchanged && !sharing_)
          lo.idle_round();
        else
          lo.schedule(
              [&](uint32_t sm, uint32_t id, uint32_t tb) { return !refused_.refused(sm, id) && try_dispatch(sm, id, tb, nullptr); },
              [&](uint32_t id) { return refused_.refusing(id); });
    }
    in_round_ = false;
    if (offset_ > SC_ZERO_TIME) {  // the driver is busy issuing and deciding for this long
      const sc_time busy_until = now + offset_;
      if (!owes_idle_rounds() || (!arrivals_.empty() && arrivals_.begin()->first <= busy_until)) {
        trigger_after(offset_);  // reports meanwhile wait for the timer: no need to hold them back
        return;
      }
      busy_until_ = busy_until;
      idle_owed_ = true;
      if (!arrivals_.empty())
        trigger_after_or_wake(arrivals_.begin()->first - now);
      else
        next_trigger(wake_);
      return;
    }
    // A kernel that issued its last TB leaves the side-by-side set: the controller starts over.
    if (sharing_ && left_over_.back().front() != sharing_set_) continue;
    if (dirty_) continue;
    static const sc_time kNoTime = sc_core::sc_max_time();  // a library call each time otherwise
    sc_time next = kNoTime;
    if (!arrivals_.empty()) next = arrivals_.begin()->first;
    if (sharing_ && sharing_->profiling()) next = std::min(next, window_end_);
    if (next < kNoTime)
      trigger_after_or_wake(next - now);
    else
      next_trigger(wake_);
    return;
  }
}

}  // namespace mpgpu
