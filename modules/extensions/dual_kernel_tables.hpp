#pragma once
// The other per-SM tables of the dual-kernel approach (SPEC 4): running-TB status (what the
// victim selection costs each technique with), the preempting kernel's allocation status, and the
// predetermined allocation positions.
#include <functional>
#include <optional>
#include <vector>

#include "extensions/victim_sets.hpp"

namespace mpgpu {

struct RunningTbStatusEntry {
  uint64_t executed_instructions = 0;
  uint64_t issue_cycle = 0;
  bool flush = false;  // still idempotent: may be flushed (no atomic, no global overwrite yet)
};

class RunningTbStatus {
 public:
  explicit RunningTbStatus(const DualKernelParams& p) : p_(p), table_(p.tb_slots) {}
  void start(uint32_t slot, uint64_t cycle, bool idempotent_kernel);
  void executed(uint32_t slot, uint64_t instructions);
  void lost_idempotence(uint32_t slot);  // an atomic or a global overwrite executed
  const RunningTbStatusEntry& at(uint32_t slot) const { return table_.at(slot); }
  uint32_t slots() const { return static_cast<uint32_t>(table_.size()); }
  // Every update, for a link to the table's pins: start(slot, value = cycle, idempotent),
  // executed(slot, value = instructions added), lost_idempotence(slot). Op 0 is a read (the owner's).
  enum Op : unsigned { kRead = 0, kStart = 1, kExecuted = 2, kLostIdempotence = 3 };
  using Observer = std::function<void(unsigned op, uint32_t slot, uint64_t value, bool idempotent)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  DualKernelParams p_;
  std::vector<RunningTbStatusEntry> table_;
  Observer observer_;
};

class PreemptingAllocationStatus {
 public:
  explicit PreemptingAllocationStatus(const DualKernelParams& p) : p_(p), slot_(p.positions), allocated_(p.positions) {}
  void set_kernel(uint32_t pid, uint32_t kernel_id);
  void allocate(uint32_t position, uint32_t tb_slot);
  void release(uint32_t position);
  bool allocated(uint32_t position) const { return allocated_.at(position); }
  uint32_t tb_slot(uint32_t position) const { return slot_.at(position); }
  uint32_t pid() const { return pid_; }
  uint32_t kernel_id() const { return kernel_; }
  uint32_t positions() const { return p_.positions; }
  // Called after every update with (op code of PreemptingStatusPinLogic, position, argument:
  // the TB slot, or the pid of set_kernel) and the table after it: its owner makes the same update
  // on the pins.
  using Observer = std::function<void(unsigned op, uint32_t position, uint32_t arg, const PreemptingAllocationStatus& after)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  void notify(unsigned op, uint32_t position, uint32_t arg) const {
    if (observer_) observer_(op, position, arg, *this);
  }
  Observer observer_;
  DualKernelParams p_;
  std::vector<uint32_t> slot_;
  std::vector<bool> allocated_;
  uint32_t pid_ = 0, kernel_ = 0;
};

// Positions of the preempting kernel's TBs: consecutive, aligned slices of the register file and
// shared memory, as many as fit both (at most K); offsets must fit their field.
std::vector<AllocationPosition> allocation_positions(const DualKernelParams& p, uint32_t registers,
                                                     uint32_t shared_mem, uint32_t tb_registers, uint32_t tb_shared_mem);

}  // namespace mpgpu
