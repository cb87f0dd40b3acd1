#pragma once
// Kernel Status Register Table (SPEC 2): one entry per active kernel, N_SM entries. An entry is
// the KSR (grid and TB shape, per-TB resources, next TB to issue, TBs done, parameter pointer)
// plus the context id, priority and DSS token count.
#include <functional>
#include <optional>
#include <vector>

#include "extensions/extension_params.hpp"
#include "extensions/field.hpp"

namespace mpgpu {

struct KsrtEntry {
  bool valid = false;
  uint32_t launch_id = 0;     // model-side tag (which launch this KSR holds); not a hardware field
  uint64_t grid_tbs = 0;      // grid_x * grid_y * grid_z, kept flat in the model
  uint32_t threads_per_tb = 0;
  uint32_t registers_per_tb = 0;
  uint32_t shared_mem_per_tb = 0;
  uint64_t next_tb = 0;
  uint64_t tbs_done = 0;
  uint64_t param_pointer = 0;
  uint32_t context = 0;
  uint32_t priority = 0;
  int32_t tokens = 0;
};

class Ksrt {
 public:
  explicit Ksrt(const ExtensionParams& p);
  static FieldLayout layout(const ExtensionParams& p);
  uint32_t entries() const { return static_cast<uint32_t>(table_.size()); }

  // Takes a free entry for a launch; nullopt when the table is full.
  std::optional<uint32_t> allocate(const KsrtEntry& e);
  void release(uint32_t idx);
  const KsrtEntry& at(uint32_t idx) const { return table_.at(idx); }
  uint32_t occupied() const;
  std::optional<uint32_t> find_launch(uint32_t launch_id) const;

  void issue_next(uint32_t idx);   // next_tb += 1
  void tb_done(uint32_t idx);      // tbs_done += 1
  void set_tokens(uint32_t idx, int32_t tokens);

  // Called after every update with (op code of KsrtPinLogic, entry): its owner makes the same
  // update on the table's pins (extensions/table_link.hpp).
  using Observer = std::function<void(unsigned op, uint32_t idx)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  void notify(unsigned op, uint32_t idx) const {
    if (observer_) observer_(op, idx);
  }
  Observer observer_;
  void check(const KsrtEntry& e) const;
  FieldLayout layout_;
  // The widths the per-TB updates check, looked up once (by name each time cost more than the update).
  uint32_t next_tb_bits_, tbs_done_bits_, tokens_bits_;
  std::vector<KsrtEntry> table_;
};

}  // namespace mpgpu
