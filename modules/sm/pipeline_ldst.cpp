// The pipeline's ld/st unit: shared-memory bank conflicts, constant cache, and global and local
// accesses through the coalescer, the L1D and its MSHRs to the SM's memory port.
#include <algorithm>

#include "sm/coalescer.hpp"
#include "sm/pipeline.hpp"

namespace mpgpu {

namespace {

// Local memory: a region of its own, 1 MiB per warp (32 KiB per thread), 256 launches deep;
// offsets beyond a thread's 32 KiB wrap (a simplification of the per-launch local allocation).
constexpr uint64_t kLocalBase = uint64_t{1} << 47;
constexpr uint64_t kLocalBytesPerThread = 32 * 1024;

// Operations the L2 performs one after the other for an atomic to `line`: the most lanes that
// name one word of it (distinct words of a line are updated together).
uint32_t serialized_atomic_ops(const uint64_t* addrs, int lanes, uint64_t line, int line_shift) {
  uint32_t worst = 1;
  for (int i = 0; i < lanes; ++i) {
    if (addrs[i] >> line_shift != line) continue;
    uint32_t same = 0;
    for (int j = 0; j < lanes; ++j) same += addrs[j] >> 2 == addrs[i] >> 2;
    worst = std::max(worst, same);
  }
  return worst;
}

}  // namespace

void SmPipeline::map_local_addresses(const Warp& w, int lanes) {
  const TbSlot& t = tbs_[w.tb_slot];
  const uint64_t warps_per_tb = (t.launch->kernel->threads_per_tb + p_.warp_size - 1) / p_.warp_size;
  const uint64_t gwarp = uint64_t{t.tb} * warps_per_tb + w.warp_in_tb;
  const uint64_t window = kLocalBase + (uint64_t{t.launch->id & 0xff} << 39) + ((gwarp & 0x7ffff) << 20);
  for (int l = 0; l < lanes; ++l) {
    const uint64_t off = addr_buf_[l] % kLocalBytesPerThread;
    addr_buf_[l] = window + (off / 4) * (4 * uint64_t{p_.warp_size}) + uint64_t(l) * 4 + off % 4;
  }
}

Translation SmPipeline::translate(Warp& w, uint64_t va, uint64_t at) {
  PipelineStats& ks = *w.kstats;
  const TbSlot& tb = tbs_[w.tb_slot];
  const uint32_t context = tb.launch->context;
  const uint64_t vpn = va >> page_shift_;
  ++stats_.l1_tlb_accesses, ++ks.l1_tlb_accesses;
  const Tlb::Lookup lk = l1_tlb_.lookup(context, vpn, at);
  if (lk.outcome == Tlb::Outcome::hit) ++stats_.l1_tlb_hits, ++ks.l1_tlb_hits;
  if (lk.outcome == Tlb::Outcome::merged) ++stats_.l1_tlb_merged, ++ks.l1_tlb_merged;
  if (lk.outcome != Tlb::Outcome::miss) return {true, lk.frame, lk.ready};
  ++stats_.l1_tlb_misses, ++ks.l1_tlb_misses;
  const uint64_t send = l1_tlb_.mshr_free_at(lk.ready);
  const Translation tr = port_.translate({va, 0, AccessKind::page_walk, send, tb.launch, tb.tb, uint32_t(&w - warps_.data())});
  // A preemptible pipeline squashes the faulting instruction: no translation is filled for it.
  if (tr.ok && !(tr.fault && p_.fault_organization != FaultOrganization::stall_on_fault))
    l1_tlb_.fill(context, vpn, tr.frame, send, tr.ready);
  return tr;
}

SmPipeline::MemIssue SmPipeline::execute_memory(Warp& w, const Decoded& d, uint32_t wid, uint64_t c, int n) {
  PipelineStats& ks = *w.kstats;
  if (overwrites_memory(d.space, d.op)) tbs_[w.tb_slot].overwrote = true;
  const TbSlot& tb = tbs_[w.tb_slot];
  MemIssue m;
  m.last_check = c;
  uint64_t& done = m.done;
  uint64_t& busy = m.busy;
  if (d.space == MemSpace::shared) {
    const uint32_t passes = shared_bank_conflicts(addr_buf_, n, p_.shared_mem_banks);
    busy = std::max(1u, d.op == MemOp::atomic ? 2 * passes : passes);  // atomics read and write
    done = c + p_.shared_mem_latency + busy - 1;
    ++stats_.shared_accesses, ++ks.shared_accesses;
    stats_.shared_conflict_passes += passes, ks.shared_conflict_passes += passes;
    return m;
  }
  if (d.space == MemSpace::constant) {  // constant cache: modelled as always hitting
    done = c + p_.l1d.latency;
    return m;
  }
  if (d.space == MemSpace::local) map_local_addresses(w, n);
  CoalescedLines lines;
  const uint32_t lb = p_.l1d.line_bytes;
  // Local addresses were remapped above: only a global access keeps the program's contiguity.
  coalesce(addr_buf_, n, std::max<uint32_t>(1, d.width), lb, lines, addr_contiguous_ && d.space == MemSpace::global);
  busy = std::max(1, lines.count);  // the L1 tag port takes one line per cycle
  done = c + 1;
  // Preemptible organizations squash an instruction whose translation faults: what is behind the
  // fault is not sent, though every line is still looked up (the handler maps all its pages).
  const bool squash = p_.fault_organization != FaultOrganization::stall_on_fault;
  // Global loads may bypass L1 (Kepler, Pascal); local loads (register spills) are cached there.
  const bool cached = d.space == MemSpace::local ? p_.l1d.cache_local || !p_.l1d.bypass_global_loads
                                                 : !p_.l1d.bypass_global_loads;
  MemAccess a{0, lb, AccessKind::load, 0, tb.launch, tb.tb, wid};
  // With translation, a virtually tagged L1 is keyed by (context, virtual line) and needs the TLB
  // only for what leaves the SM; a physically tagged one waits for the TLB on every access.
  const bool translating = p_.translate;
  const bool virtual_l1 = !translating || p_.l1d_virtual_tags;
  const uint64_t context_tag = translating ? uint64_t{tb.launch->context} << 48 : 0;
  const int line_shift = __builtin_ctz(lb);
  // A load the L1 serves: a hit (its latency applies to hits only) or a merge into a pending fill.
  auto served_by_l1 = [&](uint64_t key, uint64_t at) {
    const auto lk = l1d_.lookup(key, at);
    if (lk.outcome == L1dCache::Outcome::miss) return false;
    const bool hit = lk.outcome == L1dCache::Outcome::hit;
    done = std::max(done, hit ? at + p_.l1d.latency : lk.ready);
    if (hit) ++stats_.l1_hits, ++ks.l1_hits;
    else ++stats_.l1_merged, ++ks.l1_merged;
    return true;
  };
  uint64_t t = c;  // the tag port takes one line per cycle; a stalled line holds the ones behind it
  for (int i = 0; i < lines.count; ++i, ++t) {
    const uint64_t vline = lines.line[i];
    uint64_t key = vline | context_tag;  // the L1 tag
    uint64_t pa = vline << line_shift, ready = t;  // physical address, known from `ready`
    ++stats_.memory_requests, ++ks.memory_requests;
    const bool cached_load = d.op == MemOp::load && cached;
    if (!(m.fault && squash) && cached_load && virtual_l1 && served_by_l1(key, t)) {  // the tag proves the page mapped
      m.last_check = std::max(m.last_check, t);
      continue;
    }
    if (translating) {
      const Translation tr = translate(w, vline << line_shift, t);
      if (!tr.ok) continue;  // aborted: nothing is sent
      if (tr.fault) {  // known at fault_at, handled by ready (stall on fault: the request waits)
        m.fault_at = m.fault ? std::min(m.fault_at, tr.fault_at) : tr.fault_at;
        m.handled = std::max(m.handled, tr.ready);
        m.fault = true;
      }
      if (m.fault && squash) continue;
      pa = tr.frame << page_shift_ | ((vline << line_shift) & ((uint64_t{1} << page_shift_) - 1));
      ready = tr.ready;
      if (!virtual_l1) key = pa >> line_shift;
    }
    m.last_check = std::max(m.last_check, ready);
    if (cached_load && !virtual_l1 && served_by_l1(key, ready)) continue;
    a.addr = pa;
    if (d.op == MemOp::load) {
      ++stats_.l1_misses, ++ks.l1_misses;
      const uint64_t send = l1d_.mshr_free_at(t);  // a full MSHR file stalls the ld/st pipe
      t = send;
      busy = std::max(busy, send - c + 1);
      a.kind = AccessKind::load;
      a.bytes = lb;
      a.cycle = std::max(send, ready);
      a.ops = 1;
      const uint64_t fill = port_.access(a);
      l1d_.miss(key, send, fill, cached);
      done = std::max(done, fill);
    } else {
      l1d_.store(key);  // write-evict or write-through; atomics always drop the L1 copy
      a.kind = d.op == MemOp::store ? AccessKind::store : AccessKind::atomic;
      a.bytes = lines.bytes[i];
      a.cycle = std::max(t, ready);
      a.ops = d.op == MemOp::atomic ? serialized_atomic_ops(addr_buf_, n, vline, line_shift) : 1;
      const uint64_t ack = port_.access(a);
      done = std::max(done, d.op == MemOp::atomic ? ack : a.cycle + 1);  // a store commits once sent
      w.last_write = std::max(w.last_write, ack);  // a warp ends only once its stores are acknowledged
    }
  }
  if (d.op == MemOp::load) ++stats_.global_loads, ++ks.global_loads;
  else if (d.op == MemOp::store) ++stats_.global_stores, ++ks.global_stores;
  else ++stats_.atomics, ++ks.atomics;
  if (m.fault) ++stats_.faulted_instructions, ++ks.faulted_instructions;
  return m;
}

}  // namespace mpgpu
