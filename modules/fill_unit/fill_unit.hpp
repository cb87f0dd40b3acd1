#pragma once
// Shared fill unit (SPEC 1): the L2 TLB with its MSHRs and N page-table walkers serving the SMs'
// L1 TLB misses. A walk reads one PTE per page-table level through the crossbar, L2 and DRAM
// (each level a TLM read of 8 B at the PTE's physical address), or takes a fixed time
// (fixed_walk_cycles, SPEC 3's Table 6.1). A page that is not resident faults to the CPU
// (stall on fault, SPEC 1): the driver migrates it (host pages) or allocates it (lazy pages),
// then the walk is replayed; warps faulting on a page being resolved wait for that one fault.
// An address outside every allocation is answered with TLM_ADDRESS_ERROR_RESPONSE: the SM
// aborts the kernel.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/clock.hpp"
#include "common/payload.hpp"
#include "common/timeline.hpp"
#include "common/tlb.hpp"
#include "fill_unit/memory_manager.hpp"

namespace mpgpu {

// Stall-on-fault costs of SPEC 3 (with / without data transfer), per host link.
struct FaultParams {
  double migrate_us = 25;  // CPU-owned page: handler plus copy over the link (PCIe)
  double allocate_us = 12; // page with no physical memory yet: handler plus allocation
  uint64_t granularity_bytes = 4096;  // pages mapped per fault (SPEC 1 evaluations: 64 KB)
  // The CPU runs one fault handler at a time, each occupying it cpu_handler_us (SPEC 3: 2 us);
  // a fault waits for the CPU, then takes its cost above. 0: faults do not queue for the CPU.
  double cpu_handler_us = 0;
  // Local fault handling (SPEC 3): pages with no physical memory yet (lazy) are allocated on the
  // GPU by a system-mode handler (gpu_handler_us each, SPEC 3: 20 us) run by the faulting SM,
  // without the CPU; host pages still migrate through the CPU.
  bool local_lazy = false;
  double gpu_handler_us = 20;
};

struct FillUnitParams {
  bool translation = true;  // false (`translation: none`): physical = virtual, no TLBs
  uint32_t walkers = 64;
  uint32_t fixed_walk_cycles = 0;  // 0: a walk reads its PTEs through the memory path
  TlbParams l2_tlb{1024, 8, 70, 128};
  PagingParams paging;
  FaultParams fault;
};

// Per context (process) counters of the fill unit. The walk counters fill the first cache line;
// a request without a fault or an error adds only those (operator+=): the fill unit keeps a record
// per SM too, and with hundreds of SMs each is cold at its SM's next walk.
struct alignas(64) TranslationStats {
  uint64_t l2_tlb_accesses = 0, l2_tlb_hits = 0, l2_tlb_misses = 0, l2_tlb_merged = 0;
  uint64_t walks = 0, pte_reads = 0, walk_cycles = 0, walk_cycles_max = 0;
  uint64_t faults_host = 0, faults_lazy = 0, faults_batched = 0;  // batched: waited for another's fault
  uint64_t faults_local = 0;        // lazy faults handled on the GPU (local fault handling)
  double cpu_queue_ns = 0;          // waiting for the CPU's fault handler, summed over faults
  double fault_ns = 0, fault_ns_max = 0;                         // from the fault to the replayed walk's end
  uint64_t migrated_bytes = 0, allocated_bytes = 0, copied_bytes = 0;
  uint64_t invalid_accesses = 0;
  uint64_t aborted_kernels = 0;
  TranslationStats& operator+=(const TranslationStats& o);
  nlohmann::json to_json() const;
};
static_assert(offsetof(TranslationStats, faults_host) == 64, "the walk counters are the first cache line");

class FillUnit : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<FillUnit> walk_in;  // from every SM
  tlm_utils::simple_initiator_socket<FillUnit> mem_out;          // PTE reads, to the crossbar

  FillUnit(sc_core::sc_module_name name, const FillUnitParams& p, ClockDomain clock, MemoryManager& memory,
           Timeline* timeline = nullptr);

  uint64_t walks() const { return total().walks; }
  const Tlb& l2_tlb() const { return l2_tlb_; }
  const std::vector<TranslationStats>& stats() const { return stats_; }  // by context
  const std::vector<TranslationStats>& stats_by_sm() const { return by_sm_; }  // by requesting SM
  TranslationStats total() const;
  const FillUnitParams& params() const { return p_; }
  // A host-to-device copy made [va, va + bytes) resident (counted as copied, not migrated).
  void copied(uint32_t context, uint64_t bytes) { at(context).copied_bytes += bytes; }
  void aborted(uint32_t context) { ++at(context).aborted_kernels; }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void serve(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, TranslationStats& s);
  // One walk from cycle `start` on the first free walker (a replay after a fault: on none);
  // returns when it ends.
  uint64_t walk(uint32_t context, uint64_t vpn, uint64_t start, PageWalk& result, bool replay, TranslationStats& s);
  // Reads 8 B at `addr` through the memory path from cycle `at`; returns when the PTE is back.
  uint64_t read_pte(uint64_t addr, uint32_t context, uint64_t at);
  TranslationStats& at(uint32_t context);

  FillUnitParams p_;
  ClockDomain clock_;
  MemoryManager& memory_;
  Timeline* timeline_;
  Tlb l2_tlb_;
  std::vector<uint64_t> walker_free_;  // cycle each walker is free from
  void trace(int tid, const std::string& name, uint64_t begin, uint64_t end);
  // Faults being resolved, by (context, fault block): when the fault was known, and the cycle the
  // block is resident.
  struct Resolving {
    uint64_t known, resident;
  };
  std::unordered_map<uint64_t, Resolving> resolving_;
  uint64_t cpu_free_ = 0;  // the CPU's fault handler is free from this cycle
  std::vector<TranslationStats> stats_;
  std::vector<TranslationStats> by_sm_;
  MemPayload pte_;  // page-table reads
};

}  // namespace mpgpu
