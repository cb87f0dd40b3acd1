#pragma once
// The SM's warp-level pipeline (SPEC 1) as a functional core in SM core cycles: warp slots split
// over the warp schedulers (sub-cores), fetch with the disable rules for control and memory
// instructions, a scoreboard with early source release, per-scheduler issue width, functional
// units with latency and initiation interval, out-of-order commit, a barrier unit, and the ld/st
// unit with coalescer, L1D and shared memory. Event driven: because the loosely timed memory
// answers with its completion time, every warp knows the cycle its next instruction can issue,
// so stretches where nothing can issue are skipped, never stepped.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <memory>
#include <vector>

#include "common/payload.hpp"
#include "extensions/replay_queue_pins.hpp"
#include "extensions/table_link.hpp"
#include "sm/decoded_programs.hpp"
#include "sm/l1d_cache.hpp"
#include "sm/pipeline_stats.hpp"
#include "sm/run_ahead.hpp"
#include "sm/sm_params.hpp"
#include "sm/warp_cursor.hpp"
#include "sm/warp_scheduler.hpp"
#include "workload/kernel.hpp"

namespace mpgpu {

// One memory request of the ld/st unit (a coalesced line, or a part of it).
struct MemAccess {
  uint64_t addr;
  uint32_t bytes;
  AccessKind kind;
  uint64_t cycle;  // leaves the SM
  const KernelLaunch* launch;
  uint32_t tb, warp;
  uint32_t ops = 1;  // atomics: serialized operations at the L2 (most lanes on one word)
};

// An L1 TLB miss answered by the fill unit.
// `fault`: the page was not resident; the handler made it so, and `ready` is when the translation
// is back after the fault was handled; `fault_at` is when the SM learnt of the fault.
struct Translation {
  bool ok = false;     // false: no valid mapping (the SM aborts the kernel)
  uint64_t frame = 0;  // physical page number
  uint64_t ready = 0;  // cycle the translation is back at the SM
  bool fault = false;
  uint64_t fault_at = 0;
};

// The SM's port to the memory hierarchy: returns the cycle the reply is back at the SM
// (for stores: the cycle the acknowledgement is back). translate(): an L1 TLB miss for the
// virtual address a.addr leaving at a.cycle.
class MemoryPort {
 public:
  virtual ~MemoryPort() = default;
  virtual uint64_t access(const MemAccess& a) = 0;
  virtual Translation translate(const MemAccess& a) = 0;
};

// A TB whose warps all exited and whose loads all returned.
struct FinishedTb {
  uint32_t slot;
  uint64_t cycle;
};

// The SM's replay queue and operand log as its pipeline reaches them (extensions.<table>,
// extensions/table_link.hpp). Null: the core alone, its access in the issue cycle.
struct SmTableLinks {
  std::unique_ptr<TableLink<ReplayQueueBus>> replay_queue;
  std::unique_ptr<TableLink<OperandLogBus>> operand_log;
};
template <class F>
void for_each_link(SmTableLinks& l, F f) {
  if (l.replay_queue) f(*l.replay_queue);
  if (l.operand_log) f(*l.operand_log);
}

class SmPipeline {
 public:
  static constexpr uint64_t kNever = ~uint64_t{0};
  static constexpr uint32_t kNoWarp = warp_sched_detail::kNone;
  static constexpr uint64_t kAwaitingReplay = kNever >> 1;  // a register a squashed instruction will write
  SmPipeline(const SmParams& p, MemoryPort& port);

  // Starts TB `tb` of `launch` in TB slot `slot` at `cycle`; false when no warp slots are free
  // (cannot happen when the SM admitted it by thread count).
  bool launch_tb(uint32_t slot, const KernelLaunch* launch, uint32_t tb, uint64_t cycle,
                 const std::vector<WarpPosition>* resume = nullptr);
  // Context switch: stops TB slot `slot` now (its warps issue nothing more) and returns where
  // each warp stopped; `drained` becomes the cycle its in-flight instructions have completed.
  std::vector<WarpPosition> evict_tb(uint32_t slot, uint64_t& drained);
  // What the running-TB status table learns from TB slot `slot` (SPEC 4): warp instructions
  // issued since it started here, and whether it issued an atomic or a global store.
  uint64_t tb_issued(uint32_t slot) const;
  bool tb_overwrote(uint32_t slot) const { return tbs_.at(slot).overwrote; }
  // Simulates from the current cycle up to (not including) `limit`; returns early at a cycle in
  // which a TB finished, so the caller can report it. Returns the cycle reached. `visited`: marks
  // every cycle it simulates (skipped ones not), which are the cycles a quantum-1 SM would wake at.
  uint64_t run_until(uint64_t limit, CycleMarks* visited = nullptr);
  std::vector<FinishedTb>& finished() { return finished_; }
  bool busy() const { return live_warps_ > 0; }
  uint64_t cycle() const { return cycle_; }
  // Moves the pipeline to cycle `c` without issuing (nothing could issue before it: the SM slept
  // until its next wake-up or was woken by a dispatch); the skipped cycles count as stalls.
  void advance_to(uint64_t c) {  // inline, as next_issue_cycle(): once per SM wake-up
    if (c <= cycle_) return;
    if (live_warps_ == 0) return skip_to(c);
    account_memory_stall(c - cycle_);  // reads the outstanding misses from the current cycle
    cycle_ = c;
    for (SchedulerSlot& sl : slots_) flush_stalls(sl);
  }
  // The earliest cycle a warp can issue, known while all schedulers wait (kNever: none can until
  // a TB arrives or a barrier opens); an SM sleeps until then.
  uint64_t next_issue_cycle() const {
    uint64_t next = kNever;
    for (const SchedulerSlot& sl : slots_) next = std::min(next, sl.st.wake);
    return next;
  }

  // Run-ahead (sm/run_ahead.hpp): a lower bound on the first cycle from cycle() at which a warp
  // may issue a memory instruction or its last one; kNever with no live warp. 0 when it cannot
  // tell (a trace, the instruction cache, faulted warps, linked tables); returns as soon as the
  // bound is below `enough`.
  uint64_t private_until(uint64_t enough) const;
  // While set, a memory instruction or an exit is a modelling error: run-ahead promised none.
  void set_running_ahead(bool on) { running_ahead_ = on; }

  // Block switching (SPEC 3): the TB slots whose live warps are each halted on a known fault, at a
  // barrier, or waiting for table entries only replays free (at least one halted), with the cycle
  // the last of their faults is handled; `next_known` becomes the earliest later cycle a fault
  // already taken becomes known (kNever: none), when the answer can change without an issue.
  struct FaultBlockedTb {
    uint32_t slot;
    uint64_t handled;
  };
  std::vector<FaultBlockedTb> fault_blocked_tbs(uint64_t& next_known);
  // Warps holding squashed instructions: zero, and no TB can be blocked on a fault.
  uint32_t faulted_warps() const { return faulted_warps_; }

  const PipelineStats& stats() const { return stats_; }
  std::map<uint32_t, PipelineStats> kernel_stats() const;  // by launch id
  const L1dCache& l1d() const { return l1d_; }
  const L1dCache& icache() const { return icache_; }
  const Tlb& l1_tlb() const { return l1_tlb_; }
  const ReplayQueue& replay_queue() const { return replay_queue_; }
  const OperandLog& operand_log() const { return operand_log_; }
  // Every update of the replay queue and operand log goes over its link from now on (lock-step
  // checked against the core); an issue waits for the table's response: the ld/st unit takes no
  // other instruction until both tables have answered. `period_ps`: the SM clock (VCD times).
  void link_tables(SmTableLinks links, uint64_t period_ps);
  // Decodes warp programs into `shared` (one table for every SM of a GPU) from now on.
  void share_decoded(std::shared_ptr<DecodedPrograms> shared) { decoded_ = std::move(shared); }
  SmTableLinks& links() { return links_; }

  // MIAS's per-SM counters beyond the pipeline statistics (SPEC 5): M, cycles in which no
  // scheduler issued and at least one waited on memory (a load's result or the ld/st unit); A,
  // the outstanding L1 misses summed over those cycles (kept once count_outstanding() is called).
  struct SharingCounters {
    uint64_t mem_stall_cycles = 0, outstanding = 0;
  };
  const SharingCounters& sharing_counters() const { return sharing_; }
  void count_outstanding() { l1d_.track_outstanding(); }

 private:
  // A register's scoreboard entry in one word, so that a warp's scoreboard spans a line or two
  // (three times that with a separate flag and release time): with hundreds of SMs each issue
  // reads it cold. The word is ready << 1 | from_memory (cycles and kAwaitingReplay are below
  // 2^63), so words compare as their ready cycles do against a cycle's key(c) (c << 1 | 1).
  struct Reg {
    uint64_t word = 0;
    static Reg of(uint64_t ready, bool from_memory) { return {ready << 1 | uint64_t{from_memory}}; }
    static uint64_t key(uint64_t cycle) { return cycle << 1 | 1; }  // above every word of a cycle <= it
    bool from_memory() const { return word & 1; }
  };
  static_assert(sizeof(Reg) == 8, "one word per register");
  static constexpr uint32_t kInlineRegs = 16;  // two cache lines
  // A faulted memory instruction squashed under a preemptible organization (SPEC 3): replayed
  // once its fault is handled, before anything else of its warp. `at`: where it is in the code,
  // which is what a context switch saves (the replay queue holds PCs).
  struct PendingReplay {
    Decoded d;
    WarpPosition at;
    uint64_t seq = 0;
    int lanes = 0;
    uint64_t addrs[32];
  };
  // What the ld/st unit made of one memory instruction.
  struct MemIssue {
    uint64_t done = 0, busy = 1;
    uint64_t last_check = 0;  // its last coalesced request passed the TLB (or hit the virtual L1)
    bool fault = false;
    uint64_t fault_at = 0, handled = 0;  // the fault is known / handled (translation resident)
  };
  // Laid out by use: what every issue reads or writes in the first two cache lines (the cursor's
  // hot fields start the second), the rest after. At quantum 1 the other SMs evict an SM's warps
  // between two of its cycles, and every line an issue touches is then a miss.
  struct alignas(64) Warp {
    // Not copied: reg_file may point into the warp itself (inline_regs); warps_ is sized once.
    Warp() = default;
    Warp(const Warp&) = delete;
    Warp& operator=(const Warp&) = delete;
    uint64_t ready = 0;        // ... and its operands are free (scoreboard)
    uint64_t fetch_ready = 0;  // the next instruction is fetched and decoded
    uint64_t last_write = 0;   // commit of its last instruction, or acknowledgement of its last store
    PipelineStats* kstats = nullptr;  // its kernel's statistics (every memory instruction counts there)
    Reg* reg_file = nullptr;   // inline_regs or regs.data(), set at launch
    uint32_t nregs = 0;        // registers, the length of reg_file
    uint32_t scheduler = 0;
    bool live = false;
    bool at_barrier = false;
    bool waits_memory = false; // `ready` is set by a load's destination
    bool scheduled = false;    // in its warp scheduler (has a position): between add_warp and remove_warp
    uint32_t tb_slot = 0;
    // Issues counted here and folded into its TB slot and kernel statistics when it leaves
    // (exit, eviction) or they are read (tb_issued, kernel_stats): their lines stay cold.
    uint64_t issued_here = 0, threads_here = 0, issue_cycles_here = 0;
    WarpCursor code;
    // The register scoreboard of a warp of up to kInlineRegs registers (most warp programs): the
    // lines after the cursor's, at an address known without reading the warp (a wake-up's
    // prefetch need not wait for reg_file), and no allocation per launch. More: `regs`.
    alignas(64) Reg inline_regs[kInlineRegs];
    // Faults (SPEC 3): squashed instructions awaiting replay, program order; from `halt_from` (the
    // fault is known) the warp issues nothing until `resume` (handled, refetched), then replays.
    // Read through has_replays(), which looks at the SM's count of faulted warps first.
    std::vector<PendingReplay> replays;
    uint64_t halt_from = kNever, resume = 0;
    // The hazard window of its latest faulted instruction (SPEC 3's two hazards); read only while
    // the SM's watch_open_until_ says some warp's may be open.
    uint64_t watch_until = 0;
    std::vector<Reg> regs;  // the scoreboard of a warp of more than kInlineRegs registers
    // Per register: a younger write may land from here (the replay queue holds a reader's sources
    // to its last TLB check); sized only under that organization (sources_held_).
    std::vector<uint64_t> released;
    uint32_t warp_in_tb = 0;
    uint64_t code_base = 0;    // its kernel's code in the address space (instruction fetch)
    uint64_t fetch_line = ~uint64_t{0};  // code line the fetch unit holds for it
    uint64_t seq = 0;  // global memory instructions issued (replay-queue and operand-log tags)
    uint8_t watch_nsrc = 0;
    uint16_t watch_src[4] = {};
  };
  struct TbSlot {
    bool live = false;
    const KernelLaunch* launch = nullptr;
    uint32_t tb = 0;
    uint32_t warps_live = 0, at_barrier = 0;
    uint64_t done = 0;
    std::vector<uint32_t> warps;
    std::shared_ptr<const TraceTbView> trace;  // a trace TB's instructions, held while it is resident
    // Relaxed idempotence (SPEC 4): warp instructions its warps issued here, and whether one was
    // an atomic or a global store (from then on it cannot be flushed).
    uint64_t issued = 0;
    bool overwrote = false;
    const LoopSpans* spans = nullptr;  // a program's loops (run-ahead); null for a trace
  };
  enum class Block { none, unit, operands, control };
  // What a scheduler found when it last looked at its warps without issuing: the earliest cycle
  // one of them can issue, and the stall reason (rank) of its most advanced warp.
  struct SchedulerState {
    uint64_t wake = 0;
    int rank = -1;
    PipelineStats* kstats = nullptr;
  };
  // The issue stage's view of one scheduler's warps, kept up to date as warps change instead of
  // re-derived each cycle, one bit per scheduler position (WarpScheduler::position): `bits` holds
  // the warps that are live, not at a barrier and have their operands ready by `promoted`; a
  // warp ready within the next 64 cycles waits in the wheel slot of that cycle, a later one
  // (a load from memory) in `far`, rescanned when the earliest of them is due.
  struct ReadySet {
    uint64_t bits = 0, far = 0;
    uint64_t far_min = ~uint64_t{0};  // at most the far warps' earliest wake-up; equal while far_exact
    uint64_t promoted = 0;           // slots of cycles up to here are in `bits`
    uint64_t layout = ~uint64_t{0};  // the scheduler layout the bits are for
    bool far_exact = true;
    // Bit k: wheel[k] may hold a warp (set when one is filed there, cleared when promoted), so
    // that the slots read are those, not all 64: an SM waiting on memory passes many empty ones.
    uint64_t occupied = 0;
    // What a filed warp not ready yet waits for, as blocked() would find it (stalled_state's
    // stall reason without reading the warps' lines, cold with hundreds of SMs): its operands,
    // from a load (mem_wait) or another unit (op_wait); neither: fetch or a barrier (control).
    // Set when filed from the warp; meaningless for positions in `bits`.
    uint64_t mem_wait = 0, op_wait = 0;
    // The kernel statistics of every warp in the scheduler when they all share them (one kernel
    // here), else null: a stall is then charged without reading a warp. Set at each relayout.
    PipelineStats* kstats_all = nullptr;
    uint64_t wheel[64] = {};
    // Per far position: the wake-up it was filed under. The far warps are refiled from here, not
    // from their Warp lines: with hundreds of SMs those are cold by the time a load is back.
    uint64_t due[64] = {};
    // Empty again (the layout and `promoted` are the caller's). Only the wheel slots marked
    // occupied are written: the others are zero already, and due[] is read only for far
    // positions, which place() writes. A TB launched or gone then costs a line or two per
    // scheduler rather than the set's 1 KiB, cold with hundreds of SMs.
    void clear() {
      for (uint64_t o = occupied; o; o &= o - 1) wheel[__builtin_ctzll(o)] = 0;
      bits = far = occupied = mem_wait = op_wait = 0;
      far_min = ~uint64_t{0};
      far_exact = true;
    }
  };
  // One scheduler's issue-stage state, its hot fields in one cache line (the state, then the
  // ready set's words before its wheel): at quantum 1 an SM's lines are evicted between cycles.
  struct alignas(64) SchedulerSlot {
    SchedulerState st;
    // Its stall cycles from here up to the pipeline's cycle are counted when `st` is next
    // looked at (issue_on) or run_until() returns, under the reason `st` holds until then: a
    // scheduler waiting on memory is not counted cycle by cycle.
    uint64_t stalls_from = 0;
    ReadySet ready;
  };

  [[gnu::always_inline]] inline bool issue_on(uint32_t s);  // inline in run_until: no call per scheduler cycle
  // GTO's usual cycle without the walk of issue_on (same outcome): the greedy warp, ready, issues
  // an arithmetic instruction on a free unit. False (nothing done but promote_ready) otherwise.
  [[gnu::always_inline]] inline bool issue_greedy(uint32_t s);
  // Scheduler `s` issued this cycle, `first` its first warp: the cycle counts as its issue cycle
  // (an exited warp's counts are folded already) and no stall; it looks again next cycle.
  void end_issue_cycle(uint32_t s, Warp& first) {
    ++(first.live ? first.issue_cycles_here : first.kstats->issue_cycles);
    slots_[s].st = SchedulerState{cycle_ + 1, -1, nullptr};
    slots_[s].stalls_from = cycle_ + 1;
  }
  // The stall reason and wake-up cycle of scheduler `s`, none of whose warps can issue now.
  SchedulerState stalled_state(uint32_t s);
  // Records warp `wid`'s readiness in its scheduler's ready set (after any change of it).
  // `filed_ready`: its `ready` when it was last filed (a wheel slot it may still be in): w.ready
  // unless refresh_ready() just changed it. The warp's own line holds no filing state.
  [[gnu::always_inline]] inline void track(uint32_t wid, Warp& w, uint64_t filed_ready);
  // The hot ones are inlined into the issue stage (they run once or more per issued instruction).
  [[gnu::always_inline]] inline void file(ReadySet& r, uint32_t pos, const Warp& w);
  // Files position `pos` by its wake-up cycle: ready now, a wheel slot or the far set.
  [[gnu::always_inline]] inline void place(ReadySet& r, uint32_t pos, uint64_t ready);
  [[gnu::always_inline]] inline void promote_ready(uint32_t s);
  void promote_ready_slow(uint32_t s);
  // The warps due at cycle `c` move from its wheel slot to the ready bits.
  static void promote_slot(ReadySet& r, uint64_t c) {
    r.bits |= r.wheel[c & 63];
    r.wheel[c & 63] = 0;
    r.occupied &= ~(uint64_t{1} << (c & 63));
  }
  // Issues warp `wid` (its operands ready) if its unit is free; counts the issues.
  [[gnu::always_inline]] inline bool try_issue(uint32_t s, uint32_t wid, uint32_t& issued, uint32_t& first);
  // The scheduler's bookkeeping calls, without a virtual call per cycle (the classes are final).
  [[gnu::always_inline]] inline void scheduler_begin_cycle(uint32_t s);
  [[gnu::always_inline]] inline void scheduler_issued(uint32_t s, uint32_t wid);  // kNoWarp: none issued
  Block blocked(const Warp& w, uint64_t& wake);
  // The next-free cycle of the instance of unit `u` that frees first (ld/st: one per SM).
  const uint64_t* unit_slot(uint32_t scheduler, UnitClass u) const {
    if (u == UnitClass::ldst) return &ldst_free_;
    const uint64_t* inst = &unit_free_[scheduler * unit_stride_ + unit_base_[static_cast<int>(u)]];
    const uint32_t n = unit_count_[static_cast<int>(u)];
    return n == 1 ? inst : std::min_element(inst, inst + n);
  }
  uint64_t* unit_slot(uint32_t scheduler, UnitClass u) {
    return const_cast<uint64_t*>(std::as_const(*this).unit_slot(scheduler, u));
  }
  void issue(uint32_t wid, Warp& w);
  // issue() for the common case, inline in the issue stage: an arithmetic or branch instruction
  // (not a replay, no faulted instruction's hazard window open); the same steps as issue() takes
  // for it, without its memory, replay and barrier cases.
  [[gnu::always_inline]] inline void issue_any(uint32_t wid, Warp& w);
  // `unit`: the next-free cycle of the unit instance it takes (unit_slot).
  [[gnu::always_inline]] inline void issue_arith(uint32_t wid, Warp& w, const Decoded& d, uint64_t* unit);
  // The ld/st unit takes the instruction at cycle `at` (operands read); `done` becomes the cycle
  // its data is back (loads, atomics); store acknowledgements extend the warp's last_write.
  // The addresses are the `lanes` first of addr_buf_.
  MemIssue execute_memory(Warp& w, const Decoded& d, uint32_t wid, uint64_t at, int lanes);
  // --- Fault organizations (pipeline_faults.cpp) ---
  bool translated(const Decoded& d) const {
    return d.space == MemSpace::global || d.space == MemSpace::local;
  }
  // Its fault is known: the warp's next issue is a replay (once the fault is handled).
  // The warp holds squashed instructions (most runs have none: one count checked first).
  bool has_replays(const Warp& w) const { return faulted_warps_ != 0 && !w.replays.empty(); }
  // The warp's hazard window is open this cycle (cycle_ < w.watch_until), its line read only when
  // some warp's may be.
  bool watching(const Warp& w) const { return cycle_ < watch_open_until_ && cycle_ < w.watch_until; }
  bool replaying(const Warp& w) const { return has_replays(w) && cycle_ >= w.halt_from; }
  // The instruction the warp issues next: a replay once its fault is known, else its code's head.
  const Decoded& next_instr(const Warp& w) const { return replaying(w) ? w.replays.front().d : w.code.head(); }
  // The cycle the replay queue and operand log can take warp `w`'s global memory instruction
  // (cycle_ when they can now); counts a refusal when `count`.
  uint64_t tables_free_at(const Warp& w, const Decoded& d, bool count);
  // Files an issued global memory instruction in the tables and applies the organization's
  // fetch and source-release rules; a faulted one is squashed for replay.
  void file_memory(uint32_t wid, Warp& w, const Decoded& d, const MemIssue& m, uint64_t commit, bool replay);
  // Its next instruction needs a replay-queue or operand-log entry that only squashed instructions
  // hold (they leave at their replay): it cannot issue before a fault is handled.
  bool waits_for_replay(Warp& w);
  // Counts the two hazards of SPEC 3 for an instruction issued under an older faulted one.
  void watch_hazards(Warp& w, const Decoded& d);
  // A TB arrives or leaves: the operand log is split anew among the resident TBs.
  void repartition_log();
  // TB slot `slot` left the SM (finished or switched out): its log entries go, the rest share anew.
  void tb_left_log(uint32_t slot);
  // Context switch of a warp with squashed instructions: their positions go with its context (and
  // its replay-queue entries leave the SM); the restore files them again, to replay first.
  void save_replays(uint32_t wid, Warp& w, WarpPosition& pos);
  void restore_replays(uint32_t wid, Warp& w, const WarpPosition& pos, uint64_t start);
  // Per-thread local memory in the address space: lanes' words interleaved, so that one offset of
  // a warp's 32 threads is one 128-byte line (as the hardware lays local memory out).
  void map_local_addresses(const Warp& w, int lanes);
  // The physical address of the request for virtual address `va` looked up at cycle `at`, and
  // the cycle it is known (L1 TLB hit, a pending miss, or a walk by the fill unit); false: the
  // address has no valid mapping and the kernel is aborted.
  // A fault (Translation::fault) under a preemptible organization is not filled into the TLB: the
  // replay looks the page up again.
  Translation translate(Warp& w, uint64_t va, uint64_t at);
  // The fetch unit moves to the head's code line at cycle `at`: an instruction-cache miss holds
  // the warp until the line is back.
  void fetch_code(uint32_t wid, Warp& w, uint64_t at);
  void advance(Warp& w, const Decoded& d, uint64_t commit);
  [[gnu::always_inline]] inline void refresh_ready(Warp& w);
  void exit_warp(uint32_t wid, Warp& w);
  // An issued instruction counted: the SM's totals now, the warp's until fold_counts().
  void count_issue(Warp& w, const Decoded& d) {
    ++stats_.warp_instructions;
    ++w.issued_here;
    stats_.thread_instructions += d.lanes;
    w.threads_here += d.lanes;
  }
  static void add_counts(PipelineStats& ks, const Warp& w);  // the warp's unfolded counts into ks
  void fold_counts(Warp& w);  // the warp's issue counts into its TB slot and kernel statistics
  void barrier_arrive(Warp& w);
  void barrier_release(TbSlot& t);
  void count_stall(const SchedulerState& st, uint64_t cycles);  // into the SM's and st's kernel's counts
  void flush_stalls(SchedulerSlot& sl);  // counts its pending stall cycles up to now
  void skip_to(uint64_t c);  // no live warp: moves to cycle c, which counts no stall
  void account_memory_stall(uint64_t cycles);  // no scheduler issued for `cycles` (SPEC 5's M and A)
  // One update over a link: compared with the core's `want`; an issue's cycles are kept.
  template <class Bus, class Describe>
  void table_access(TableLink<Bus>& link, const Bus& request, const Bus& want, bool at_issue, Describe describe);

  const SmParams& p_;
  MemoryPort& port_;
  // What the issue stage reads every cycle first, in a few cache lines (the caches, TLB and tables
  // below are large).
  uint64_t cycle_ = 0;
  uint32_t live_warps_ = 0;
  uint32_t faulted_warps_ = 0;  // warps with replays pending
  enum class SchedulerKind { gto, lrr, qaws, other } sched_kind_ = SchedulerKind::other;
  const bool icache_on_ = p_.icache.enabled();
  // Sources held past operand read (Reg::released set): only under the replay queue organization.
  const bool sources_held_ = p_.fault_organization == FaultOrganization::replay_queue;
  const bool greedy_path_ = p_.warp_scheduler == "gto" && p_.pipeline.issue_width == 1;  // issue_greedy
  // Prefetch the warps a wake-up will issue (promote_ready_slow) only on GPUs whose warp state
  // outgrows the host's caches: from 64 SMs (64 x 64 warps x their hot lines and registers is
  // several MiB). Below that the lines are still cached and the hints cost 1.2% host instructions.
  static constexpr uint32_t kPrefetchWarpsFromSms = 64;
  const bool prefetch_warps_ = p_.count >= kPrefetchWarpsFromSms;
  bool large_reg_files_ = false;  // some warp launched here had more than kInlineRegs registers
  bool running_ahead_ = false;  // set_running_ahead
  uint64_t ldst_free_ = 0;
  uint64_t watch_open_until_ = 0;  // at least every warp's watch_until: none is open from here on
  // issue_greedy applies from this cycle on: no warp faulted and no hazard window open (kNever:
  // not at all). Kept by note_faults() whenever faulted_warps_ or watch_open_until_ change.
  uint64_t greedy_from_ = greedy_path_ ? 0 : kNever;
  void note_faults() { greedy_from_ = !greedy_path_ || faulted_warps_ != 0 ? kNever : watch_open_until_; }
  std::vector<SchedulerSlot> slots_;  // per scheduler
  std::vector<std::unique_ptr<WarpScheduler>> schedulers_;
  std::vector<Warp> warps_;
  // Next free cycle of every unit instance, flat: [scheduler][unit class][instance]; ld/st is per SM.
  std::vector<uint64_t> unit_free_;
  uint32_t unit_base_[kUnitClasses] = {}, unit_count_[kUnitClasses] = {}, unit_stride_ = 0;
  std::vector<uint32_t> exits_;  // warps that exited in this scheduler's cycle
  std::vector<FinishedTb> finished_;
  PipelineStats stats_;
  L1dCache l1d_;
  L1dCache icache_;  // same set-associative core with MSHRs; only loads, no bypass
  Tlb l1_tlb_;
  ReplayQueue replay_queue_;
  OperandLog operand_log_;
  SmTableLinks links_;
  uint64_t link_period_ps_ = 1000;
  uint32_t issue_table_cycles_ = 1;  // the tables' response time for the instruction being issued
  int page_shift_;
  std::vector<TbSlot> tbs_;
  uint64_t age_ = 0;
  SharingCounters sharing_;
  std::map<uint32_t, PipelineStats> per_kernel_;
  uint64_t addr_buf_[32];
  // addr_buf_ holds a program's contiguous lanes (WarpCursor::addresses); for a global access other
  // than an atomic only the first and last are written then (what the coalescer reads).
  bool addr_contiguous_ = false;
  // Each warp program's instructions decoded once: the SM's own table, or the GPU's shared one.
  std::shared_ptr<DecodedPrograms> decoded_ = std::make_shared<DecodedPrograms>();
};

}  // namespace mpgpu
