#include "fill_unit/fill_unit.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mpgpu {

using sc_core::sc_time;

TranslationStats& TranslationStats::operator+=(const TranslationStats& o) {
  l2_tlb_accesses += o.l2_tlb_accesses, l2_tlb_hits += o.l2_tlb_hits, l2_tlb_misses += o.l2_tlb_misses;
  l2_tlb_merged += o.l2_tlb_merged, walks += o.walks, pte_reads += o.pte_reads, walk_cycles += o.walk_cycles;
  walk_cycles_max = std::max(walk_cycles_max, o.walk_cycles_max);
  const bool more = o.faults_host | o.faults_lazy | o.faults_batched | o.faults_local | o.migrated_bytes |
                    o.allocated_bytes | o.copied_bytes | o.invalid_accesses | o.aborted_kernels;
  if (!more && o.cpu_queue_ns == 0 && o.fault_ns == 0 && o.fault_ns_max == 0) return *this;  // adding zeros
  faults_host += o.faults_host, faults_lazy += o.faults_lazy, faults_batched += o.faults_batched;
  faults_local += o.faults_local, cpu_queue_ns += o.cpu_queue_ns;
  fault_ns += o.fault_ns, fault_ns_max = std::max(fault_ns_max, o.fault_ns_max);
  migrated_bytes += o.migrated_bytes, allocated_bytes += o.allocated_bytes, copied_bytes += o.copied_bytes;
  invalid_accesses += o.invalid_accesses;
  aborted_kernels += o.aborted_kernels;
  return *this;
}

nlohmann::json TranslationStats::to_json() const {
  const uint64_t faults = faults_host + faults_lazy;
  return {{"l2_tlb", {{"accesses", l2_tlb_accesses}, {"hits", l2_tlb_hits}, {"misses", l2_tlb_misses},
                      {"merged", l2_tlb_merged}}},
          {"walks", walks},
          {"pte_reads", pte_reads},
          {"walk_cycles_mean", walks ? double(walk_cycles) / walks : 0.0},
          {"walk_cycles_max", walk_cycles_max},
          {"faults", {{"host", faults_host}, {"lazy", faults_lazy}, {"batched", faults_batched},
                      {"handled_on_gpu", faults_local}}},
          {"cpu_handler_queue_ns", cpu_queue_ns},
          {"fault_latency_ns_mean", faults ? fault_ns / faults : 0.0},
          {"fault_latency_ns_max", fault_ns_max},
          {"migrated_bytes", migrated_bytes},
          {"allocated_bytes", allocated_bytes},
          {"copied_bytes", copied_bytes},
          {"invalid_accesses", invalid_accesses},
          {"aborted_kernels", aborted_kernels}};
}

FillUnit::FillUnit(sc_core::sc_module_name name, const FillUnitParams& p, ClockDomain clock, MemoryManager& memory,
                   Timeline* timeline)
    : sc_module(name), walk_in("walk_in"), mem_out("mem_out"), p_(p), clock_(clock), memory_(memory),
      timeline_(timeline && timeline->enabled() ? timeline : nullptr), l2_tlb_(p.l2_tlb), walker_free_(p.walkers, 0) {
  walk_in.register_b_transport(this, &FillUnit::b_transport);
  if (timeline_) timeline_->name_group(Timeline::kFillUnitPid, "Fill unit (walks per walker, faults per context)");
}

void FillUnit::trace(int tid, const std::string& name, uint64_t begin, uint64_t end) {
  const double ns = clock_.period_ps() / 1e3;
  timeline_->span(Timeline::kFillUnitPid, tid, name, "translation", double(begin) * ns, double(end) * ns);
}

TranslationStats& FillUnit::at(uint32_t context) {
  if (context >= stats_.size()) stats_.resize(context + 1);
  return stats_[context];
}

TranslationStats FillUnit::total() const {
  TranslationStats t;
  for (const auto& s : stats_) t += s;
  return t;
}

uint64_t FillUnit::read_pte(uint64_t addr, uint32_t context, uint64_t at) {
  static uint8_t pte[8];  // targets model timing only
  gpu_mem_ext& ext = pte_.ext;
  ext = gpu_mem_ext{};
  ext.context = context;
  ext.kind = AccessKind::page_walk;
  ext.vaddr = addr;
  tlm::tlm_generic_payload& gp = pte_.gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(addr);
  gp.set_data_ptr(pte);
  gp.set_data_length(8);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_time now = sim_now();
  const sc_time t = clock_.cycles(double(at));
  sc_time delay = t > now ? t - now : sc_core::SC_ZERO_TIME;
  mem_out->b_transport(gp, delay);
  return std::max(at + 1, clock_.to_cycles_ceil(now + delay));
}

uint64_t FillUnit::walk(uint32_t context, uint64_t vpn, uint64_t start, PageWalk& result, bool replay,
                        TranslationStats& s) {
  // A replay (after a fault) is booked far ahead of the walks now; it holds no walker, so the
  // walkers' single free-from cycle stays exact for the walks in time order.
  auto w = std::min_element(walker_free_.begin(), walker_free_.end());
  const uint64_t begin = replay ? start : std::max(start, *w);
  result = memory_.walk(context, vpn);
  uint64_t end = begin;
  if (p_.fixed_walk_cycles) {
    end = begin + p_.fixed_walk_cycles;
  } else {
    for (uint32_t i = 0; i < result.reads; ++i) end = read_pte(result.pte_address[i], context, end);
  }
  if (!replay) *w = end;
  if (timeline_) trace(replay ? int(p_.walkers) : int(w - walker_free_.begin()), replay ? "replayed walk" : "walk", begin, end);
  ++s.walks;
  s.pte_reads += result.reads;
  s.walk_cycles += end - begin;
  s.walk_cycles_max = std::max(s.walk_cycles_max, end - begin);
  return end;
}

void FillUnit::b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
  // One request's counts, added to its context's and its SM's records.
  const auto* e = gp.get_extension<gpu_mem_ext>();
  TranslationStats s;
  serve(gp, delay, s);
  const uint32_t sm = e ? e->sm : 0;
  if (sm >= by_sm_.size()) by_sm_.resize(sm + 1);
  at(e ? e->context : 0) += s;
  by_sm_[sm] += s;
}

void FillUnit::serve(tlm::tlm_generic_payload& gp, sc_time& delay, TranslationStats& s) {
  auto* ext = gp.get_extension<gpu_mem_ext>();
  const uint32_t context = ext ? ext->context : 0;
  const uint64_t vaddr = ext ? ext->vaddr : gp.get_address();
  const int shift = memory_.page_shift();
  const uint64_t vpn = vaddr >> shift;
  const sc_time now = sim_now();
  const uint64_t c0 = clock_.to_cycles_ceil(now + delay);
  if (ext && ext->page_table_base && ext->page_table_base != memory_.page_table_base(context)) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);  // the SM's registers disagree with the driver
    return;
  }
  ++s.l2_tlb_accesses;
  const Tlb::Lookup lk = l2_tlb_.lookup(context, vpn, c0);
  uint64_t done = lk.ready, frame = lk.frame;
  const uint64_t block = uint64_t{context} << 48 | (vaddr / std::max<uint64_t>(p_.fault.granularity_bytes, memory_.page_bytes()));
  // The requester learns of a fault from the walk that found it, or from the pending walk it merged with.
  auto report_fault = [&](uint64_t known) {
    if (!ext) return;
    ext->page_fault = true;
    ext->fault_at = clock_.cycles(double(known));
  };
  if (lk.outcome == Tlb::Outcome::hit) {
    ++s.l2_tlb_hits;
  } else if (lk.outcome == Tlb::Outcome::merged) {
    ++s.l2_tlb_merged;
    const auto r = resolving_.find(block);
    if (r != resolving_.end() && r->second.resident > c0) report_fault(std::max(c0 + p_.l2_tlb.latency, r->second.known));
  } else {
    ++s.l2_tlb_misses;
    const uint64_t send = l2_tlb_.mshr_free_at(lk.ready);
    PageWalk pw;
    done = walk(context, vpn, send, pw, false, s);
    if (pw.leaf == PageWalk::Leaf::not_resident_host || pw.leaf == PageWalk::Leaf::not_resident_lazy) {
      // The fault handler makes the page resident while the request waits, then the walk is replayed.
      const bool host = pw.leaf == PageWalk::Leaf::not_resident_host;
      const uint64_t mapped = memory_.resolve_fault(context, vpn, p_.fault.granularity_bytes);
      if (mapped == MemoryManager::kOutOfMemory) pw.leaf = PageWalk::Leaf::out_of_memory;
      else {
        // Local handling: the GPU's handler allocates the page; otherwise the CPU's, one at a time.
        const bool local = !host && p_.fault.local_lazy;
        const double cost_us = local ? p_.fault.gpu_handler_us : host ? p_.fault.migrate_us : p_.fault.allocate_us;
        auto us_to_cycles = [&](double us) { return static_cast<uint64_t>(std::ceil(clock_.ns_to_cycles(us * 1e3))); };
        uint64_t start = done;
        if (local) {
          ++s.faults_local;
        } else if (p_.fault.cpu_handler_us > 0) {
          start = std::max(done, cpu_free_);
          cpu_free_ = start + us_to_cycles(p_.fault.cpu_handler_us);
          s.cpu_queue_ns += (start - done) * clock_.period_ps() / 1e3;
        }
        const uint64_t resident = start + us_to_cycles(cost_us);
        resolving_[block] = {done, resident};
        report_fault(done);
        (host ? s.faults_host : s.faults_lazy) += 1;
        (host ? s.migrated_bytes : s.allocated_bytes) += mapped;
        const uint64_t fault_start = done;
        done = walk(context, vpn, resident, pw, true, s);
        if (timeline_)
          trace(10000 + int(context), fmt::format("{} fault ctx {}", host ? "migrate" : "allocate", context), fault_start, resident);
        const double ns = (done - fault_start) * clock_.period_ps() / 1e3;
        s.fault_ns += ns, s.fault_ns_max = std::max(s.fault_ns_max, ns);
      }
    } else if (pw.leaf == PageWalk::Leaf::present && !resolving_.empty()) {
      // Resident already, but its fault is still being resolved: wait for that one migration.
      const auto r = resolving_.find(block);
      if (r != resolving_.end() && r->second.resident > done) {
        ++s.faults_batched;
        report_fault(done);
        done = walk(context, vpn, r->second.resident, pw, true, s);
      }
    }
    if (pw.leaf != PageWalk::Leaf::present) {
      ++s.invalid_accesses;
      gp.set_response_status(pw.leaf == PageWalk::Leaf::invalid ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                                 : tlm::TLM_GENERIC_ERROR_RESPONSE);
      delay = clock_.cycles(double(done)) - now;
      return;
    }
    frame = pw.frame;
    l2_tlb_.fill(context, vpn, frame, send, done);
  }
  gp.set_address(frame << shift | (vaddr & ((uint64_t{1} << shift) - 1)));
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = clock_.cycles(double(done)) - now;
}

}  // namespace mpgpu
