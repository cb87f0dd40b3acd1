#pragma once
// Counters of the warp-level pipeline, per SM and per kernel launch. Stall cycles are counted
// per scheduler cycle without an issue, by the reason of the most advanced warp (SPEC 5's
// breakdown: RAW on a memory result, idle/control, memory pipe, compute pipe).
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace mpgpu {

struct PipelineStats {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  uint64_t issue_cycles = 0;        // scheduler cycles with an issue
  uint64_t stall_raw_memory = 0;    // waiting for a load's result
  uint64_t stall_raw_compute = 0;   // waiting for an arithmetic result
  uint64_t stall_idle_control = 0;  // no instruction: fetch after a branch, barrier, no warp
  uint64_t stall_memory_pipe = 0;   // ready, but the ld/st unit is busy
  uint64_t stall_compute_pipe = 0;  // ready, but its arithmetic unit is busy
  uint64_t global_loads = 0, global_stores = 0, atomics = 0, shared_accesses = 0;
  uint64_t memory_requests = 0;     // coalesced lines sent or looked up
  uint64_t shared_conflict_passes = 0;
  uint64_t l1_hits = 0, l1_misses = 0, l1_merged = 0;
  uint64_t tbs = 0, warps = 0;     // launches: a restored or restarted TB counts again
  uint64_t icache_accesses = 0, icache_misses = 0;  // a warp moving to another code line; misses
  uint64_t l1_tlb_accesses = 0, l1_tlb_hits = 0, l1_tlb_misses = 0, l1_tlb_merged = 0;
  // Faults seen by the pipeline (SPEC 3). faulted_instructions: memory instructions whose
  // translation faulted; replays: squashed ones issued again after the handler.
  // younger_issued_under_fault: instructions of the warp issued after an older faulted one and
  // before its fault was known (stall_on_fault: before it completed) - a sparse replay if the warp
  // were switched out; sources_overwritten_under_fault: of those, writes to a source register of
  // the faulted instruction - a RAW on replay unless the operand log holds the sources.
  uint64_t faulted_instructions = 0, replays = 0;
  uint64_t younger_issued_under_fault = 0, sources_overwritten_under_fault = 0;
  // Issue attempts of a ready global memory instruction refused for want of a replay-queue entry /
  // of its TB's operand-log share.
  uint64_t replay_queue_full = 0, operand_log_full = 0;
  static constexpr size_t kFields = 31;  // every member above is a uint64_t counter

  PipelineStats& operator+=(const PipelineStats& o) {
    uint64_t* a = &warp_instructions;
    const uint64_t* b = &o.warp_instructions;
    for (size_t i = 0; i < kFields; ++i) a[i] += b[i];
    return *this;
  }

  nlohmann::json to_json() const {
    const uint64_t l1 = l1_hits + l1_misses + l1_merged;
    return {{"warp_instructions", warp_instructions},
            {"thread_instructions", thread_instructions},
            {"stalls", {{"raw_memory", stall_raw_memory}, {"raw_compute", stall_raw_compute},
                        {"idle_control", stall_idle_control}, {"memory_pipe", stall_memory_pipe},
                        {"compute_pipe", stall_compute_pipe}}},
            {"issue_cycles", issue_cycles},
            {"global_loads", global_loads}, {"global_stores", global_stores}, {"atomics", atomics},
            {"shared_accesses", shared_accesses}, {"shared_conflict_passes", shared_conflict_passes},
            {"memory_requests", memory_requests},
            {"l1", {{"hits", l1_hits}, {"misses", l1_misses}, {"merged", l1_merged},
                    {"hit_rate", l1 ? double(l1_hits + l1_merged) / l1 : 0.0}}},
            {"icache", {{"accesses", icache_accesses}, {"misses", icache_misses}}},
            {"l1_tlb", {{"accesses", l1_tlb_accesses}, {"hits", l1_tlb_hits}, {"misses", l1_tlb_misses},
                        {"merged", l1_tlb_merged}}},
            {"faults", {{"faulted_instructions", faulted_instructions}, {"replays", replays},
                        {"younger_issued_under_fault", younger_issued_under_fault},
                        {"sources_overwritten_under_fault", sources_overwritten_under_fault},
                        {"replay_queue_full", replay_queue_full}, {"operand_log_full", operand_log_full}}},
            {"tbs", tbs}, {"warps", warps}};
  }
};

}  // namespace mpgpu

namespace mpgpu {
static_assert(sizeof(PipelineStats) == PipelineStats::kFields * sizeof(uint64_t), "PipelineStats: kFields out of date");
}  // namespace mpgpu
