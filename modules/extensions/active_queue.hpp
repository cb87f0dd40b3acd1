#pragma once
// Active queue (SPEC 2): KSRT indices of active (running or preempted) kernels in arrival order,
// N_SM entries; when full, new launches wait in their command buffers.
#include <functional>
#include <vector>

#include "extensions/extension_params.hpp"
#include "extensions/field.hpp"

namespace mpgpu {

class ActiveQueue {
 public:
  explicit ActiveQueue(const ExtensionParams& p) : capacity_(p.num_sms), idx_bits_(bits_for(p.num_sms)) {}
  static FieldLayout layout(const ExtensionParams& p) { return {{"ksrt_index", bits_for(p.num_sms)}}; }
  bool full() const { return order_.size() >= capacity_; }
  void push(uint32_t ksrt_idx);
  void remove(uint32_t ksrt_idx);
  const std::vector<uint32_t>& order() const { return order_; }  // oldest first
  uint64_t changes() const { return changes_; }  // pushes and removals so far: what was read of order() still holds while equal
  // Called after every update with (op code of ActiveQueuePinLogic, KSRT index): its owner makes
  // the same update on the table's pins (extensions/table_link.hpp).
  using Observer = std::function<void(unsigned op, uint32_t ksrt_idx)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  Observer observer_;
  uint32_t capacity_, idx_bits_;
  std::vector<uint32_t> order_;
  uint64_t changes_ = 0;
};

// Command buffers (SPEC 2): one per context, each holds one kernel-launch command.
class CommandBuffers {
 public:
  explicit CommandBuffers(const ExtensionParams& p) : slots_(p.max_contexts, kEmpty) {}
  static FieldLayout layout(const ExtensionParams& p);
  bool occupied(uint32_t context) const { return slots_.at(context) != kEmpty; }
  void put(uint32_t context, uint32_t launch_id);
  uint32_t take(uint32_t context);
  uint32_t peek(uint32_t context) const { return slots_.at(context); }
  uint32_t contexts() const { return static_cast<uint32_t>(slots_.size()); }
  // Called after every update with (op code of CommandBuffersPinLogic, context, launch id).
  using Observer = std::function<void(unsigned op, uint32_t context, uint32_t launch_id)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  Observer observer_;
  static constexpr uint32_t kEmpty = ~0u;
  std::vector<uint32_t> slots_;  // launch id held, model-side stand-in for the command fields
};

}  // namespace mpgpu
