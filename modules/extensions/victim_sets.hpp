#pragma once
// Dual-kernel preemption tables (SPEC 4, Shieh): per SM, the allocation positions of the
// preempting kernel, the candidate victim sets (a K x P bitset: bit = a running TB's allocation
// slot that overlaps position k), the running-TB status used to cost each technique, and the
// preempting kernel's allocation status.
#include <boost/dynamic_bitset.hpp>

#include <cstdint>
#include <functional>
#include <vector>

#include "extensions/field.hpp"

namespace mpgpu {

struct DualKernelParams {
  uint32_t positions = 16;       // K: predetermined positions for the preempting kernel
  uint32_t tb_slots = 16;        // P: resident TBs per SM (T_max)
  uint32_t offset_bits = 16;     // register-file / shared-memory offset of a position
  uint32_t instruction_count_bits = 32;
  uint32_t cycle_bits = 32;
  uint32_t pid_bits = 15;
  uint32_t kernel_id_bits = 5;
};

// Allocation positions: register and shared-memory offset of each position.
struct AllocationPosition {
  uint32_t reg_offset, reg_size, shm_offset, shm_size;
};

class CandidateVictimSets {
 public:
  // The table's operations (the pin view's and the Verilog twin's request codes).
  enum Op : unsigned { kRead = 0, kSet = 1, kClearTb = 2, kClearRow = 3 };
  // Called after every update with the operation and the table as it now is: its owner makes the
  // same update on the table's pins (extensions/table_link.hpp).
  using Observer = std::function<void(unsigned op, uint32_t pos, uint32_t slot, const CandidateVictimSets& after)>;

  explicit CandidateVictimSets(const DualKernelParams& p) : p_(p), sets_(p.positions, boost::dynamic_bitset<>(p.tb_slots)) {}
  static FieldLayout layout(const DualKernelParams& p) { return {{"tb_slots", p.tb_slots}}; }

  // Recompute every position's set (a row clear, then a set per overlap): position k holds every
  // resident TB whose register or shared-memory range overlaps it.
  struct Resident {
    uint32_t slot, reg_offset, reg_size, shm_offset, shm_size;
  };
  void build(const std::vector<AllocationPosition>& positions, const std::vector<Resident>& resident);
  // A preempted TB leaves every candidate set (the clear-on-preempt update).
  void clear_tb(uint32_t slot);
  void set(uint32_t k, uint32_t slot);  // one overlap found while building position k's set
  void clear_row(uint32_t k);
  uint32_t positions() const { return p_.positions; }
  const boost::dynamic_bitset<>& candidate(uint32_t k) const { return sets_.at(k); }
  // Position whose remaining victims are all gone (free to allocate), or -1.
  int free_position() const;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  void updated(unsigned op, uint32_t pos, uint32_t slot) {
    if (observer_) observer_(op, pos, slot, *this);
  }
  Observer observer_;
  DualKernelParams p_;
  std::vector<boost::dynamic_bitset<>> sets_;
};

// Storage layouts of the other per-SM tables of SPEC 4.
FieldLayout allocation_positions_layout(const DualKernelParams& p);  // per position
FieldLayout running_tb_status_layout(const DualKernelParams& p);     // per resident TB
FieldLayout preempting_status_layout(const DualKernelParams& p);     // per position
FieldLayout preempting_kernel_layout(const DualKernelParams& p);     // once per SM

}  // namespace mpgpu
