#include "extensions/replay_queue.hpp"

#include <algorithm>

namespace mpgpu {

bool ReplayQueue::issue(const ReplayEntry& e) {
  if (full()) return false;
  check_warp(e.warp);
  checked(e.pc, pc_bits_, "replay_queue", "pc");
  if (busy_.empty()) busy_.assign((p_.entries + 63) / 64, 0);
  uint32_t w = 0;
  while (!~busy_[w]) ++w;  // not full: a free slot exists
  const uint32_t slot = w * 64 + uint32_t(__builtin_ctzll(~busy_[w]));
  busy_[w] |= uint64_t{1} << (slot % 64);
  q_.push_back(e);
  q_.back().slot = last_slot_ = slot;
  earliest_ = std::min(earliest_, e.leave);
  if (observer_) observer_(kIssue, q_.back(), 0);
  return true;
}

void ReplayQueue::check_warp(uint32_t warp) const { checked(warp, warp_bits_, "replay_queue", "warp"); }

void ReplayQueue::leave(const ReplayEntry& e) {
  busy_[e.slot / 64] &= ~(uint64_t{1} << (e.slot % 64));
  if (observer_) observer_(kCommit, e, 0);
}

bool ReplayQueue::commit(uint32_t warp, uint64_t seq) {
  auto it = std::find_if(q_.begin(), q_.end(), [&](const ReplayEntry& e) { return e.warp == warp && e.seq == seq; });
  if (it == q_.end()) return false;
  const ReplayEntry e = *it;
  q_.erase(it);  // out-of-order commit: any entry may leave
  leave(e);
  return true;
}

bool ReplayQueue::commit_slot(uint32_t slot) {
  auto it = std::find_if(q_.begin(), q_.end(), [&](const ReplayEntry& e) { return e.slot == slot; });
  if (it == q_.end()) return false;
  const ReplayEntry e = *it;
  q_.erase(it);
  leave(e);
  return true;
}

std::vector<ReplayEntry> ReplayQueue::replay_order(uint32_t warp) const {
  std::vector<ReplayEntry> out;
  for (const auto& e : q_)
    if (e.warp == warp) out.push_back(e);
  std::sort(out.begin(), out.end(), [](const ReplayEntry& a, const ReplayEntry& b) { return a.seq < b.seq; });
  return out;
}

void ReplayQueue::retire(uint64_t now) {
  if (now < earliest_) return;
  if (observer_) {  // one commit at a time: a link sees each with the count after it
    for (size_t i = 0; i < q_.size();) {
      if (q_[i].leave > now) {
        ++i;
        continue;
      }
      const ReplayEntry e = q_[i];
      q_.erase(q_.begin() + static_cast<std::ptrdiff_t>(i));
      leave(e);
    }
  } else {
    q_.erase(std::remove_if(q_.begin(), q_.end(),
                            [&](const ReplayEntry& e) {
                              if (e.leave > now) return false;
                              leave(e);
                              return true;
                            }),
             q_.end());
  }
  earliest_ = kUntilCommit;
  for (const auto& e : q_) earliest_ = std::min(earliest_, e.leave);
}

bool ReplayQueue::set_leave(uint32_t warp, uint64_t seq, uint64_t leave) {
  for (auto& e : q_)
    if (e.warp == warp && e.seq == seq) {
      e.leave = leave;
      earliest_ = std::min(earliest_, leave);
      return true;
    }
  return false;
}

uint64_t ReplayQueue::next_leave() const { return earliest_; }

std::vector<ReplayEntry> ReplayQueue::take_warp(uint32_t warp) {
  std::vector<ReplayEntry> out = replay_order(warp);
  q_.erase(std::remove_if(q_.begin(), q_.end(), [&](const ReplayEntry& e) { return e.warp == warp; }), q_.end());
  for (const ReplayEntry& e : out) busy_[e.slot / 64] &= ~(uint64_t{1} << (e.slot % 64));
  if (observer_) {
    ReplayEntry w;
    w.warp = warp;
    observer_(kTake, w, static_cast<uint32_t>(out.size()));
  }
  return out;
}

void OperandLog::partition(uint32_t resident_tbs) {
  share_ = p_.share(resident_tbs);
  used_.resize(std::max<size_t>(used_.size(), resident_tbs), 0);
  if (observer_) observer_(kPartition, resident_tbs, 0);
}

bool OperandLog::allocate(uint32_t tb, bool store) {
  const uint32_t need = store ? 2 : 1;
  if (tb >= used_.size()) used_.resize(tb + 1, 0);
  if (used_[tb] + need > share_) return false;
  used_[tb] += need;
  if (observer_) observer_(kAllocate, tb, need);
  return true;
}

void OperandLog::release(uint32_t tb, bool store) {
  const uint32_t n = store ? 2 : 1;
  if (tb >= used_.size() || used_[tb] < n) throw SimError("operand log: release without allocation");
  used_[tb] -= n;
  if (observer_) observer_(kRelease, tb, n);
}

}  // namespace mpgpu

namespace mpgpu {

bool OperandLog::hold(uint32_t tb, bool store, uint32_t warp, uint64_t seq, uint64_t release) {
  if (!allocate(tb, store)) return false;
  holds_.push_back({tb, warp, store ? 2u : 1u, seq, release});
  earliest_ = std::min(earliest_, release);
  if (tb >= tb_earliest_.size()) tb_earliest_.resize(tb + 1, kUntilCommit);
  tb_earliest_[tb] = std::min(tb_earliest_[tb], release);
  return true;
}

void OperandLog::retire(uint64_t now) {
  if (now < earliest_) return;
  earliest_ = kUntilCommit;
  std::fill(tb_earliest_.begin(), tb_earliest_.end(), kUntilCommit);
  auto keep = holds_.begin();
  for (auto& h : holds_) {
    if (h.release <= now) {
      used_[h.tb] -= h.entries;
      if (observer_) observer_(kRelease, h.tb, h.entries);
    } else {
      earliest_ = std::min(earliest_, h.release);
      tb_earliest_[h.tb] = std::min(tb_earliest_[h.tb], h.release);
      *keep++ = h;
    }
  }
  holds_.erase(keep, holds_.end());
}

bool OperandLog::set_release(uint32_t warp, uint64_t seq, uint64_t release) {
  for (auto& h : holds_)
    if (h.warp == warp && h.seq == seq) {
      h.release = release;
      earliest_ = std::min(earliest_, release);
      tb_earliest_[h.tb] = std::min(tb_earliest_[h.tb], release);
      return true;
    }
  return false;
}

uint64_t OperandLog::next_release(uint32_t tb) const {
  // Exact after retire(); a hold raised by set_release (kUntilCommit -> its replay) only lowers it.
  return tb < tb_earliest_.size() ? tb_earliest_[tb] : kUntilCommit;
}

uint32_t OperandLog::take_tb(uint32_t tb) {
  uint32_t n = 0;
  const uint32_t held = used(tb);
  auto keep = holds_.begin();
  for (auto& h : holds_) {
    if (h.tb == tb) n += h.entries;
    else *keep++ = h;
  }
  holds_.erase(keep, holds_.end());
  if (tb < used_.size()) used_[tb] = 0;
  if (tb < tb_earliest_.size()) tb_earliest_[tb] = kUntilCommit;
  if (observer_) observer_(kTake, tb, held);
  return n;
}

}  // namespace mpgpu
