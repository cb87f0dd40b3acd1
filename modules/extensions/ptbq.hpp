#pragma once
// Preempted Thread Block Queues (SPEC 2): one FIFO per KSRT entry, N_SM x T_max entries each; an
// entry is the id and context-save pointer of a preempted TB. Issue takes from here first.
#include <boost/circular_buffer.hpp>

#include <functional>
#include <optional>
#include <vector>

#include "extensions/extension_params.hpp"
#include "extensions/field.hpp"

namespace mpgpu {

struct PtbqEntry {
  uint64_t tb = 0;
  uint64_t save_pointer = 0;
  uint64_t remaining_cycles = 0;  // model-side: work left when it was switched out (not a field)
};

class Ptbq {
 public:
  explicit Ptbq(const ExtensionParams& p);
  static FieldLayout layout(const ExtensionParams& p);
  uint32_t queues() const { return static_cast<uint32_t>(queues_.size()); }
  uint32_t capacity() const { return capacity_; }

  void push(uint32_t ksrt_idx, const PtbqEntry& e);  // throws when full (cannot happen by sizing)
  std::optional<PtbqEntry> pop(uint32_t ksrt_idx);
  const PtbqEntry* front(uint32_t ksrt_idx) const {
    const auto& q = queues_.at(ksrt_idx);
    return q.empty() ? nullptr : &q.front();
  }
  size_t size(uint32_t ksrt_idx) const { return queues_.at(ksrt_idx).size(); }
  void clear(uint32_t ksrt_idx) {
    queues_.at(ksrt_idx).clear();
    notify(3, ksrt_idx, nullptr);
  }

  // Called after every update with (op code of PtbqPinLogic, queue, the entry pushed): its owner
  // makes the same update on the table's pins (extensions/table_link.hpp).
  using Observer = std::function<void(unsigned op, uint32_t ksrt_idx, const PtbqEntry* pushed)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  void notify(unsigned op, uint32_t q, const PtbqEntry* e) const {
    if (observer_) observer_(op, q, e);
  }
  Observer observer_;
  FieldLayout layout_;
  uint32_t capacity_;
  std::vector<boost::circular_buffer<PtbqEntry>> queues_;
};

}  // namespace mpgpu
