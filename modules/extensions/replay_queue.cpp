#include "extensions/replay_queue.hpp"

#include <algorithm>

namespace mpgpu {

bool ReplayQueue::issue(const ReplayEntry& e) {
  if (full()) return false;
  checked(e.warp, field_bits(layout_, "warp"), "replay_queue", "warp");
  checked(e.pc, field_bits(layout_, "pc"), "replay_queue", "pc");
  q_.push_back(e);
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

void OperandLog::partition(uint32_t resident_tbs) {
  share_ = resident_tbs ? p_.entries() / resident_tbs : 0;
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
