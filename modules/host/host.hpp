#pragma once
// Host and command processor (SPEC 1): processes with their contexts and streams push commands
// into hardware queues; the dispatcher issues queue heads to the execution engine (kernel
// launches, to the block scheduler) or to the data-transfer engine (copies over the host link),
// and stops inspecting a queue until its command completes.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <deque>
#include <memory>
#include <functional>
#include <vector>

#include "common/calendar.hpp"
#include "common/clock.hpp"
#include "common/timeline.hpp"
#include "common/timed_wakeups.hpp"
#include "workload/workload.hpp"

namespace mpgpu {

struct HostLinkParams {
  std::string kind = "pcie";  // pcie | nvlink
  double clock_mhz = 500;
  uint32_t width_bytes = 32;  // bytes per link clock
  uint32_t burst_bytes = 4096;
  double latency_ns = 1000;
  double bandwidth_gbps() const { return clock_mhz * 1e6 * width_bytes / 1e9; }
};

struct HostParams {
  uint32_t hardware_queues = 32;
  uint32_t kernel_launch_cycles = 0;  // launch command to KSR set-up, core cycles
  bool copies_fill_l2 = false;        // a host-to-device copy leaves its lines in the L2 (copy engine writes through it)
  HostLinkParams link;
};

// One completed run of a process (its whole launch sequence).
struct ProcessRun {
  double start_ns, end_ns;
};

struct ProcessRecord {
  uint32_t index;  // in the workload
  std::vector<ProcessRun> runs;
  std::vector<uint32_t> hw_queues;  // one per stream
};

struct CopyRecord {
  uint32_t process;
  uint64_t bytes;
  double start_ns, end_ns;
};

class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> launch_out;  // to the block scheduler
  tlm_utils::simple_target_socket<Host> done_in;        // kernel finished
  // Where the host's timed waits are recorded (the SMs' run-ahead reads them); null: nowhere.
  TimedWakeups* wakeups = nullptr;

  // `selected`: indices of the workload's processes that take part in this run.
  Host(sc_core::sc_module_name name, const HostParams& p, const WorkloadDesc& w,
       std::vector<uint32_t> selected, ClockDomain core_clock, Timeline* timeline);
  SC_HAS_PROCESS(Host);

  const std::vector<ProcessRecord>& processes() const { return procs_; }
  const std::deque<KernelLaunch>& launches() const { return launches_; }
  const std::vector<CopyRecord>& copies() const { return copies_; }
  bool all_done() const;  // every process completed its `repeat` runs
  // Called for each host-to-device copy with a known device address (copies_fill_l2).
  std::function<void(uint32_t context, uint64_t addr, uint64_t bytes)> on_copy_to_device;
  // The driver's page-table base per context (= process slot), given to every launch (SPEC 2).
  std::vector<uint64_t> page_table_bases;
  bool stopped_by_replay() const { return replay_stop_; }
  // Kernel launches the selected processes make (one run each, or `repeat` runs).
  static uint64_t planned_tbs(const WorkloadDesc& w, const std::vector<uint32_t>& selected);

 private:
  struct Pending {
    const Command* cmd;
    KernelLaunch* launch = nullptr;
    uint32_t process;
    sc_core::sc_event done;
  };
  struct HwQueue {
    std::deque<Pending*> q;
    bool busy = false;
  };
  void process_thread(uint32_t slot);
  void stream_thread(uint32_t slot, uint32_t stream, uint32_t rep, uint32_t hwq);
  void dispatcher();
  void done_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  HostParams p_;
  const WorkloadDesc& w_;
  ClockDomain clock_;
  Timeline* timeline_;
  std::vector<ProcessRecord> procs_;
  std::deque<KernelLaunch> launches_;
  std::vector<CopyRecord> copies_;
  std::vector<HwQueue> queues_;
  sc_core::sc_event dispatch_ev_;
  std::vector<sc_core::sc_process_handle> process_threads_;
  OccupancyCalendar link_;
  uint32_t next_launch_id_ = 0;
  bool replay_stop_ = false;
};

}  // namespace mpgpu
