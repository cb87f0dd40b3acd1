#include "extensions/victim_sets.hpp"

namespace mpgpu {

namespace {
bool overlaps(uint32_t a, uint32_t an, uint32_t b, uint32_t bn) { return an && bn && a < b + bn && b < a + an; }
}  // namespace

void CandidateVictimSets::build(const std::vector<AllocationPosition>& positions, const std::vector<Resident>& resident) {
  if (positions.size() > p_.positions) throw SimError("candidate victim sets: more positions than K");
  for (const auto& r : resident)
    if (r.slot >= p_.tb_slots) throw SimError("candidate victim sets: TB slot beyond P");
  for (uint32_t k = 0; k < sets_.size(); ++k) {
    clear_row(k);
    if (k >= positions.size()) continue;
    const auto& pos = positions[k];
    for (const auto& r : resident)
      if (overlaps(pos.reg_offset, pos.reg_size, r.reg_offset, r.reg_size) ||
          overlaps(pos.shm_offset, pos.shm_size, r.shm_offset, r.shm_size))
        set(k, r.slot);
  }
}

void CandidateVictimSets::clear_tb(uint32_t slot) {
  if (slot >= p_.tb_slots) throw SimError("candidate victim sets: TB slot beyond P");
  for (auto& s : sets_) s.reset(slot);
  updated(kClearTb, 0, slot);
}

void CandidateVictimSets::set(uint32_t k, uint32_t slot) {
  if (k >= p_.positions || slot >= p_.tb_slots) throw SimError("candidate victim sets: position or slot out of range");
  sets_[k].set(slot);
  updated(kSet, k, slot);
}

void CandidateVictimSets::clear_row(uint32_t k) {
  if (k >= p_.positions) throw SimError("candidate victim sets: position out of range");
  sets_[k].reset();
  updated(kClearRow, k, 0);
}

int CandidateVictimSets::free_position() const {
  for (size_t k = 0; k < sets_.size(); ++k)
    if (sets_[k].none()) return static_cast<int>(k);
  return -1;
}

FieldLayout allocation_positions_layout(const DualKernelParams& p) {
  return {{"reg_offset", p.offset_bits}, {"shm_offset", p.offset_bits}};
}
FieldLayout running_tb_status_layout(const DualKernelParams& p) {
  return {{"executed_instructions", p.instruction_count_bits}, {"issue_cycle", p.cycle_bits}, {"flush", 1}};
}
FieldLayout preempting_status_layout(const DualKernelParams& p) {
  return {{"allocated", 1}, {"tb_slot", bits_for(p.tb_slots)}};
}
FieldLayout preempting_kernel_layout(const DualKernelParams& p) {
  return {{"pid", p.pid_bits}, {"kernel_id", p.kernel_id_bits}};
}

}  // namespace mpgpu
