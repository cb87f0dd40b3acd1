#include "block_scheduler/preemption_processor.hpp"

#include <algorithm>
#include <map>

#include "sm/occupancy.hpp"

namespace mpgpu {

PreemptPlan PreemptionDecision::plan() const {
  PreemptPlan out;
  for (const PlannedTb& t : tbs) out.push_back({t.slot, t.technique});
  return out;
}

PreemptionProcessor::PreemptionProcessor(const SmParams& sm, const PreemptionProcessorParams& p)
    : sm_(sm), p_(p), tables_(sm.per_slot_tables()), sms_(sm.count) {}

void PreemptionProcessor::tb_finished(uint32_t launch, uint64_t instructions, uint64_t cycles) {
  if (instructions == 0) return;
  KernelTbStats& k = stats_[launch];
  k.finished_instructions.push_back(double(instructions));
  k.finished_cpi.push_back(double(cycles) / double(instructions));
}

std::vector<TbCosts> PreemptionProcessor::costs_by_slot(const SmStatusReport& s) const {
  // The cost model runs per kernel (its statistics, its context size) over that kernel's TBs.
  std::map<uint32_t, std::vector<size_t>> by_launch;
  for (size_t i = 0; i < s.tbs.size(); ++i) by_launch[s.tbs[i].launch->id].push_back(i);
  std::vector<TbCosts> out(sm_.max_tbs);
  static const KernelTbStats kNone;
  for (const auto& [launch, idx] : by_launch) {
    CostModelParams cp;
    cp.context_bytes = tb_context_bytes(sm_, *s.tbs[idx.front()].launch->kernel);
    cp.dram_bytes_per_cycle = p_.dram_bytes_per_cycle;
    cp.num_sms = sm_.count;
    std::vector<RunningTbStatusEntry> entries;
    std::vector<double> exact;
    for (size_t i : idx) {
      entries.push_back(s.tbs[i].status);
      const auto& rem = s.tbs[i].remaining_cycles;
      exact.push_back(rem ? double(*rem) : PreemptionCostModel::kMaxCost);
    }
    auto st = stats_.find(launch);
    const auto c = PreemptionCostModel::costs(cp, st == stats_.end() ? kNone : st->second, entries, s.cycle,
                                              p_.oracle ? &exact : nullptr);
    for (size_t j = 0; j < idx.size(); ++j) out.at(s.tbs[idx[j]].alloc.slot) = c[j];
  }
  return out;
}

PreemptionDecision PreemptionProcessor::plan_whole_sm(const SmStatusReport& s) const {
  const auto costs = costs_by_slot(s);
  const double limit = p_.max_latency_cycles;
  // The SM saves switched TBs in turn, so the switch "slots" under the constraint go first to the
  // TBs that meet it no other way (the slowest alternative first), then to the TBs that have run
  // longest (flushing them would lose most).
  auto other_latency = [&](const TbCosts& c) {
    double l = PreemptionCostModel::kMaxCost;
    for (TbTechnique t : {TbTechnique::flush, TbTechnique::drain})
      if (c.of(t).legal) l = std::min(l, c.of(t).latency);
    return l;
  };
  std::vector<size_t> order(s.tbs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const double la = other_latency(costs[s.tbs[a].alloc.slot]), lb = other_latency(costs[s.tbs[b].alloc.slot]);
    if ((la > limit) != (lb > limit)) return la > limit;
    if (la > limit) return la > lb;
    return s.tbs[a].status.executed_instructions > s.tbs[b].status.executed_instructions;
  });
  std::vector<PlannedTb> planned(s.tbs.size());
  uint32_t switches = 0;
  for (size_t i : order) {
    const auto& t = s.tbs[i];
    const TbCosts& c = costs[t.alloc.slot];
    const TbTechnique how = PreemptionCostModel::choose(c, limit, switches);
    const TechniqueCost x = PreemptionCostModel::in_plan(c, how, switches);
    planned[i] = {t.alloc.slot, t.launch, t.tb, how, x.latency, x.overhead};
    if (how == TbTechnique::switch_out) ++switches;
  }
  return {planned, {}};  // in the status report's order
}

PreemptionDecision PreemptionProcessor::plan_positions(uint32_t sm, const SmStatusReport& s, const KernelLaunch& next,
                                                       uint32_t needed) {
  const KernelDesc& k = *next.kernel;
  const uint32_t tb_registers = rounded_registers(sm_, k.registers_per_tb);
  DualSm d{next.id, allocation_positions(tables_, s.registers, s.shared_mem, tb_registers, k.shared_mem_per_tb),
           CandidateVictimSets(tables_), PreemptingAllocationStatus(tables_)};
  if (observer_.planned) observer_.planned(sm);
  if (observer_.positions) observer_.positions(sm, s.registers, s.shared_mem, tb_registers, k.shared_mem_per_tb, d.positions);
  if (observer_.status)
    d.status.set_observer([this, sm](unsigned op, uint32_t pos, uint32_t arg, const PreemptingAllocationStatus& after) {
      observer_.status(sm, op, pos, arg, after);
    });
  d.status.set_kernel(next.context, next.id % (1u << tables_.kernel_id_bits));
  if (observer_.victim_sets)
    d.sets.set_observer([this, sm](unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after) {
      observer_.victim_sets(sm, op, pos, slot, after);
    });
  std::vector<CandidateVictimSets::Resident> resident;
  for (const auto& t : s.tbs)
    resident.push_back({t.alloc.slot, t.alloc.reg_offset, t.alloc.reg_size, t.alloc.shm_offset, t.alloc.shm_size});
  d.sets.build(d.positions, resident);
  const auto costs = costs_by_slot(s);
  const VictimChoice vc = select_victims(d.sets, costs, std::min<uint32_t>(needed, d.positions.size()), p_.max_latency_cycles);
  PreemptionDecision out;
  out.positions = vc.positions;
  std::vector<bool> victim(sm_.max_tbs, false);
  uint32_t switches = 0;  // in plan order: the SM saves them in turn
  auto take = [&](uint32_t slot, TbTechnique how) {
    const TechniqueCost x = PreemptionCostModel::in_plan(costs[slot], how, switches);
    for (const auto& t : s.tbs)
      if (t.alloc.slot == slot) out.tbs.push_back({slot, t.launch, t.tb, how, x.latency, x.overhead});
    if (how == TbTechnique::switch_out) ++switches;
    victim[slot] = true;
    d.sets.clear_tb(slot);
  };
  for (const auto& v : vc.victims) take(v.slot, v.technique);
  // TB slots and threads: the preempting TBs need them too.
  const uint32_t tbs_in = static_cast<uint32_t>(vc.positions.size());
  const uint32_t threads_in = tbs_in * warp_rounded_threads(sm_, k.threads_per_tb);
  for (;;) {
    uint32_t staying = 0, threads = 0;
    for (const auto& t : s.tbs)
      if (!victim[t.alloc.slot]) ++staying, threads += t.alloc.threads;
    if (staying + tbs_in <= sm_.max_tbs && threads + threads_in <= sm_.max_threads) break;
    // The cheapest staying TB: least overhead meeting the constraint, else least latency.
    std::optional<std::pair<uint32_t, TbTechnique>> best;
    TechniqueCost best_cost;
    for (const auto& t : s.tbs) {
      if (victim[t.alloc.slot]) continue;
      const TbTechnique how = PreemptionCostModel::choose(costs[t.alloc.slot], p_.max_latency_cycles, switches);
      const TechniqueCost x = PreemptionCostModel::in_plan(costs[t.alloc.slot], how, switches);
      if (!best || PreemptionCostModel::preferred(x, best_cost, p_.max_latency_cycles)) best = {{t.alloc.slot, how}}, best_cost = x;
    }
    if (!best) break;
    take(best->first, best->second);
  }
  sms_.at(sm) = std::move(d);
  return out;
}

std::vector<uint32_t> PreemptionProcessor::free_positions(uint32_t sm) const {
  std::vector<uint32_t> out;
  const DualSm& d = *sms_.at(sm);
  for (uint32_t k = 0; k < d.positions.size(); ++k)
    if (!d.status.allocated(k)) out.push_back(k);
  return out;
}

void PreemptionProcessor::placed(uint32_t sm, uint32_t k, uint32_t slot) { sms_.at(sm)->status.allocate(k, slot); }

void PreemptionProcessor::left(uint32_t sm, uint32_t slot) {
  auto& d = sms_.at(sm);
  if (!d) return;
  for (uint32_t k = 0; k < d->positions.size(); ++k)
    if (d->status.allocated(k) && d->status.tb_slot(k) == slot) d->status.release(k);
}

}  // namespace mpgpu
