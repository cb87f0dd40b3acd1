// Block switching on fault (SPEC 3; Tanasic, thesis ch. 6): the SM's local TB scheduler. A TB
// whose warps are all halted on faults (or wait at a barrier for such warps) is switched out: its
// in-flight instructions drain, a trap routine writes its context and replay state to its save
// area, and its resources go to a TB whose faults are handled (switched back in, first) or to a new
// TB from the block scheduler. At most `extra_tbs` TBs are switched out per SM at once.
//
// What the local scheduler knows is what the hardware knows: that a warp is halted on a fault,
// and when the fault handler has made the page resident (the fill unit's answer); it does not
// foresee how long a fault will take, so it switches out whenever the rule says so.
#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"
#include "sm/occupancy.hpp"
#include "sm/sm.hpp"

namespace mpgpu {

using sc_core::sc_time;

bool Sm::parked_due(const sc_time& now) const {
  return std::any_of(parked_.begin(), parked_.end(), [&](const ParkedTb& p) { return p.ready() <= now; });
}

bool Sm::block_scheduler_has_tb() {
  gpu_ctrl_ext ext;
  ext.command = CtrlCommand::tb_wanted;
  ext.sm = id_;
  sc_time delay = sc_core::SC_ZERO_TIME;
  return send_ctrl(ctrl_out, 0, ext, delay).accepted;
}

void Sm::notify_room() {
  gpu_ctrl_ext ext;
  ext.command = CtrlCommand::room_freed;
  ext.sm = id_;
  sc_time delay = sc_core::SC_ZERO_TIME;
  send_ctrl(ctrl_out, 0, ext, delay);
}

void Sm::switch_out_blocked(const sc_time& now) {
  fault_known_at_ = SmPipeline::kNever;
  if (save_pending_ || pipe_.faulted_warps() == 0) return;
  const auto blocked = pipe_.fault_blocked_tbs(fault_known_at_);
  if (blocked.empty()) return;
  // A resolved TB waiting for room swaps with a blocked one: it claims the room (and hands its
  // entry among the switched-out TBs to the one leaving). Beyond swaps, a TB is switched out only
  // within the limit and if the block scheduler has a new TB for the room.
  for (const auto& b : blocked) {
    auto waiting = std::find_if(parked_.begin(), parked_.end(),
                                [&](const ParkedTb& p) { return !p.holding && !p.claimed && p.ready() <= now; });
    if (waiting != parked_.end()) {
      waiting->claimed = true;
    } else if (switched_out_entries() >= p_.block_switching.extra_tbs || !block_scheduler_has_tb()) {
      break;
    }
    switch_out(b.slot, b.handled);
  }
}

uint32_t Sm::switched_out_entries() const {
  return static_cast<uint32_t>(std::count_if(parked_.begin(), parked_.end(), [](const ParkedTb& p) { return !p.claimed; }));
}

void Sm::switch_out(uint32_t slot, uint64_t handled_cycle) {
  WarpTb& t = warp_tbs_.at(slot);
  if (!t.launch || t.finished) throw SimError(name() + std::string(": block switch of an empty TB slot"));
  uint64_t drained = pipe_.cycle();
  stopped_executing(t.alloc, t.run_start, clock_.cycles(double(drained)));
  std::vector<WarpPosition> warps = pipe_.evict_tb(slot, drained);
  const uint64_t before = stats_.bytes_saved;
  sc_time issue_at = std::max(clock_.cycles(double(drained)), ctx_port_free_) + clock_.cycles(p_.trap_cycles);
  ParkedTb p{t.launch, t.tb, t.alloc, 0, {}, clock_.cycles(double(handled_cycle)), {}};
  p.saved = write_context(*t.launch, t.tb, p.pointer, issue_at);
  p.saved = std::max(p.saved, move_replay_state(*t.launch, t.tb, warps, issue_at, true));
  p.room_free = issue_at;  // its registers and shared memory are read out: the room is free
  stats_.switch_bytes_saved += stats_.bytes_saved - before;
  ++stats_.tbs_switched_out;
  if (timeline_ && timeline_->enabled())
    timeline_->instant(Timeline::sm_pid(id_), slot, fmt::format("switched out {} tb{}", t.launch->kernel->name, t.tb),
                       to_ns(p.saved));
  t.launch->saved_warps[t.tb] = std::move(warps);
  parked_.push_back(p);
  stats_.peak_switched_out = std::max(stats_.peak_switched_out, switched_out_entries());
  t = WarpTb{};
  --warp_tbs_live_;
}

void Sm::run_local_scheduler(const sc_time& now) {
  bool freed = false;
  for (ParkedTb& p : parked_)
    if (p.holding && p.room_free <= now) {
      res_.release(p.alloc);
      p.holding = false;
      freed = true;
    }
  // Resolved TBs back in: those that claimed a room first, then the earliest resolved (switch-out
  // order among equals).
  std::stable_sort(parked_.begin(), parked_.end(), [](const ParkedTb& a, const ParkedTb& b) {
    return a.claimed != b.claimed ? a.claimed : a.ready() < b.ready();
  });
  for (auto it = parked_.begin(); it != parked_.end();) {
    if (it->holding || it->ready() > now) {
      ++it;
      continue;
    }
    const KernelDesc& k = *it->launch->kernel;
    auto alloc = res_.try_allocate({k.threads_per_tb, k.registers_per_tb, k.shared_mem_per_tb},
                                   shared_mem_config_for(p_, k.shared_mem_per_tb));
    if (!alloc) {  // in order: a later one does not overtake
      // A claim lapses only if no room is on its way (the swap's room did not fit it).
      if (std::none_of(parked_.begin(), parked_.end(), [](const ParkedTb& p) { return p.holding; })) it->claimed = false;
      break;
    }
    const uint64_t before = stats_.bytes_restored;
    const sc_time start = std::max(now, ctx_port_free_);
    start_warp_tb(it->launch, it->tb, *alloc, start, &it->pointer);
    stats_.switch_bytes_restored += stats_.bytes_restored - before;
    ++stats_.tbs_switched_in;
    it = parked_.erase(it);
  }
  // Room left over after the resolved TBs: the block scheduler may fill it.
  if ((freed || refused_for_parked_) && !parked_due(now)) {
    refused_for_parked_ = false;
    notify_room();
  }
}

std::optional<sc_time> Sm::next_local_event(const sc_time& now) const {
  std::optional<sc_time> next;
  auto consider = [&](const sc_time& t) {
    if (t > now && (!next || t < *next)) next = t;
  };
  for (const ParkedTb& p : parked_) consider(p.holding ? p.room_free : p.ready());
  if (fault_known_at_ != SmPipeline::kNever) consider(clock_.cycles(double(fault_known_at_)));
  return next;
}

}  // namespace mpgpu
