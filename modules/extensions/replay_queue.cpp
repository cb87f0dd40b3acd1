#include "extensions/replay_queue.hpp"

#include <algorithm>

namespace mpgpu {

bool ReplayQueue::issue(const ReplayEntry& e) {
  if (full()) return false;
  checked(e.warp, field_bits(layout_, "warp"), "replay_queue", "warp");
  checked(e.pc, field_bits(layout_, "pc"), "replay_queue", "pc");
  q_.push_back(e);
  earliest_ = std::min(earliest_, e.leave);
  return true;
}

bool ReplayQueue::commit(uint32_t warp, uint64_t seq) {
  auto it = std::find_if(q_.begin(), q_.end(), [&](const ReplayEntry& e) { return e.warp == warp && e.seq == seq; });
  if (it == q_.end()) return false;
  q_.erase(it);  // out-of-order commit: any entry may leave
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
  q_.erase(std::remove_if(q_.begin(), q_.end(), [&](const ReplayEntry& e) { return e.leave <= now; }), q_.end());
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
  return out;
}

void OperandLog::partition(uint32_t resident_tbs) {
  share_ = p_.share(resident_tbs);
  used_.resize(std::max<size_t>(used_.size(), resident_tbs), 0);
}

bool OperandLog::allocate(uint32_t tb, bool store) {
  const uint32_t need = store ? 2 : 1;
  if (tb >= used_.size()) used_.resize(tb + 1, 0);
  if (used_[tb] + need > share_) return false;
  used_[tb] += need;
  return true;
}

void OperandLog::release(uint32_t tb, bool store) {
  const uint32_t n = store ? 2 : 1;
  if (tb >= used_.size() || used_[tb] < n) throw SimError("operand log: release without allocation");
  used_[tb] -= n;
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
  auto keep = holds_.begin();
  for (auto& h : holds_) {
    if (h.tb == tb) n += h.entries;
    else *keep++ = h;
  }
  holds_.erase(keep, holds_.end());
  if (tb < used_.size()) used_[tb] = 0;
  if (tb < tb_earliest_.size()) tb_earliest_[tb] = kUntilCommit;
  return n;
}

}  // namespace mpgpu
