#include "dram/fr_fcfs.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace mpgpu {

namespace {
struct BankState {
  bool open = false, ever_opened = false;
  uint64_t row = 0;
  uint64_t act_ready = 0, column_ready = 0, pre_ready = 0;  // earliest next ACT / RD-WR / PRE
};
struct Queued {
  uint32_t id;
  uint32_t bursts_left;
};
}  // namespace

FrFcfsScheduler::FrFcfsScheduler(const DramParams& p, uint32_t queue_capacity, DramSchedulePolicy policy)
    : p_(p), capacity_(std::max(1u, queue_capacity)), policy_(policy) {}

uint64_t FrFcfsScheduler::count(RowOutcome o) const {
  return uint64_t(std::count(outcomes_.begin(), outcomes_.end(), o));
}

std::vector<uint64_t> FrFcfsScheduler::run(const std::vector<DramRequest>& reqs) {
  const DramTiming& tm = p_.timing;
  const uint64_t burst = p_.burst_cycles();
  const size_t n = reqs.size();
  for (const DramRequest& r : reqs)
    if (r.bank >= p_.banks) throw std::out_of_range("DRAM bank out of range");
  std::vector<uint32_t> order(n);  // age order: arrival, then position
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return reqs[a].arrival < reqs[b].arrival; });

  std::vector<uint64_t> completion(n, 0);
  outcomes_.assign(n, RowOutcome::hit);
  commands_.clear();
  std::vector<BankState> banks(p_.banks);
  uint64_t act_any_ready = 0, column_any_ready = 0;  // tRRD, tCCD
  std::vector<std::pair<uint64_t, uint64_t>> bursts;  // data bus, [start, end) still ahead
  auto bus_free = [&](uint64_t start) {
    for (const auto& b : bursts)
      if (start < b.second && b.first < start + burst) return false;
    return true;
  };
  std::vector<Queued> queue;
  std::vector<char> bank_has_hit(p_.banks), bank_seen(p_.banks);
  size_t next = 0, done = 0;
  uint64_t t = n ? reqs[order[0]].arrival : 0;

  while (done < n) {
    while (next < n && queue.size() < capacity_ && reqs[order[next]].arrival <= t)
      queue.push_back({order[next], p_.bursts_for(reqs[order[next]].bytes)}), ++next;
    bursts.erase(std::remove_if(bursts.begin(), bursts.end(), [&](const auto& b) { return b.second <= t; }),
                 bursts.end());
    if (queue.empty()) {  // idle: jump to the next arrival
      t = std::max(t, reqs[order[next]].arrival);
      continue;
    }
    std::fill(bank_has_hit.begin(), bank_has_hit.end(), 0);
    std::fill(bank_seen.begin(), bank_seen.end(), 0);
    for (const Queued& q : queue) {
      const BankState& b = banks[reqs[q.id].bank];
      if (b.open && b.row == reqs[q.id].row) bank_has_hit[reqs[q.id].bank] = 1;
    }
    // Oldest ready column command and oldest ready row command (ACT or PRE).
    int column = -1, row_cmd = -1;
    for (size_t i = 0; i < queue.size(); ++i) {
      const DramRequest& r = reqs[queue[i].id];
      const BankState& b = banks[r.bank];
      if (policy_ == DramSchedulePolicy::fcfs && bank_seen[r.bank]++) continue;  // not the bank's oldest
      if (b.open && b.row == r.row) {
        const uint64_t lat = r.is_write ? tm.WL : tm.CL;
        if (column < 0 && t >= b.column_ready && t >= column_any_ready && bus_free(t + lat)) column = int(i);
      } else if (row_cmd < 0) {
        const bool keep_row = policy_ == DramSchedulePolicy::fr_fcfs && bank_has_hit[r.bank];
        if (b.open ? (!keep_row && t >= b.pre_ready) : (t >= b.act_ready && t >= act_any_ready)) row_cmd = int(i);
      }
    }
    int pick = column >= 0 ? column : row_cmd;
    if (policy_ == DramSchedulePolicy::fcfs && column >= 0 && row_cmd >= 0) pick = std::min(column, row_cmd);

    if (pick >= 0) {
      Queued& q = queue[size_t(pick)];
      const DramRequest& r = reqs[q.id];
      BankState& b = banks[r.bank];
      if (b.open && b.row == r.row) {
        const uint64_t lat = r.is_write ? tm.WL : tm.CL;
        column_any_ready = t + tm.CCD;
        bursts.emplace_back(t + lat, t + lat + burst);
        b.pre_ready = std::max(b.pre_ready, t + (r.is_write ? p_.write_to_precharge() : p_.read_to_precharge()));
        commands_.push_back({t, r.is_write ? DramCommandKind::write : DramCommandKind::read, r.bank, r.row, q.id});
        if (--q.bursts_left == 0) {
          completion[q.id] = t + lat + burst;
          queue.erase(queue.begin() + pick);
          ++done;
        }
      } else if (b.open) {
        b.open = false;
        b.act_ready = std::max(b.act_ready, t + tm.RP);
        commands_.push_back({t, DramCommandKind::precharge, r.bank, b.row, q.id});
      } else {
        b.open = true;
        b.row = r.row;
        b.column_ready = t + tm.RCD;
        b.pre_ready = t + tm.RAS;
        b.act_ready = t + tm.RC;
        act_any_ready = t + tm.RRD;
        outcomes_[q.id] = b.ever_opened ? RowOutcome::conflict : RowOutcome::miss;
        b.ever_opened = true;
        commands_.push_back({t, DramCommandKind::activate, r.bank, r.row, q.id});
      }
    }
    ++t;
  }
  return completion;
}

}  // namespace mpgpu
