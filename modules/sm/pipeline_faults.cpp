// The pipeline's fault organizations (SPEC 3): the replay queue and operand log as the ld/st
// unit's admission tables, the squash and replay of faulted memory instructions, the hazards a
// fault leaves behind, and the replay state a context switch carries.
#include <algorithm>

#include "common/error.hpp"
#include "sm/pipeline.hpp"

namespace mpgpu {

const char* to_string(FaultOrganization o) { return kFaultOrganizationNames[static_cast<int>(o)]; }

uint64_t SmPipeline::tables_free_at(const Warp& w, const Decoded& d, bool count) {
  const FaultOrganization org = p_.fault_organization;
  if (org < FaultOrganization::replay_queue || !translated(d)) return cycle_;
  if (replaying(w)) return cycle_;  // a replay keeps its entries
  uint64_t at = cycle_;
  if (replay_queue_.full()) {  // entries past their commit leave only when looked at
    replay_queue_.retire(cycle_);
    if (replay_queue_.full()) {
      at = replay_queue_.next_leave();
      if (count) ++stats_.replay_queue_full, ++w.kstats->replay_queue_full;
    }
  }
  if (org == FaultOrganization::operand_log) {
    const uint32_t need = d.op == MemOp::load ? 1 : 2;  // a store (or atomic) logs data and addresses
    if (operand_log_.used(w.tb_slot) + need > operand_log_.share()) {
      operand_log_.retire(cycle_);
      if (operand_log_.used(w.tb_slot) + need > operand_log_.share()) {
        at = std::max(at, operand_log_.next_release(w.tb_slot));
        if (count) ++stats_.operand_log_full, ++w.kstats->operand_log_full;
      }
    }
  }
  // A warp whose own squashed instruction holds the entries waits for its replay, which becomes
  // due once the fault is known: look again then (the tables may name no release before it).
  if (at > cycle_ && !w.replays.empty()) at = std::min(at, std::max(cycle_ + 1, w.halt_from));
  return at;
}

void SmPipeline::file_memory(uint32_t wid, Warp& w, const Decoded& d, const MemIssue& m, uint64_t commit, bool replay) {
  const FaultOrganization org = p_.fault_organization;
  if (m.fault) {  // the hazard window: younger instructions issued before the fault is dealt with
    w.watch_until = org == FaultOrganization::stall_on_fault ? commit : m.fault_at;
    watch_open_until_ = std::max(watch_open_until_, w.watch_until);
    note_faults();
    w.watch_nsrc = std::min<uint8_t>(d.nsrc, 4);
    std::copy(d.src, d.src + w.watch_nsrc, w.watch_src);
  }
  if (org == FaultOrganization::stall_on_fault) return;  // the request waited for the handler
  const bool squashed = m.fault;
  const uint64_t seq = replay ? w.replays.front().seq : w.seq++;
  if (org >= FaultOrganization::replay_queue) {
    const uint64_t leave = squashed ? kUntilCommit : commit;
    const uint64_t release = squashed ? kUntilCommit : m.last_check;
    const bool log = org == FaultOrganization::operand_log;
    if (replay) {
      replay_queue_.set_leave(wid, seq, leave);
      if (log) operand_log_.set_release(wid, seq, release);
      if (!squashed)  // warps waiting for a table entry may now know when one frees
        for (SchedulerSlot& sl : slots_) sl.st.wake = 0;
    } else {
      if (!replay_queue_.issue({wid, d.pc, seq, leave}))
        throw SimError("replay queue full at issue (the admission check was bypassed)");
      if (log && !operand_log_.hold(w.tb_slot, d.op != MemOp::load, wid, seq, release))
        throw SimError("operand log share used up at issue (the admission check was bypassed)");
    }
  }
  if (sources_held_) {  // the replay queue holds sources until the last TLB check (RAW on replay)
    const uint64_t held = squashed ? kAwaitingReplay : m.last_check;
    for (int i = 0; i < d.nsrc; ++i) {
      if (d.src[i] >= w.released.size()) continue;
      uint64_t& r = w.released[d.src[i]];
      r = replay ? held : std::max(r, held);  // a replay ends the hold its squash set
    }
  }
  if (!squashed) return;
  if (!replay) {
    PendingReplay r;
    r.d = d;
    r.at = w.code.position();
    r.seq = seq;
    r.lanes = w.code.addresses(r.addrs);
    if (w.replays.empty()) ++faulted_warps_, note_faults();
    w.replays.push_back(r);  // younger faulted instructions come later: program order
  }
  w.halt_from = std::min(w.halt_from, m.fault_at);
  w.resume = std::max(w.resume, m.handled + p_.pipeline.fetch_latency);  // refetch at the faulting PC
}

void SmPipeline::watch_hazards(Warp& w, const Decoded& d) {
  ++stats_.younger_issued_under_fault, ++w.kstats->younger_issued_under_fault;
  for (int i = 0; i < d.ndst; ++i)
    if (std::find(w.watch_src, w.watch_src + w.watch_nsrc, d.dst[i]) != w.watch_src + w.watch_nsrc)
      ++stats_.sources_overwritten_under_fault, ++w.kstats->sources_overwritten_under_fault;
}

void SmPipeline::repartition_log() {
  if (p_.fault_organization != FaultOrganization::operand_log) return;
  uint32_t resident = 0;
  for (const TbSlot& t : tbs_) resident += t.live;
  operand_log_.partition(std::max(1u, resident));
  for (SchedulerSlot& sl : slots_) sl.st.wake = 0;  // shares changed: look again
}

void SmPipeline::tb_left_log(uint32_t slot) {
  if (p_.fault_organization != FaultOrganization::operand_log) return;
  operand_log_.take_tb(slot);
  repartition_log();
}

void SmPipeline::save_replays(uint32_t wid, Warp& w, WarpPosition& pos) {
  const bool tables = p_.fault_organization >= FaultOrganization::replay_queue;
  if (tables) replay_queue_.take_warp(wid);  // in-flight ones drain; the squashed go with the context
  for (const PendingReplay& r : w.replays) {
    pos.replay.push_back(r.at);
    if (!tables) continue;
    pos.replay_bytes += (p_.replay_queue.pc_bits + 7) / 8;
    if (p_.fault_organization == FaultOrganization::operand_log)
      pos.replay_bytes += (r.d.op == MemOp::load ? 1 : 2) * p_.operand_log.entry_bytes();
  }
  if (!w.replays.empty()) --faulted_warps_, note_faults();
  w.replays.clear();
  w.halt_from = kNever;
}

void SmPipeline::restore_replays(uint32_t wid, Warp& w, const WarpPosition& pos, uint64_t start) {
  if (pos.replay.empty()) return;
  const bool tables = p_.fault_organization >= FaultOrganization::replay_queue;
  if (w.replays.empty()) ++faulted_warps_, note_faults();
  for (const WarpPosition& at : pos.replay) {
    WarpCursor code = w.code;  // the same code, moved to the squashed instruction
    code.resume(at);
    PendingReplay r;
    r.d = code.head();
    r.at = at;
    r.seq = w.seq++;
    r.lanes = code.addresses(r.addrs);
    w.replays.push_back(r);
    // Restored into the tables as squashed (leaving at their replay); a table the TBs now resident
    // have filled takes them late (simplification: they are not waited for).
    if (tables) replay_queue_.issue({wid, r.d.pc, r.seq, kUntilCommit});
    if (p_.fault_organization == FaultOrganization::operand_log)
      operand_log_.hold(w.tb_slot, r.d.op != MemOp::load, wid, r.seq, kUntilCommit);
  }
  w.halt_from = start;
  w.resume = start + p_.pipeline.fetch_latency;
}

bool SmPipeline::waits_for_replay(Warp& w) {
  if (w.code.done() || !w.replays.empty()) return false;
  const Decoded& d = w.code.head();
  return d.unit == UnitClass::ldst && translated(d) && tables_free_at(w, d, false) == kUntilCommit;
}

std::vector<SmPipeline::FaultBlockedTb> SmPipeline::fault_blocked_tbs(uint64_t& next_known) {
  next_known = kNever;
  std::vector<FaultBlockedTb> out;
  if (!faulted_warps_) return out;
  for (uint32_t slot = 0; slot < tbs_.size(); ++slot) {
    const TbSlot& t = tbs_[slot];
    if (!t.live) continue;
    bool blocked = true, halted = false;
    uint64_t handled = 0;
    for (uint32_t wid : t.warps) {
      Warp& w = warps_[wid];
      if (!w.live || w.tb_slot != slot) continue;  // exited
      if (!w.replays.empty() && w.halt_from > cycle_) next_known = std::min(next_known, w.halt_from);
      // Halted until the handler is done (not merely refetching after it, or after a restore).
      if (replaying(w) && cycle_ + p_.pipeline.fetch_latency < w.resume) {
        halted = true;
        handled = std::max(handled, w.resume - p_.pipeline.fetch_latency);
      } else if (!w.at_barrier && !waits_for_replay(w)) {
        blocked = false;
      }
    }
    if (blocked && halted) out.push_back({slot, handled});
  }
  return out;
}

}  // namespace mpgpu
