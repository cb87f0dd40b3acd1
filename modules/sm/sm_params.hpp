#pragma once
// Per-SM resources and organization, as elaborated from the platform's `sm` section.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/tlb.hpp"
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/replay_queue.hpp"
#include "sm/l1d_cache.hpp"
#include "workload/instruction.hpp"

namespace mpgpu {

// A functional unit class: instances per warp scheduler (sub-core), result latency and initiation
// interval (cycles between two issues to one instance). The ld/st unit is one per SM.
struct UnitParams {
  uint32_t count = 1, latency = 4, ii = 1;
};

// The warp-level pipeline (SPEC 1): issue width per scheduler, refetch latency after a
// fetch-disabling instruction, and the functional units indexed by UnitClass.
struct PipelineParams {
  uint32_t issue_width = 1;
  uint32_t fetch_latency = 2;
  uint32_t barrier_latency = 1;
  // Stages around a unit: operand read (issue -> operand collector -> unit) and write-back
  // (unit -> register file -> scoreboard release). A dependent instruction issues at the earliest
  // operand_read + unit latency + writeback cycles after its producer.
  uint32_t operand_read = 0;
  uint32_t writeback = 0;
  // True: a warp issues nothing more while one of its atomics is outstanding (as GPGPU-Sim
  // does); false: only instructions reading the atomic's result wait (scoreboard).
  bool atomics_block_warp = false;
  // True: fetch waits for a branch to commit (SPEC 1); false: the next instruction in program
  // order is fetched at once (a trace-driven front end that replays the taken path).
  bool branch_stalls_fetch = true;
  std::array<UnitParams, kUnitClasses> units{};
};

// The SM's instruction cache: a warp that moves to a code line not in it waits for the line,
// fetched through the memory hierarchy like any miss. sets = 0: a perfect instruction cache.
struct InstructionCacheParams {
  uint32_t sets = 0, ways = 4, line_bytes = 128, mshrs = 2;
  uint32_t latency = 0;            // cycles from the line's arrival to its first issue
  uint32_t instruction_bytes = 8;  // code size of one warp-program instruction (SASS: 8 B)
  bool enabled() const { return sets > 0; }
  L1dParams as_cache() const { return {sets, ways, line_bytes, mshrs, latency}; }
};

// What the pipeline does about a page fault (SPEC 3). stall_on_fault: the faulting request waits
// for the handler while the warp goes on (not preemptible). The others squash the faulting
// instruction and replay it once the fault is handled: wd_commit / wd_lastcheck disable the warp's
// fetch after a global memory instruction until it commits / until its last TLB check;
// replay_queue files global memory instructions in the replay queue from issue to commit and
// holds their source registers until their last TLB check; operand_log adds the operand log, so
// sources are released at operand read and a replay reads the log.
enum class FaultOrganization : uint8_t { stall_on_fault, wd_commit, wd_lastcheck, replay_queue, operand_log };
inline constexpr const char* kFaultOrganizationNames[] = {"stall_on_fault", "wd_commit", "wd_lastcheck",
                                                          "replay_queue", "operand_log"};  // in enum order
const char* to_string(FaultOrganization o);

// Block switching on fault (SPEC 3): the SM's local TB scheduler switches out a TB whose warps are
// all halted on known faults or wait at a barrier, and switches it back in once its faults are
// handled (ahead of new TBs); meanwhile the freed resources take a new TB from the block
// scheduler. Needs a preemptible fault organization (the faulted instructions replay).
struct BlockSwitchParams {
  bool enabled = false;
  uint32_t extra_tbs = 4;  // TBs switched out at once per SM, beyond its resident ones (SPEC 3: 4)
};

struct SmParams {
  uint32_t count = 1;
  uint32_t warp_size = 32;
  uint32_t max_threads = 2048;
  uint32_t max_tbs = 16;
  uint32_t registers = 65536;           // 32-bit registers per SM
  uint32_t register_alloc_unit = 1;     // a TB's registers are rounded up to this
  std::vector<uint32_t> shared_mem_configs;  // carve-out options in bytes, ascending
  uint32_t shared_mem_default = 0;      // carve-out used unless a kernel needs more
  uint32_t warp_schedulers = 4;
  std::string warp_scheduler = "gto";
  L1dParams l1d;
  InstructionCacheParams icache;
  // Address translation (SPEC 1): the L1 TLB looked up per coalesced request; translate = false
  // (`fill_unit.translation: none`): addresses are physical, no TLB. A virtually tagged L1 needs
  // the TLB only for requests that leave the SM; a physically tagged one for every access.
  bool translate = false;
  bool l1d_virtual_tags = true;
  uint32_t page_bytes = 4096;
  TlbParams l1_tlb{32, 8, 1, 32};
  uint32_t shared_mem_latency = 26;
  uint32_t shared_mem_banks = 32;  // 4-byte banks
  PipelineParams pipeline;
  FaultOrganization fault_organization = FaultOrganization::stall_on_fault;
  // Sized by the platform's `extensions` section: the same numbers `mpgpu report` prints.
  ReplayQueueParams replay_queue;
  // SPEC 4 tables of the SM (running-TB status read by flushing; victim sets, positions): the
  // sizes `mpgpu report` gives are these.
  DualKernelParams dual_kernel;
  OperandLogParams operand_log;
  BlockSwitchParams block_switching;
  // Context switch (SPEC 2): drain in-flight instructions, then a trap routine saves (or restores)
  // registers, shared memory and TB state, one line per cycle from the SM.
  uint32_t drain_cycles = 500;
  uint32_t trap_cycles = 100;
  uint32_t tb_state_bytes = 64;  // barrier state, reconvergence stack pointer, ...

  uint32_t largest_shared_mem() const { return shared_mem_configs.back(); }
  // The SPEC 4 tables with one entry (running-TB status) or bit (victim sets) per TB slot.
  DualKernelParams per_slot_tables() const {
    DualKernelParams d = dual_kernel;
    d.tb_slots = max_tbs;
    return d;
  }
  uint32_t register_file_bytes() const { return registers * 4; }
};

}  // namespace mpgpu
