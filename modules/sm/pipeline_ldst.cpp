// The pipeline's ld/st unit: shared-memory bank conflicts, constant cache, and global accesses
// through the coalescer, the L1D and its MSHRs to the SM's memory port.
#include <algorithm>

#include "sm/coalescer.hpp"
#include "sm/pipeline.hpp"

namespace mpgpu {

void SmPipeline::execute_memory(Warp& w, const Decoded& d, uint32_t wid, uint64_t& done, uint64_t& busy) {
  const uint64_t c = cycle_;
  const int n = w.code.addresses(addr_buf_);
  PipelineStats& ks = *w.kstats;
  const TbSlot& tb = tbs_[w.tb_slot];
  if (d.space == MemSpace::shared) {
    const uint32_t passes = shared_bank_conflicts(addr_buf_, n, p_.shared_mem_banks);
    busy = std::max(1u, d.op == MemOp::atomic ? 2 * passes : passes);  // atomics read and write
    done = c + p_.shared_mem_latency + busy - 1;
    ++stats_.shared_accesses, ++ks.shared_accesses;
    stats_.shared_conflict_passes += passes, ks.shared_conflict_passes += passes;
    return;
  }
  if (d.space == MemSpace::constant) {  // constant cache: modelled as always hitting
    done = c + p_.l1d.latency;
    return;
  }
  CoalescedLines lines;
  const uint32_t lb = p_.l1d.line_bytes;
  coalesce(addr_buf_, n, std::max<uint32_t>(1, d.width), lb, lines);
  busy = std::max(1, lines.count);  // the L1 tag port takes one line per cycle
  done = c + 1;
  const uint32_t lat = p_.l1d.latency;
  MemAccess a{0, lb, AccessKind::load, 0, tb.launch, tb.tb, wid};
  uint64_t t = c;  // the tag port takes one line per cycle; a stalled line holds the ones behind it
  for (int i = 0; i < lines.count; ++i, ++t) {
    const uint64_t line = lines.line[i];
    a.addr = line * lb;
    ++stats_.memory_requests, ++ks.memory_requests;
    if (d.op == MemOp::load) {
      if (!p_.l1d.bypass_global_loads) {
        const auto lk = l1d_.lookup(line, t);
        if (lk.outcome != L1dCache::Outcome::miss) {
          done = std::max(done, std::max(lk.ready, t + lat));
          auto& hits = lk.outcome == L1dCache::Outcome::hit ? stats_.l1_hits : stats_.l1_merged;
          ++hits;
          ++(lk.outcome == L1dCache::Outcome::hit ? ks.l1_hits : ks.l1_merged);
          continue;
        }
      }
      ++stats_.l1_misses, ++ks.l1_misses;
      const uint64_t send = l1d_.mshr_free_at(t);  // a full MSHR file stalls the ld/st pipe
      t = send;
      busy = std::max(busy, send - c + 1);
      a.kind = AccessKind::load;
      a.bytes = lb;
      a.cycle = send + lat;
      const uint64_t fill = port_.access(a);
      l1d_.miss(line, send, fill, !p_.l1d.bypass_global_loads);
      done = std::max(done, fill);
    } else {
      l1d_.store(line);  // write-evict or write-through; atomics always drop the L1 copy
      a.kind = d.op == MemOp::store ? AccessKind::store : AccessKind::atomic;
      a.bytes = lines.bytes[i];
      a.cycle = t + lat;
      const uint64_t ack = port_.access(a);
      if (d.op == MemOp::atomic) done = std::max(done, ack);
    }
  }
  if (d.op == MemOp::load) ++stats_.global_loads, ++ks.global_loads;
  else if (d.op == MemOp::store) ++stats_.global_stores, ++ks.global_stores;
  else ++stats_.atomics, ++ks.atomics;
}

}  // namespace mpgpu
