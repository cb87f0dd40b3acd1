#include "block_scheduler/sm_driver.hpp"

namespace mpgpu {

SmDriver::SmDriver(const ExtensionParams& p, Mechanism m, std::unique_ptr<Policy> policy)
    : p_(p), mech_(m), policy_(std::move(policy)), ksrt_(p), smst_(p), ptbq_(p), active_(p), cmd_bufs_(p),
      hw_waiting_(p.max_contexts), kernels_(p.num_sms), buffered_(p.max_contexts), saving_(p.num_sms, false),
      full_(p.num_sms, false), preempting_tbs_(p.num_sms, 0) {}

void SmDriver::launch(const DriverKernel& k) {
  if (k.context >= p_.max_contexts)
    throw SimError("context " + std::to_string(k.context) + " exceeds the " + std::to_string(p_.max_contexts) +
                   " command buffers of the platform");
  hw_waiting_[k.context].push_back(k);
  ++pending_;
}

size_t SmDriver::waiting_launches() const {
  size_t n = 0;
  for (uint32_t c = 0; c < hw_waiting_.size(); ++c) n += hw_waiting_[c].size() + cmd_bufs_.occupied(c);
  return n;
}

uint64_t SmDriver::issuable(uint32_t k) const {
  const KsrtEntry& e = ksrt_.at(k);
  if (!e.valid) return 0;
  return ptbq_.size(k) + (e.grid_tbs - e.next_tb);
}

uint32_t SmDriver::owner(uint32_t sm) const {
  const SmstEntry& s = smst_.at(sm);
  return s.state == SmState::reserved ? s.next : s.running;
}

uint32_t SmDriver::owned_sms(uint32_t k) const {
  uint32_t n = 0;
  for (uint32_t sm = 0; sm < smst_.entries(); ++sm)
    n += smst_.at(sm).state != SmState::idle && owner(sm) == k;
  return n;
}

uint32_t SmDriver::reserved_for(uint32_t k) const { return smst_.reserved_for(k); }

bool SmDriver::wants_sm(uint32_t k) const {
  return issuable(k) > uint64_t{kernels_[k].tbs_per_sm} * reserved_for(k);
}

void SmDriver::admit() {
  if (pending_ == 0 || active_.full()) return;  // the common case: nothing to do
  // Command processor side: a context's next launch enters its command buffer when it is free;
  // from there it takes a KSRT entry and an active-queue slot when both have room.
  for (uint32_t c = 0; c < hw_waiting_.size(); ++c) {
    if (!cmd_bufs_.occupied(c) && !hw_waiting_[c].empty()) {
      buffered_[c] = hw_waiting_[c].front();
      hw_waiting_[c].pop_front();
      cmd_bufs_.put(c, buffered_[c].launch_id);
    }
  }
  // Oldest launch first among the buffered ones.
  for (;;) {
    int best = -1;
    for (uint32_t c = 0; c < cmd_bufs_.contexts(); ++c)
      if (cmd_bufs_.occupied(c) && (best < 0 || buffered_[c].launch_id < buffered_[best].launch_id)) best = c;
    if (best < 0 || active_.full()) return;
    const DriverKernel& dk = buffered_[best];
    KsrtEntry e;
    e.launch_id = dk.launch_id;
    e.grid_tbs = dk.grid;
    e.threads_per_tb = dk.threads;
    e.registers_per_tb = dk.registers;
    e.shared_mem_per_tb = dk.shared_mem;
    e.context = dk.context;
    e.priority = dk.priority;
    auto idx = ksrt_.allocate(e);
    if (!idx) return;
    kernels_[*idx] = dk;
    active_.push(*idx);
    cmd_bufs_.take(best);
    --pending_;
    policy_->admitted(*this, *idx);
    if (!hw_waiting_[best].empty()) {
      buffered_[best] = hw_waiting_[best].front();
      hw_waiting_[best].pop_front();
      cmd_bufs_.put(best, buffered_[best].launch_id);
    }
  }
}

void SmDriver::issue_tbs(uint32_t sm) {
  const SmstEntry& s = smst_.at(sm);
  // Dual-kernel: a reserved SM takes the preempting kernel's TBs as its positions free up.
  const bool preempting = mech_ == Mechanism::dual_kernel && s.state == SmState::reserved;
  if (s.state != SmState::running && !preempting) return;
  const uint32_t k = preempting ? s.next : s.running;
  while (issuable(k) > 0 && policy_->may_issue(*this, k)) {
    const KsrtEntry& e = ksrt_.at(k);
    bool ok;
    if (const PtbqEntry* pe = ptbq_.front(k)) {  // preempted TBs first
      ok = port_->dispatch(sm, e.launch_id, pe->tb, pe);
      if (ok) {
        ptbq_.pop(k);
        ++stats_.tbs_restored;
      }
    } else {
      ok = port_->dispatch(sm, e.launch_id, e.next_tb, nullptr);
      if (ok) ksrt_.issue_next(k);
    }
    if (!ok) {
      full_[sm] = true;
      return;
    }
    if (preempting)
      ++preempting_tbs_[sm];
    else
      smst_.tb_started(sm);
  }
}

void SmDriver::assign(uint32_t sm, uint32_t k) {
  if (smst_.at(sm).state != SmState::idle) throw SimError("assign: SM " + std::to_string(sm) + " not idle");
  smst_.set_running(sm, k);
  if (in_decide_) {
    ++stats_.decisions;
    port_->decision_made();
  }
  full_[sm] = false;
  issue_to(sm);
}

void SmDriver::reserve(uint32_t sm, uint32_t k) {
  const bool was_reserved = smst_.at(sm).state == SmState::reserved;
  smst_.reserve(sm, k);
  if (in_decide_) {
    ++stats_.decisions;
    port_->decision_made();
  }
  if (was_reserved) return;  // the policy re-targets a preemption in progress
  ++stats_.preemptions;
  port_->preemption_requested(sm, mech_);
  if (mech_ == Mechanism::chimera || mech_ == Mechanism::dual_kernel) {
    // Dual-kernel: this SM's share of the kernel's TBs (the policy reserves SMs while the kernel
    // has more TBs than its reserved SMs take).
    const uint64_t share = issuable(k) - std::min<uint64_t>(issuable(k), uint64_t{kernels_[k].tbs_per_sm} * (reserved_for(k) - 1));
    const uint32_t needed = static_cast<uint32_t>(std::min<uint64_t>(kernels_[k].tbs_per_sm, share));
    saving_[sm] = port_->plan_preemption(sm, kernels_[k].launch_id, needed);  // empty SM: recorded at once
    full_[sm] = false;
    return;
  }
  if (mech_ != Mechanism::draining && smst_.at(sm).running_tbs > 0) {
    saving_[sm] = true;  // until the SM reports what left it
    if (mech_ == Mechanism::flush)
      port_->flush(sm);
    else
      port_->save_context(sm);
  }
}

void SmDriver::complete_reservation(uint32_t sm) {
  const uint32_t next = smst_.at(sm).next;
  port_->preemption_completed(sm);
  if (preempting_tbs_[sm] > 0) {  // dual-kernel: the preempting kernel is the SM's kernel now
    smst_.set_running(sm, next);
    for (; preempting_tbs_[sm] > 0; --preempting_tbs_[sm]) smst_.tb_started(sm);
    full_[sm] = false;
    return;
  }
  smst_.set_idle(sm);
  if (ksrt_.at(next).valid && issuable(next) > 0) assign(sm, next);
}

bool SmDriver::tb_finished(uint32_t sm, uint32_t launch_id) {
  auto k = ksrt_.find_launch(launch_id);
  if (!k) throw SimError("TB finished for launch " + std::to_string(launch_id) + " not in the KSRT");
  const SmstEntry& s = smst_.at(sm);
  if (s.state == SmState::reserved && s.next == *k && preempting_tbs_[sm] > 0)
    --preempting_tbs_[sm];
  else
    smst_.tb_left(sm);
  full_[sm] = false;
  ksrt_.tb_done(*k);
  if (ksrt_.at(*k).tbs_done == ksrt_.at(*k).grid_tbs) {
    retire(*k);
    return true;
  }
  return false;
}

void SmDriver::preempted(uint32_t sm, const std::vector<SavedTb>& saved) {
  for (const auto& s : saved) {
    auto k = ksrt_.find_launch(s.launch_id);
    if (!k) throw SimError("preempted TB of launch " + std::to_string(s.launch_id) + " not in the KSRT");
    ptbq_.push(*k, s.entry);
    smst_.tb_left(sm);
    ++stats_.tbs_saved;
  }
  saving_[sm] = false;
  full_[sm] = false;
}

bool SmDriver::has_tb_for(uint32_t sm) const {
  const SmstEntry& s = smst_.at(sm);
  return s.state == SmState::running && issuable(s.running) > 0 && policy_->may_issue(*this, s.running);
}

void SmDriver::retire(uint32_t k) {
  for (uint32_t sm = 0; sm < smst_.entries(); ++sm) {
    const SmstEntry& s = smst_.at(sm);
    if (s.state == SmState::running && s.running == k) smst_.set_idle(sm);
    // Dual-kernel: the preempting kernel is done before the SM's running kernel left; the SM
    // goes on with the running one (the reservation was for k).
    if (mech_ == Mechanism::dual_kernel && s.state == SmState::reserved && s.next == k && !saving_[sm]) {
      smst_.set_running(sm, s.running);
      dual_ended_.push_back(sm);
    }
  }
  policy_->retired(*this, k);
  ptbq_.clear(k);
  active_.remove(k);
  ksrt_.release(k);
}

bool SmDriver::settle() {
  bool changed = false;
  // Only SMs not idle with no TB running can change here: the SMST's set of them, walked in
  // index order as it changes (the same SMs, in the same order, as a walk of every entry).
  const boost::dynamic_bitset<>& candidates = smst_.without_tbs();
  for (size_t sm = candidates.find_first(); sm != boost::dynamic_bitset<>::npos; sm = candidates.find_next(sm)) {
    const SmstEntry& s = smst_.at(sm);
    if (s.state == SmState::reserved && s.running_tbs == 0 && !saving_[sm]) {
      complete_reservation(sm);
      changed = true;
    } else if (s.state == SmState::running && s.running_tbs == 0 &&
               (issuable(s.running) == 0 || !policy_->may_issue(*this, s.running))) {
      smst_.set_idle(sm);  // nothing more of its kernel for it: free for the policy
      changed = true;
    }
  }
  return changed;
}

uint64_t SmDriver::step(DriverPort& port) {
  port_ = &port;
  for (uint32_t sm : dual_ended_) port.dual_ended(sm);
  dual_ended_.clear();
  const uint64_t before = stats_.decisions;
  admit();
  for (int guard = 0;; ++guard) {
    if (guard > 1000) throw SimError("SM driver did not settle");
    settle();
    in_decide_ = true;
    policy_->decide(*this);
    in_decide_ = false;
    for (uint32_t sm = 0; sm < smst_.entries(); ++sm) issue_to(sm);
    if (!settle()) break;
  }
  port_ = nullptr;
  return stats_.decisions - before;
}

}  // namespace mpgpu
