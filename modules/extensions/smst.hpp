#pragma once
// SM Status Table (SPEC 2): one entry per SM: KSRT index of the running kernel, state
// (idle / running / reserved), number of running TBs, KSRT index of the next kernel when reserved.
#include <functional>
#include <vector>

#include <boost/dynamic_bitset.hpp>

#include "extensions/extension_params.hpp"
#include "extensions/field.hpp"

namespace mpgpu {

enum class SmState : uint8_t { idle = 0, running = 1, reserved = 2 };

struct SmstEntry {
  uint32_t running = 0;  // KSRT index
  SmState state = SmState::idle;
  uint32_t running_tbs = 0;
  uint32_t next = 0;     // KSRT index, valid when reserved
};

class Smst {
 public:
  explicit Smst(const ExtensionParams& p);
  static FieldLayout layout(const ExtensionParams& p);
  uint32_t entries() const { return static_cast<uint32_t>(table_.size()); }
  const SmstEntry& at(uint32_t sm) const { return table_.at(sm); }

  void set_running(uint32_t sm, uint32_t ksrt_idx);  // from idle, or when a reservation completes
  void reserve(uint32_t sm, uint32_t next_ksrt_idx);  // running -> reserved (also re-targets next)
  void set_idle(uint32_t sm);
  void tb_started(uint32_t sm);
  void tb_left(uint32_t sm);  // finished or preempted
  // The first idle SM in index order (the serial search of SPEC 2), or -1.
  int find_idle() const;
  // SMs reserved for KSRT entry k: what a scan of the entries counts, kept as they change (the
  // policy asks it for every kernel on every decision).
  uint32_t reserved_for(uint32_t k) const { return k < reserved_for_.size() ? reserved_for_[k] : 0; }
  // Scans the driver makes after every finished TB, answered from sets kept as entries change
  // (the same answers as reading every entry): the SMs not idle with no TB running (those the
  // driver may free or hand over), and the KSRT entries that some SM is running.
  const boost::dynamic_bitset<>& without_tbs() const { return without_tbs_; }
  const boost::dynamic_bitset<>& running_kernels() const { return running_kernels_; }

  // Called after every successful update with (op code of SmstPinLogic, sm, argument): its owner
  // makes the same update on the table's pins (extensions/table_link.hpp).
  using Observer = std::function<void(unsigned op, uint32_t sm, uint32_t arg)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  void notify(unsigned op, uint32_t sm, uint32_t arg) const {
    if (observer_) observer_(op, sm, arg);
  }
  // Before an entry's state changes: it no longer counts where its old state counted it.
  void leave_state(const SmstEntry& e) {
    if (e.state == SmState::reserved) --reserved_for_[e.next];
    if (e.state == SmState::running && --running_for_[e.running] == 0) running_kernels_.reset(e.running);
  }
  // After an entry changed: the sets follow it.
  void entered(uint32_t sm, const SmstEntry& e);
  Observer observer_;
  FieldLayout layout_;
  uint32_t running_bits_, running_tbs_bits_, next_bits_;  // field widths, looked up once
  std::vector<SmstEntry> table_;
  std::vector<uint32_t> reserved_for_;  // by KSRT index
  std::vector<uint32_t> running_for_;   // by KSRT index: SMs running it
  boost::dynamic_bitset<> running_kernels_;  // by KSRT index: running_for_ > 0
  boost::dynamic_bitset<> without_tbs_, idle_;  // by SM
};

}  // namespace mpgpu
