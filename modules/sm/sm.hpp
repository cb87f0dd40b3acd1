#pragma once
// The SM at TB level (DESIGN, Workloads: fidelity 1): admits TBs against its resources, runs each
// for its sampled duration, releases resources and reports completion to the block scheduler.
// Its steps are run by the SMs' calendar (sm_calendar.hpp: one process for every SM, SMs due at
// the same time in SM order); it sleeps until the next TB completion, issue cycle or dispatch.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <optional>
#include <queue>
#include <vector>

#include "common/clock.hpp"
#include "common/payload.hpp"
#include "common/tb_technique.hpp"
#include "common/timeline.hpp"
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/sharing_counters.hpp"
#include "extensions/ptbq.hpp"
#include "extensions/running_tb_status_pins.hpp"
#include "sm/pipeline.hpp"
#include "sm/resident_queue.hpp"
#include "sm/sm_calendar.hpp"
#include "sm/sm_resources.hpp"
#include "sm/tb_mix_register.hpp"
#include "workload/kernel.hpp"

namespace mpgpu {

// A dispatch request: which TB of which launch.
struct TbDispatch {
  KernelLaunch* launch;
  uint32_t tb;
  TbResources resources;
  uint32_t carve_out;
  const PtbqEntry* restore = nullptr;  // a preempted TB coming back: restore, then run the rest
  // Dual-kernel preemption (SPEC 4): the preempting kernel's TB goes exactly at this
  // predetermined position (register and shared-memory offsets) or not at all.
  std::optional<AllocationPosition> position;
};

// What the block scheduler's preemption processor reads of an SM (SPEC 4): each resident TB's
// running-TB status entry and allocation, and the SM's capacities.
struct SmStatusReport {
  struct Tb {
    KernelLaunch* launch;
    uint32_t tb;
    TbAllocation alloc;
    RunningTbStatusEntry status;
    std::optional<uint64_t> remaining_cycles;  // exact, TB level only: what the oracle knows
  };
  uint64_t cycle = 0;
  uint32_t registers = 0, shared_mem = 0;  // register file; current shared-memory configuration
  std::vector<Tb> tbs;
  // Registers x ns held by executing TBs since the start (SPEC 4's resource utilization during
  // a preemption is its growth over the preemption's window), and the report's time.
  double executing_register_ns = 0, at_ns = 0;
  // SPEC 5's per-SM counters at `cycle`: warp instructions, L1 misses, memory stall cycles (M)
  // and outstanding misses summed over them (A).
  SmCounterReading counters;
  TbMixRegister tb_mix;  // as the SM holds it
};

// A per-TB preemption: the TBs (by slot) to preempt and how; the SM's other TBs keep running.
using PreemptPlan = std::vector<std::pair<uint32_t, TbTechnique>>;


// A TB preempted by a context save or a flush, as reported to the block scheduler. A flushed TB
// comes back to the PTBQ with remaining_cycles 0: it restarts from its beginning. A drained one
// is only reported (it stays and finishes).
struct SavedTbRecord {
  KernelLaunch* launch;
  PtbqEntry entry;
  TbTechnique technique = TbTechnique::switch_out;
  uint64_t wasted_instructions = 0;  // flush: warp instructions it had executed (lost)
  uint64_t wasted_cycles = 0;        // flush: cycles it had run (lost)
  uint64_t bytes = 0;                // switch: context (and replay state) bytes saved
};

// A TB that finished, as reported to the block scheduler.
struct TbCompletion {
  KernelLaunch* launch;
  uint32_t tb;
  uint32_t sm;
  uint32_t slot;
  sc_core::sc_time start, end;
  uint64_t instructions = 0;  // warp instructions the TB executed
  bool whole = true;          // ran start to end in one residency (never preempted)
};

// A kernel aborted by an access with no valid mapping (outside every allocation) or a fault the
// driver could not serve (device memory exhausted).
struct KernelAbort {
  const KernelLaunch* launch = nullptr;
  uint32_t sm = 0, tb = 0, warp = 0;
  uint64_t vaddr = 0;
  std::string reason;
  double at_ns = 0;
};

struct SmStats {
  uint64_t tbs_done = 0;
  uint32_t peak_resident = 0;  // most TBs resident at once
  uint64_t bytes_saved = 0, bytes_restored = 0;
  uint64_t tbs_saved = 0, tbs_restored = 0;
  sc_core::sc_time busy;  // time with at least one resident TB (or one switched out on a fault)
  // Block switching on fault (SPEC 3): TBs switched out and back in, their context traffic.
  uint64_t tbs_switched_out = 0, tbs_switched_in = 0;
  uint64_t switch_bytes_saved = 0, switch_bytes_restored = 0;
  uint32_t peak_switched_out = 0;
  // Flushing (SPEC 4): TBs dropped while idempotent, restarted later, and the work they lost.
  uint64_t tbs_flushed = 0, tbs_restarted = 0, flushed_instructions = 0, flushed_cycles = 0;
};

// Bytes of one TB's context: its registers (as allocated), shared memory and TB state.
uint32_t tb_context_bytes(const SmParams& p, const KernelDesc& k);

// Where a TB's context is saved: each launch has its own preallocated area.
uint64_t save_address(const KernelLaunch& l, uint64_t save_pointer);

// Kernels with a warp program or a trace run instruction by instruction on the SM's pipeline
// (temporally decoupled by the platform's quantum); TB-level kernels run for a sampled time.
class Sm : public sc_core::sc_module, private MemoryPort, private SmCalendar::Client {
 public:
  tlm_utils::simple_target_socket<Sm> ctrl_in;      // dispatch / status from the block scheduler
  tlm_utils::simple_initiator_socket<Sm> ctrl_out;  // TB finished, to the block scheduler
  tlm_utils::simple_initiator_socket<Sm> mem_out;   // global memory, to the crossbar
  tlm_utils::simple_initiator_socket<Sm> walk_out;  // L1 TLB misses, to the fill unit

  Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& p, ClockDomain clock,
     Timeline* timeline, SmCalendar& calendar, uint32_t quantum_cycles = 1);

  uint32_t id() const { return id_; }
  const SmStats& stats() const { return stats_; }
  const SmResources& resources() const { return res_; }
  const SmPipeline& pipeline() const { return pipe_; }
  // The replay queue and operand log over links (extensions.<table>), clocked by the SM's clock.
  void share_decoded(std::shared_ptr<DecodedPrograms> d) { pipe_.share_decoded(std::move(d)); }
  void link_tables(SmTableLinks l) { pipe_.link_tables(std::move(l), static_cast<uint64_t>(clock_.period_ps() + 0.5)); }
  SmTableLinks& table_links() { return pipe_.links(); }
  // The running-TB status over a link (extensions.running_tb_status): every update is made on it
  // too; the block scheduler's status queries read each resident TB's entry on it.
  void link_status(std::unique_ptr<TableLink<RunningTbStatusBus>> link);
  TableLink<RunningTbStatusBus>* status_link() { return status_link_.get(); }
  void count_outstanding_misses() { pipe_.count_outstanding(); }  // MIAS's A counter (SPEC 5)
  const TbMixRegister& tb_mix() const { return tb_mix_; }
  // A run ending at a measuring window: the TBs still running go on the timeline up to `at`.
  void timeline_running(const sc_core::sc_time& at) const;
  // Called when an access of a kernel cannot be translated; the platform stops the run.
  std::function<void(const KernelAbort&)> on_abort;

 private:
  struct Resident {
    KernelLaunch* launch;
    uint32_t tb;
    TbAllocation alloc;
    sc_core::sc_time start, end;
    sc_core::sc_time run_start;  // after any restore
  };
  // A warp-level TB in the pipeline, by TB slot.
  struct WarpTb {
    KernelLaunch* launch = nullptr;
    uint32_t tb = 0;
    TbAllocation alloc;
    sc_core::sc_time start, end;
    bool finished = false;  // the pipeline is done with it; reported at `end`
    sc_core::sc_time run_start;  // after any restore
  };
  gpu_mem_ext request_ext(const MemAccess& a) const;  // the request's extension, from the access
  uint64_t access(const MemAccess& a) override;
  Translation translate(const MemAccess& a) override;
  bool idle() const { return resident_.empty() && warp_tbs_live_ == 0 && parked_.empty(); }
  // Runs the pipeline up to one quantum ahead of simulated time; returns when to wake next
  // (none: only a dispatch or a context save can change anything).
  // Inlined into activate(), its only caller: at quantum 1 it runs once per SM and cycle.
  [[gnu::always_inline]] inline std::optional<sc_core::sc_time> step_pipeline(const sc_core::sc_time& now);
  // After a step or a run-ahead: takes the pipeline's finished TBs for their reports and returns
  // its next wake-up, the earlier of its next issue cycle and the next report (none: nothing timed).
  [[gnu::always_inline]] inline std::optional<sc_core::sc_time> plan_pipeline(const sc_core::sc_time& now);
  void report_warp_tbs(const sc_core::sc_time& now);
  void ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void activate() override;  // one step, from the calendar
  // Run-ahead (SmCalendar::enable_run_ahead): up to the SM's next report (a finished TB, a
  // TB-level end) and its pipeline's bound; none while a save or block switching is pending.
  uint64_t private_until(uint64_t enough) override;
  void run_ahead(const sc_core::sc_time& first, uint64_t until, CycleMarks& visited) override;
  void wake(const sc_core::sc_time& delay) { calendar_.wake(calendar_index_, delay); }
  void finish(const Resident& r, uint64_t instructions, bool whole);  // reports the completion
  uint32_t context_bytes(const KernelLaunch& l) const;
  // A warp-level TB starts in `alloc` at `start`; one coming back (`saved_pointer`: its save-area
  // slot) first runs the trap routine and gets its context and replay state back.
  void start_warp_tb(KernelLaunch* launch, uint32_t tb, const TbAllocation& alloc, const sc_core::sc_time& start,
                     const uint64_t* saved_pointer);
  // --- Block switching on fault (block_switch.cpp): the SM's local TB scheduler ---
  // A TB switched out while its faults are handled: its resources are held until its context has
  // left the SM (`room_free`); it may come back once the context is in memory (`saved`) and its
  // faults are handled (`resolved`), ahead of new TBs.
  struct ParkedTb {
    KernelLaunch* launch;
    uint32_t tb;
    TbAllocation alloc;
    uint64_t pointer;
    sc_core::sc_time saved, resolved, room_free;
    bool holding = true;  // alloc not yet released
    bool claimed = false;  // resolved, and a TB switched out for it: that room is its
    sc_core::sc_time ready() const { return std::max(saved, resolved); }
  };
  // Switches out the TBs whose warps are all blocked on faults, while the switched-out ones stay
  // within the limit and something can use the room (a TB back from its faults, or a new TB).
  void switch_out_blocked(const sc_core::sc_time& now);
  void switch_out(uint32_t slot, uint64_t handled_cycle);
  // Frees the rooms of saved TBs and switches resolved ones back in; tells the block scheduler
  // of room it can fill.
  void run_local_scheduler(const sc_core::sc_time& now);
  // The next time the local scheduler or a fault becoming known needs the SM (none: no timer).
  std::optional<sc_core::sc_time> next_local_event(const sc_core::sc_time& now) const;
  bool parked_due(const sc_core::sc_time& now) const;  // a resolved TB waits for room
  uint32_t switched_out_entries() const;  // switched-out TBs not about to come back (the limit's count)
  bool block_scheduler_has_tb();
  void notify_room();
  // Moves `bytes` of context between the SM and its save area, one line per cycle from
  // `issue_at` (advanced past the last line); returns when the last line is done.
  sc_core::sc_time move_context(uint64_t addr, uint64_t bytes, sc_core::sc_time& issue_at, bool write);
  // Moves one TB's context to its save area from `issue_at` and records it for the block
  // scheduler (freed when the save completes); returns when its last line is done.
  sc_core::sc_time save_tb(KernelLaunch* launch, uint32_t tb, const TbAllocation& alloc, uint64_t remaining,
                           sc_core::sc_time& issue_at);
  // Writes one TB's context to its slot of the launch's save area from `issue_at`; returns when
  // its last line is done and sets `pointer`.
  sc_core::sc_time write_context(const KernelLaunch& l, uint32_t tb, uint64_t& pointer, sc_core::sc_time& issue_at);
  // A TB's context back from its save area, lines from `issue_at` (advanced past the last line);
  // returns when it is back.
  sc_core::sc_time restore_context(const KernelLaunch& l, uint64_t pointer, sc_core::sc_time& issue_at);
  // The replay state of a faulted TB's warps (SPEC 3: replay-queue entries, operand-log values)
  // saved or restored after its context; returns when the last line is written or back.
  sc_core::sc_time move_replay_state(const KernelLaunch& l, uint32_t tb, const std::vector<WarpPosition>& warps,
                                     sc_core::sc_time& issue_at, bool write);
  void start_save(sc_core::sc_time delay);
  // Context switch of one TB from `issue_at`: a warp-level TB slot whose warps were evicted, or a
  // TB-level TB frozen at `now` (its remaining run goes with it); returns when its context is out.
  sc_core::sc_time save_warp_tb(uint32_t slot, std::vector<WarpPosition>&& warps, sc_core::sc_time& issue_at);
  sc_core::sc_time save_resident(const Resident& r, const sc_core::sc_time& now, sc_core::sc_time& issue_at);
  // Ends a preemption: TBs block switching parked go too; the SM reports them all at `done` (or
  // when the last parked context is out).
  void report_preemption_at(sc_core::sc_time done, bool with_parked = true);
  // Flushing (SPEC 4, relaxed idempotence): drops every resident TB the running-TB status still
  // marks idempotent (warp level: once its in-flight instructions have drained; TB level: at
  // once); the others are switched out or drained (`fallback`). One report when it is done.
  void start_flush(sc_core::sc_time delay, TbTechnique fallback);
  // Carries out a per-TB plan (Chimera, dual-kernel); `whole_sm`: TBs block switching parked go
  // too. One report when every switched or flushed TB has left.
  void execute_plan(sc_core::sc_time delay, const PreemptPlan& plan, bool whole_sm);
  // Fills `out`; returns the cycles the running-TB status reads took beyond one each (a linked table).
  uint64_t report_status(SmStatusReport& out, sc_core::sc_time delay);
  // Reads slot's running-TB status entry over its link (compared with the core); returns the
  // cycles beyond one (0 without a link).
  uint64_t read_status(uint32_t slot);
  // One access of the running-TB status link, checked against the core; returns its cycles.
  uint32_t status_access(unsigned op, uint32_t slot, uint64_t value, bool idempotent);
  std::vector<Resident> resident_tbs() const;  // the TB-level TBs, earliest end first
  // A warp-level TB slot's progress: what it ran here plus what it brought back from a save.
  KernelLaunch::Progress progress_of(uint32_t slot) const;
  // Brings the running-TB status entry of a warp-level TB slot up to date from the pipeline.
  void refresh_status(uint32_t slot);
  // A TB dropped by a flush: its room goes with the report; the work it had done is counted lost.
  void record_flush(KernelLaunch* launch, uint32_t tb, const TbAllocation& alloc, uint64_t instructions,
                    uint64_t cycles);
  // The same for a TB-level TB at `now`: executed part of its sampled run against the part
  // before its first non-idempotent instruction (the kernel's idempotent fraction).
  void refresh_status(const Resident& r, const sc_core::sc_time& now, uint64_t& executed_cycles);
  void finish_save();

  uint32_t id_;
  const SmParams& p_;
  ClockDomain clock_;
  Timeline* timeline_;
  SmCalendar& calendar_;
  // What every wake-up reads (every cycle at quantum 1), kept together in a few cache lines.
  uint32_t calendar_index_ = 0;
  uint32_t quantum_cycles_;
  uint32_t warp_tbs_live_ = 0;
  uint32_t warp_tbs_finished_ = 0;  // of them, done in the pipeline and not yet reported
  // The earliest report time (end) among those, while there are any: a wake-up before it has
  // nothing to report and no TB table to scan (a TB's end waits for its last stores' acknowledgements,
  // and at quantum 1 the SM wakes every cycle until then).
  sc_core::sc_time next_report_ = sc_core::SC_ZERO_TIME;
  bool save_pending_ = false;
  const bool block_switching_ = p_.block_switching.enabled;  // here, not on the parameters' lines
  sc_core::sc_time save_done_ = sc_core::SC_ZERO_TIME;
  // The pipeline's planned wake-up, as a time and as the cycle it was converted from: waking
  // then (every cycle at quantum 1) needs no time-to-cycle conversion (to_cycles_ceil(cycles(c))
  // is c; timing_test checks it).
  sc_core::sc_time planned_time_;
  uint64_t planned_cycle_ = ~uint64_t{0};
  ResidentQueue<Resident> resident_;  // earliest end first
  std::vector<ParkedTb> parked_;     // switched out on a fault, in switch-out order
  SmResources res_;
  SmStats stats_;
  sc_core::sc_time busy_since_;
  // Register-time of executing TBs: a TB holds registers from its dispatch but executes from its
  // run start (after any restore) until it finishes or is preempted. Stopped TBs' share:
  double stopped_register_ns_ = 0;
  void stopped_executing(const TbAllocation& a, const sc_core::sc_time& from, const sc_core::sc_time& to);
  // Up to `t`; `resident`: resident_tbs(), which the caller has already.
  double executing_register_ns(const sc_core::sc_time& t, const std::vector<Resident>& resident) const;
  // A context save in progress: TBs already frozen, resources freed when it completes.
  // (A TB block switching had saved already holds no allocation.)
  std::vector<std::pair<SavedTbRecord, std::optional<TbAllocation>>> saving_;
  MemPayload mem_;   // memory requests
  MemPayload walk_;  // page walks
  std::vector<WarpTb> warp_tbs_;
  std::vector<Resident> done_;  // TB-level TBs ending now (run's scratch)
  sc_core::sc_time ctx_port_free_;   // the SM's context-save port: one line per cycle
  uint64_t fault_known_at_ = ~uint64_t{0};  // pipeline cycle a taken fault becomes known
  TbMixRegister tb_mix_;  // SPEC 5: the per-kernel TB limits broadcast by the block scheduler
  uint32_t resident_tbs_of(uint32_t launch) const;  // warp-level TBs holding room here
  // One TB's span on its slot's track (running: still resident when the run ended). The check
  // inline: a TB-level run without a timeline calls it for every TB.
  void timeline_tb(const KernelLaunch& l, uint32_t tb, uint32_t slot, const sc_core::sc_time& from,
                   const sc_core::sc_time& to, bool running) const {
    if (timeline_ && timeline_->enabled()) timeline_span(l, tb, slot, from, to, running);
  }
  void timeline_span(const KernelLaunch& l, uint32_t tb, uint32_t slot, const sc_core::sc_time& from,
                     const sc_core::sc_time& to, bool running) const;
  bool refused_for_parked_ = false;  // a dispatch was refused to keep room for a resolved TB
  // SPEC 4: per TB slot, executed instructions, issue cycle and flush (idempotent so far) bit:
  // the table flushing reads (and `mpgpu report` sizes).
  RunningTbStatus tb_status_;
  std::unique_ptr<TableLink<RunningTbStatusBus>> status_link_;
  std::vector<KernelLaunch::Progress> carried_;  // per TB slot: progress before a restore
  // Last: the warp-level pipeline is large, and before the fields above its size moved them
  // across cache lines (a TB-level run's speed changed by 4-5% with 8 bytes more in it).
  SmPipeline pipe_;
};

}  // namespace mpgpu
