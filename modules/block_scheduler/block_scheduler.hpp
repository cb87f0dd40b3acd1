#pragma once
// The SM driver (SPEC 1, 2): takes kernel launches from the command processor and issues their
// TBs to SMs. Policy fcfs: FCFS with Left-Over over the whole GPU. Other policies: the
// scheduling framework (SmDriver) with SMs assigned to one kernel at a time, reserved and
// preempted by context switch or draining. Reports finished kernels to the host. Compute
// partitions (SPEC 6) each get their own Left-Over FCFS or their own scheduling framework over
// their SMs.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <map>
#include <memory>
#include <unordered_map>

#include "block_scheduler/left_over.hpp"
#include "block_scheduler/preemption_processor.hpp"
#include "block_scheduler/refusals.hpp"
#include "block_scheduler/sharing_controller.hpp"
#include "block_scheduler/sm_driver.hpp"
#include "common/clock.hpp"
#include "common/payload.hpp"
#include "common/progress.hpp"
#include "common/timed_wakeups.hpp"
#include "extensions/allocation_positions_pins.hpp"
#include "extensions/ksrt_pins.hpp"
#include "extensions/preempting_status_pins.hpp"
#include "extensions/ptbq_pins.hpp"
#include "extensions/queue_pins.hpp"
#include "extensions/smst_pins.hpp"
#include "extensions/table_link.hpp"
#include "extensions/victim_sets_pins.hpp"
#include "sm/sm.hpp"
#include "workload/kernel.hpp"
#include "workload/workload.hpp"

namespace mpgpu {

struct BlockSchedulerParams {
  uint32_t tb_dispatch_cycles = 1;  // the driver issues one TB per this many core cycles
  uint32_t search_cycles_per_entry = 1;  // policy walks KSRT/SMST serially: N_SM entries per decision
  uint32_t max_contexts = 32;            // command buffers
};

// What the run asks of the block scheduler (from the workload).
struct SchedulingSetup {
  std::string policy = "fcfs";
  Mechanism mechanism = Mechanism::context_switch;
  TbTechnique flush_fallback = TbTechnique::drain;  // flush: for the TBs no longer idempotent
  // chimera, dual_kernel: the preemption latency constraint, the drain estimate (oracle: exact
  // remaining time) and the DRAM bandwidth the switch cost assumes.
  double latency_constraint_ns = 15000;
  bool oracle = false;
  double dram_bytes_per_cycle = 0;
  std::vector<int32_t> dss_budgets;  // per process; -1: equal sharing
  // SPEC 6 partitions: each schedules its kernels over its SMs with its own Left-Over FCFS
  // (policy fcfs) or its own scheduling framework (the other policies); processes outside every
  // partition use the SMs no partition lists.
  struct Partition {
    std::vector<uint32_t> sms;  // empty: every SM
    double thread_limit = 1.0;  // share of an SM's threads the partition's TBs may hold together
  };
  std::vector<Partition> partitions;
  std::vector<int32_t> process_partition;  // by workload process index; -1: none
  // warped_slicer, mias (SPEC 5): the TB-mix controller's scheme, model and profiling window.
  SharingParams sharing;
};

// The platform parameters the scheduling-framework tables are sized from (one place for the
// driver, the report and the Verilog twins' parameters).
ExtensionParams extension_params(const SmParams& sm, const BlockSchedulerParams& p);

// One preemption of an SM, with what happened to each TB the SM reported (switch and flush
// always; drain only under flushing, for the TBs it kept).
struct PreemptedTb {
  uint32_t launch, tb;
  std::string kernel;
  TbTechnique technique;
  uint64_t wasted_instructions, wasted_cycles, bytes;
  // Chimera, dual-kernel: the latency the cost model predicted for its technique (-1: none) and
  // when it left the SM (drain: when it finished).
  double estimated_ns = -1, left_ns = -1;
  double estimated_overhead = 0;  // warp instructions of throughput its technique costs (cost model)
};
struct PreemptionRecord {
  uint32_t sm;
  double request_ns, done_ns;
  std::vector<PreemptedTb> tbs;
  // Chimera, dual-kernel: instructions every TB resident at the request had executed (what
  // flushing the whole SM would lose: SPEC 4 normalizes throughput overhead to it).
  uint64_t resident_instructions = 0;
  // Chimera, dual-kernel: the share of the SM's registers held by executing TBs (either kernel)
  // from the request until the last planned TB left; -1 when it left at once.
  double register_utilization = -1;
};

class BlockScheduler;

// The block scheduler's extension tables reached through links (extensions.<table>.impl,
// latency_cycles); null: the core alone, its access in the driver's own cycle.
struct BlockSchedulerLinks {
  std::unique_ptr<TableLink<SmstBus>> smst;
  std::unique_ptr<TableLink<KsrtBus>> ksrt;
  std::unique_ptr<TableLink<PtbqBus>> ptbq;
  std::unique_ptr<TableLink<CommandBuffersBus>> command_buffers;
  std::unique_ptr<TableLink<ActiveQueueBus>> active_queue;
  std::vector<std::unique_ptr<TableLink<VictimSetsBus>>> victim_sets;  // per SM (dual_kernel)
  std::vector<std::unique_ptr<TableLink<PreemptingStatusBus>>> preempting_status;  // per SM (dual_kernel)
  std::vector<std::unique_ptr<TableLink<AllocationPositionsBus>>> allocation_positions;  // per SM (dual_kernel)
};
template <class F>
void for_each_link(BlockSchedulerLinks& l, F f) {
  if (l.smst) f(*l.smst);
  if (l.ksrt) f(*l.ksrt);
  if (l.ptbq) f(*l.ptbq);
  if (l.command_buffers) f(*l.command_buffers);
  if (l.active_queue) f(*l.active_queue);
  for (auto& v : l.victim_sets) f(*v);
  for (auto& v : l.preempting_status) f(*v);
  for (auto& v : l.allocation_positions) f(*v);
}

// One scheduling domain of the SM-driver policies: the framework (KSRT, SMST, PTBQ, policy) over a
// set of SMs: the whole GPU, one compute partition's SMs, or the SMs no partition lists. The
// framework numbers its SMs 0..n-1; the domain translates them to the GPU's.
class DriverDomain : public DriverPort {
 public:
  DriverDomain(BlockScheduler& bs, std::vector<uint32_t> sms, std::unique_ptr<SmDriver> driver)
      : bs_(bs), sms_(std::move(sms)), driver_(std::move(driver)) {}
  SmDriver& driver() { return *driver_; }
  const SmDriver& driver() const { return *driver_; }

 private:
  bool dispatch(uint32_t sm, uint32_t launch_id, uint64_t tb, const PtbqEntry* restore) override;
  void save_context(uint32_t sm) override;
  void flush(uint32_t sm) override;
  void preemption_requested(uint32_t sm, Mechanism m) override;
  void preemption_completed(uint32_t sm) override;
  void decision_made() override;
  bool plan_preemption(uint32_t sm, uint32_t next_launch, uint32_t needed) override;
  std::pair<bool, double> preemption_cost(uint32_t sm) override;
  void dual_ended(uint32_t sm) override;

  BlockScheduler& bs_;
  std::vector<uint32_t> sms_;  // local index -> GPU SM
  std::unique_ptr<SmDriver> driver_;
};

class BlockScheduler : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<BlockScheduler> launch_in;  // from the command processor
  tlm_utils::simple_initiator_socket<BlockScheduler> host_out;  // kernel finished
  // Where its timed wake-ups are recorded (the SMs' run-ahead reads them); null: nowhere.
  TimedWakeups* wakeups = nullptr;
  tlm_utils::multi_passthrough_initiator_socket<BlockScheduler> sm_out;  // dispatch, per SM
  tlm_utils::multi_passthrough_target_socket<BlockScheduler> sm_in;      // TB finished, preempted

  BlockScheduler(sc_core::sc_module_name name, const BlockSchedulerParams& p, const SmParams& sm,
                 ClockDomain clock, const SchedulingSetup& setup, uint64_t total_tbs, bool show_progress);
  SC_HAS_PROCESS(BlockScheduler);

  uint64_t tbs_done() const { return tbs_done_; }
  uint64_t tbs_issued() const { return tbs_issued_; }
  size_t kernels_waiting() const;
  const std::vector<PreemptionRecord>& preemptions() const { return preemptions_; }
  PreemptionProcessor* preemption_processor() { return processor_.get(); }  // chimera, dual_kernel
  // The scheduling framework of an unpartitioned run (null under fcfs or with partitions).
  SmDriver* driver() { return domains_.size() == 1 ? &domains_[0]->driver() : nullptr; }
  uint64_t policy_decisions() const;
  // Most kernels resident on one SM at once (dual-kernel: never above two).
  uint32_t peak_kernels_per_sm() const { return peak_kernels_; }
  const SharingController* sharing() const { return sharing_.get(); }  // warped_slicer, mias
  // Every update of a linked table's core is made on its link too: the response is checked
  // against the core, and the access's cycles beyond the first (which the driver's own step
  // already spends: the model's timing with one-cycle tables) stall the driver.
  void link_tables(BlockSchedulerLinks links);
  BlockSchedulerLinks& links() { return links_; }

 private:
  void launch_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void sm_b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void run();
  void kernel_finished(KernelLaunch* k, const sc_core::sc_time& end);
  bool try_dispatch(uint32_t sm, uint32_t launch, uint32_t tb, const PtbqEntry* restore);
  // What a driver domain asks of the GPU (GPU SM numbers).
  friend class DriverDomain;
  void save_context(uint32_t sm);
  void flush(uint32_t sm);
  void preemption_requested(uint32_t sm);
  void preemption_completed(uint32_t sm);
  void preemption_completed_now(uint32_t sm, double at_ns = -1);
  void decision_made(uint32_t domain_sms);
  bool plan_preemption(uint32_t sm, uint32_t next_launch, uint32_t needed);
  std::pair<bool, double> preemption_cost(uint32_t sm);
  void query_status(uint32_t sm, SmStatusReport& out);
  // One control command to an SM, at the driver's current offset within the round.
  void command_sm(uint32_t sm, CtrlCommand c, const void* info = nullptr, void* reply = nullptr);
  // Chimera, dual-kernel: a planned TB left the SM (reported, or a drained one finished); the
  // preemption's record is complete when the last one has.
  void planned_tb_left(uint32_t sm, uint32_t launch, uint32_t tb, PreemptedTb rec, double at_ns);
  void resident_changed(uint32_t sm, uint32_t launch, int delta);
  DriverDomain& domain_of(uint32_t sm) { return *domains_[sm_domain_[sm]]; }
  // warped_slicer, mias: restart the controller when the kernels issued side by side changed;
  // end a profiling window that is due. Both load every SM's TB-mix register.
  void update_sharing();
  void end_profiling_window();
  void broadcast_tb_mix();
  void load_tb_mix(bool window_starts);  // broadcast, then start a profiling window if one starts
  std::vector<SmCounterReading> read_counters();

  // A table access of `cycles` at the driver's current time.
  void charge_access(uint32_t cycles);
  uint64_t local_time_ps() const;
  // One access over a link, checked against the core's `expected`; `what` describes the update for
  // a mismatch message, a callable formatted only then (see check_response).
  template <class Bus, class Describe>
  void access(TableLink<Bus>& link, const Bus& request, const Bus& expected, const Describe& what);

  BlockSchedulerParams p_;
  const SmParams& sm_;
  ClockDomain clock_;
  SchedulingSetup setup_;
  // Left-Over FCFS per partition (the last: processes outside every partition).
  std::vector<LeftOverFcfs> left_over_;
  std::vector<uint32_t> thread_cap_;                  // per partition: threads per SM (max_threads: none)
  std::vector<std::vector<uint32_t>> part_threads_;   // [partition][sm] resident threads
  uint32_t partition_of(const KernelLaunch& k) const;
  void make_domains(const std::vector<uint32_t>& rest);
  // SM-driver policies: one domain per partition (the same index), the last for the other SMs.
  std::vector<std::unique_ptr<DriverDomain>> domains_;
  std::vector<uint32_t> sm_domain_, sm_local_;  // per GPU SM: its domain and index there
  std::multimap<sc_core::sc_time, KernelLaunch*> arrivals_;
  std::unordered_map<uint32_t, KernelLaunch*> active_;  // launch id -> launch
  sc_core::sc_event wake_;
  bool dirty_ = false;
  sc_core::sc_time offset_;  // local time of the driver within the current scheduling round
  bool in_round_ = false;    // run() is in a round: offset_ is the driver's local time
  sc_core::sc_time owed_;    // table access time charged outside a round (a report from an SM): the next round starts with it
  // Left-Over without intra-SM sharing: after a round that kept the driver busy, the round at
  // the end of that busy window only moves the round-robin starts if nothing was reported or
  // launched meanwhile (every SM refuses again). It is not woken for but owed, and applied first
  // when the scheduler next wakes; a report or launch during the window cancels it (that round is
  // a full one, at the window's end as before). Saves a wake-up and a time step per dispatch.
  sc_core::sc_time busy_until_;  // the end of the window whose round is owed (or was)
  bool idle_owed_ = false;
  bool owes_idle_rounds() const { return domains_.empty() && !sharing_; }
  // Wakes the scheduler for a report or launch at now + delay, not before its busy window ends.
  void wake_after_busy(const sc_core::sc_time& delay);
  // Every timed wake-up goes through these, which record it in `wakeups`: wake_ notified after
  // `delay`; run() triggered after `delay` (or by wake_, when that comes first).
  void notify_wake(const sc_core::sc_time& delay) {
    if (wakeups) wakeups->after(delay);
    wake_.notify(delay);
  }
  void trigger_after(const sc_core::sc_time& delay) {
    if (wakeups) wakeups->after(delay);
    next_trigger(delay);
  }
  void trigger_after_or_wake(const sc_core::sc_time& delay) {
    if (wakeups) wakeups->after(delay);
    next_trigger(delay, wake_);
  }
  BlockSchedulerLinks links_;
  static constexpr uint32_t kNone = ~0u;
  Refusals refused_;  // per SM: the launch it last refused, until room changes on it
  std::vector<double> preempt_started_;
  std::vector<PreemptionRecord> preemptions_;
  std::vector<std::vector<PreemptedTb>> preempted_tbs_;  // per SM: of the preemption in progress
  std::unique_ptr<PreemptionProcessor> processor_;       // chimera, dual_kernel
  std::vector<std::vector<PlannedTb>> planned_;          // per SM: planned TBs not yet left
  std::vector<SmStatusReport> window_start_;             // per SM: the status at the plan
  std::vector<uint64_t> resident_instructions_;          // per SM: at the preemption in progress
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> sm_kernels_;  // per SM: (launch, resident TBs)
  uint32_t peak_kernels_ = 0;
  std::unique_ptr<SharingController> sharing_;
  std::vector<uint32_t> sharing_set_;               // launch ids the controller was started with
  std::vector<SmCounterReading> window_counters_;   // at the profiling window's start
  sc_core::sc_time window_end_;
  uint64_t tbs_done_ = 0, tbs_issued_ = 0, total_tbs_;
  ProgressLine progress_;
};

}  // namespace mpgpu
