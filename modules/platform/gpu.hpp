#pragma once
// The elaborated GPU: host/command processor, block scheduler, SMs, crossbar, L2 slices, memory
// controllers and fill unit, created through the registry and bound through TLM sockets.
#include <systemc>

#include <memory>
#include <optional>
#include <vector>

#include "block_scheduler/block_scheduler.hpp"
#include "common/address_map.hpp"
#include "common/timeline.hpp"
#include "dram/memory_controller.hpp"
#include "fill_unit/fill_unit.hpp"
#include "host/host.hpp"
#include "l2/l2_slice.hpp"
#include "noc/crossbar.hpp"
#include "platform/platform_config.hpp"
#include "platform/registry.hpp"
#include "sm/sm.hpp"
#include "workload/workload.hpp"

namespace mpgpu {

struct ElabContext {
  const PlatformConfig& cfg;
  const WorkloadDesc& workload;
  std::vector<uint32_t> selected;  // processes taking part
  Timeline* timeline;
  const AddressMap& address_map;
  uint64_t planned_tbs;
  bool progress;
  MemoryManager* memory;  // the driver's context table and page tables
  SmCalendar* sm_calendar = nullptr;  // runs the SMs' steps (sm/sm_calendar.hpp)
};

class Gpu : public sc_core::sc_module {
 public:
  Gpu(sc_core::sc_module_name name, const PlatformConfig& cfg, const WorkloadDesc& w,
      std::vector<uint32_t> selected, Timeline* timeline, bool progress = false);

  Host& host() { return *host_; }
  BlockScheduler& block_scheduler() { return *bs_; }
  const std::vector<Sm*>& sms() const { return sms_; }
  SmCalendar& sm_calendar() { return *sm_calendar_; }
  // Every extension table link in use: the block scheduler's, then each SM's.
  template <class F>
  void for_each_table_link(F f) {
    for_each_link(bs_->links(), f);
    for (Sm* sm : sms_) {
      for_each_link(sm->table_links(), f);
      if (auto* l = sm->status_link()) f(*l);
    }
  }
  Crossbar& crossbar() { return *xbar_; }
  const std::vector<L2Slice*>& l2_slices() const { return l2_; }
  const std::vector<MemoryController*>& memory_controllers() const { return mcs_; }
  FillUnit& fill_unit() { return *fill_; }
  const PlatformConfig& config() const { return cfg_; }
  const MemoryManager& memory() const { return *memory_; }
  // The first kernel abort (an access the fill unit could not translate): the run stopped there.
  const std::optional<KernelAbort>& abort() const { return abort_; }

 private:
  template <typename T>
  T* make(ModuleRole role, const std::string& kind, const std::string& name, uint32_t index);

  const PlatformConfig& cfg_;
  AddressMap map_;
  std::unique_ptr<MemoryManager> memory_;
  ElabContext ctx_;
  std::vector<std::unique_ptr<sc_core::sc_module>> owned_;
  Host* host_;
  BlockScheduler* bs_;
  std::vector<Sm*> sms_;
  std::unique_ptr<SmCalendar> sm_calendar_;
  TimedWakeups wakeups_;  // the host's and block scheduler's, for the SMs' run-ahead
  Crossbar* xbar_;
  std::vector<L2Slice*> l2_;
  std::vector<MemoryController*> mcs_;
  FillUnit* fill_;
  std::optional<KernelAbort> abort_;
};

}  // namespace mpgpu
