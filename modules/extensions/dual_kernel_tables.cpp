#include "extensions/dual_kernel_tables.hpp"

#include <algorithm>

namespace mpgpu {

void RunningTbStatus::start(uint32_t slot, uint64_t cycle, bool idempotent_kernel) {
  RunningTbStatusEntry& e = table_.at(slot);
  const uint64_t c = checked(cycle, p_.cycle_bits, "running_tb_status", "issue_cycle");
  e.executed_instructions = 0;
  e.issue_cycle = c;
  e.flush = idempotent_kernel;
  if (observer_) observer_(kStart, slot, cycle, idempotent_kernel);
}

void RunningTbStatus::executed(uint32_t slot, uint64_t n) {
  RunningTbStatusEntry& e = table_.at(slot);
  if (n > ~uint64_t{0} - e.executed_instructions)
    throw SimError("running_tb_status.executed_instructions: the sum exceeds 64 bits");
  e.executed_instructions =
      checked(e.executed_instructions + n, p_.instruction_count_bits, "running_tb_status", "executed_instructions");
  if (observer_) observer_(kExecuted, slot, n, false);
}

void RunningTbStatus::lost_idempotence(uint32_t slot) {
  table_.at(slot).flush = false;
  if (observer_) observer_(kLostIdempotence, slot, 0, false);
}

void PreemptingAllocationStatus::set_kernel(uint32_t pid, uint32_t kernel_id) {
  // Both checked before either is written: a rejected update changes nothing.
  const auto p = static_cast<uint32_t>(checked(pid, p_.pid_bits, "preempting_kernel", "pid"));
  kernel_ = static_cast<uint32_t>(checked(kernel_id, p_.kernel_id_bits, "preempting_kernel", "kernel_id"));
  pid_ = p;
  notify(3, 0, pid);
}

void PreemptingAllocationStatus::allocate(uint32_t position, uint32_t tb_slot) {
  if (allocated_.at(position)) throw SimError("preempting allocation status: position already allocated");
  slot_[position] = static_cast<uint32_t>(checked(tb_slot, bits_for(p_.tb_slots), "preempting_allocation_status", "tb_slot"));
  allocated_[position] = true;
  notify(1, position, tb_slot);
}

void PreemptingAllocationStatus::release(uint32_t position) {
  allocated_.at(position) = false;
  notify(2, position, 0);
}

std::vector<AllocationPosition> allocation_positions(const DualKernelParams& p, uint32_t registers, uint32_t shared_mem,
                                                     uint32_t tb_registers, uint32_t tb_shared_mem) {
  uint32_t n = p.positions;
  if (tb_registers) n = std::min(n, registers / tb_registers);
  if (tb_shared_mem) n = std::min(n, shared_mem / tb_shared_mem);
  std::vector<AllocationPosition> out;
  for (uint32_t i = 0; i < n; ++i) {
    AllocationPosition a{i * tb_registers, tb_registers, i * tb_shared_mem, tb_shared_mem};
    checked(a.reg_offset, p.offset_bits, "allocation_positions", "reg_offset");
    checked(a.shm_offset, p.offset_bits, "allocation_positions", "shm_offset");
    out.push_back(a);
  }
  return out;
}

}  // namespace mpgpu
