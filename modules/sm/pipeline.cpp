#include "sm/pipeline.hpp"

#include "common/error.hpp"

#include <algorithm>

namespace mpgpu {

namespace {

// Bit rotations of a 64-slot wheel word (k < 64).
uint64_t rotate_left(uint64_t x, uint64_t k) { return k ? x << k | x >> (64 - k) : x; }
uint64_t rotate_right(uint64_t x, uint64_t k) { return rotate_left(x, (64 - k) & 63); }

// Each kernel's code has its own 16 MiB in a code region far above data and context save areas,
// placed by a hash of the kernel's name and definition site: stable from run to run.
uint64_t code_address(const KernelDesc& k) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const std::string* s : {&k.name, &k.source})
    for (unsigned char ch : *s) h = (h ^ ch) * 1099511628211ull;
  return (uint64_t{3} << 44) + ((h & 0xfff) << 24);
}
}  // namespace

SmPipeline::SmPipeline(const SmParams& p, MemoryPort& port)
    : p_(p), port_(port), warps_(p.max_threads / p.warp_size), l1d_(p.l1d), icache_(p.icache.enabled() ? p.icache.as_cache() : L1dParams{1, 1, 128, 1, 0}), l1_tlb_(p.l1_tlb), replay_queue_(p.replay_queue), operand_log_(p.operand_log), page_shift_(__builtin_ctz(p.page_bytes)), tbs_(p.max_tbs) {
  for (int u = 0; u < kUnitClasses; ++u) {
    unit_base_[u] = unit_stride_;
    unit_count_[u] = std::max(1u, p.pipeline.units[u].count);
    unit_stride_ += unit_count_[u];
  }
  for (uint32_t s = 0; s < p.warp_schedulers; ++s) schedulers_.push_back(make_warp_scheduler(p.warp_scheduler));
  unit_free_.assign(size_t{p.warp_schedulers} * unit_stride_, 0);
  slots_.resize(p.warp_schedulers);
  if (p.warp_scheduler == "gto") sched_kind_ = SchedulerKind::gto;
  else if (p.warp_scheduler == "lrr") sched_kind_ = SchedulerKind::lrr;
  else if (p.warp_scheduler == "qaws") sched_kind_ = SchedulerKind::qaws;
}

void SmPipeline::scheduler_begin_cycle(uint32_t s) {
  if (sched_kind_ == SchedulerKind::qaws) static_cast<QawsScheduler&>(*schedulers_[s]).begin_cycle();
  else if (sched_kind_ == SchedulerKind::other) schedulers_[s]->begin_cycle();
}

void SmPipeline::scheduler_issued(uint32_t s, uint32_t wid) {
  WarpScheduler& b = *schedulers_[s];
  switch (sched_kind_) {
    case SchedulerKind::gto: static_cast<GtoScheduler&>(b).issued_warp(wid); break;
    case SchedulerKind::lrr: static_cast<LrrScheduler&>(b).issued_warp(wid); break;
    case SchedulerKind::qaws: static_cast<QawsScheduler&>(b).issued_warp(wid); break;
    default: b.issued_warp(wid);
  }
}

void SmPipeline::file(ReadySet& r, uint32_t pos, const Warp& w) {
  const uint64_t bit = uint64_t{1} << pos;
  r.mem_wait &= ~bit, r.op_wait &= ~bit;
  if (!w.live || w.at_barrier) return;
  if (w.ready > w.fetch_ready) (w.waits_memory ? r.mem_wait : r.op_wait) |= bit;  // blocked(): operands
  place(r, pos, w.ready);
}

void SmPipeline::place(ReadySet& r, uint32_t pos, uint64_t ready) {
  const uint64_t bit = uint64_t{1} << pos;
  if (ready <= cycle_) {
    r.bits |= bit;
    return;
  }
  if (ready - cycle_ < 64) {
    r.wheel[ready & 63] |= bit;
    r.occupied |= uint64_t{1} << (ready & 63);
  } else {
    r.far |= bit;
    r.far_min = std::min(r.far_min, ready);
    r.due[pos] = ready;
  }
}

void SmPipeline::track(uint32_t wid, Warp& w, uint64_t filed_ready) {
  ReadySet& r = slots_[w.scheduler].ready;
  const WarpScheduler& sched = *schedulers_[w.scheduler];
  // Positions changed (promote_ready rebuilds the set), or the warp is not in the scheduler yet
  // (a TB being launched: adding it changes the layout).
  if (r.layout != sched.layout() || !w.scheduled) return;
  if (r.promoted < cycle_) promote_ready(w.scheduler);  // wheel slots behind now must be empty
  const uint32_t pos = sched.position(wid);
  const uint64_t bit = uint64_t{1} << pos;
  // Ready before and still (an issue followed by an independent instruction): it stays in `bits`,
  // and a warp there is in no wheel slot or the far set.
  if ((r.bits & bit) && w.ready <= cycle_ && w.live && !w.at_barrier) return;
  r.bits &= ~bit;
  if (r.far & bit) r.far_exact = false;  // far_min may be this warp's old wake-up
  r.far &= ~bit;
  r.wheel[filed_ready & 63] &= ~bit;  // harmless when it already left that slot (occupied may stay set)
  file(r, pos, w);
}

void SmPipeline::promote_ready(uint32_t s) {
  ReadySet& r = slots_[s].ready;
  if (r.layout == schedulers_[s]->layout()) {  // the common steps inline: nothing due, or one cycle on
    if (r.promoted >= cycle_) return;
    if (r.promoted + 1 == cycle_ && cycle_ < r.far_min) {
      promote_slot(r, cycle_);
      r.promoted = cycle_;
      return;
    }
  }
  promote_ready_slow(s);
}

void SmPipeline::promote_ready_slow(uint32_t s) {
  ReadySet& r = slots_[s].ready;
  const WarpScheduler& sched = *schedulers_[s];
  if (r.layout != sched.layout()) {  // warps came or went: file every warp afresh
    r.clear();
    r.layout = sched.layout();
    r.promoted = cycle_;
    if (prefetch_warps_)  // every warp's first line is read: their loads overlap rather than queue
      for (uint32_t pos = 0; pos < sched.size(); ++pos) __builtin_prefetch(&warps_[sched.warp_at(pos)]);
    r.kstats_all = sched.size() ? warps_[sched.warp_at(0)].kstats : nullptr;
    for (uint32_t pos = 0; pos < sched.size(); ++pos) {
      const Warp& w = warps_[sched.warp_at(pos)];
      if (w.kstats != r.kstats_all) r.kstats_all = nullptr;
      file(r, pos, w);
    }
    return;
  }
  if (r.promoted >= cycle_) return;
  if (prefetch_warps_) {  // what is read below, cold after a wait: loads started together
    if (cycle_ >= r.far_min)
      for (uint64_t f = r.far; f; f &= ~(uint64_t{0xff} << (__builtin_ctzll(f) & ~7)))
        __builtin_prefetch(&r.due[__builtin_ctzll(f) & ~7]);  // the line of 8 positions
    sched.prefetch_positions();
  }
  const uint64_t was_ready = r.bits;
  // The occupied slots of cycles (promoted, now], at most the last 64: each slot once.
  const uint64_t from = std::max(r.promoted + 1, cycle_ >= 63 ? cycle_ - 63 : 0);
  const uint64_t n = cycle_ + 1 - from;  // 1..64
  const uint64_t span = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  const uint64_t due = r.occupied & rotate_left(span, from & 63);
  for (uint64_t m = due; m; m &= m - 1) promote_slot(r, uint64_t(__builtin_ctzll(m)));
  r.promoted = cycle_;
  if (cycle_ >= r.far_min) {  // some loads are back: refile the far warps (from due[], not the warps' lines)
    uint64_t far = r.far;
    r.far = 0;
    r.far_min = ~uint64_t{0};
    r.far_exact = true;
    for (; far; far &= far - 1) {
      const uint32_t pos = uint32_t(__builtin_ctzll(far));
      place(r, pos, r.due[pos]);
    }
  }
  // The warps now ready after a wait issue next: their lines start loading together rather than
  // one issue after another (with hundreds of SMs an SM's warps are cold by the time it wakes).
  if (!prefetch_warps_) return;
  const uint64_t fresh = r.bits & ~was_ready;
  uint64_t soon = 0;  // and those due in the wheel's next 64 cycles: likely in this wake-up
  for (uint64_t o = r.occupied; o; o &= o - 1) soon |= r.wheel[__builtin_ctzll(o)];
  for (uint64_t m = fresh | (soon & ~r.bits); m; m &= m - 1) {
    const char* w = reinterpret_cast<const char*>(&warps_[sched.warp_at(uint32_t(__builtin_ctzll(m)))]);
    __builtin_prefetch(w);
    __builtin_prefetch(w + 64);
    __builtin_prefetch(w + 128);
  }
  // Then their register scoreboards: inline ones at a known place (the two lines are fetched
  // whether the warp uses them or a larger file of its own); a larger file's address is in the
  // warp's first line, read only for a warp that has one (kInlineRegs is most warp programs').
  for (uint64_t m = fresh; m; m &= m - 1) {
    const Warp& w = warps_[sched.warp_at(uint32_t(__builtin_ctzll(m)))];
    const char* inline_regs = reinterpret_cast<const char*>(w.inline_regs);
    __builtin_prefetch(inline_regs);
    __builtin_prefetch(inline_regs + 64);
  }
  if (!large_reg_files_) return;
  for (uint64_t m = fresh; m; m &= m - 1) {
    const Warp& w = warps_[sched.warp_at(uint32_t(__builtin_ctzll(m)))];
    if (w.reg_file == w.inline_regs) continue;
    const char* regs = reinterpret_cast<const char*>(w.reg_file);
    for (size_t off = 0, end = std::min<size_t>(size_t(w.nregs) * sizeof(Reg), 512); off < end; off += 64)
      __builtin_prefetch(regs + off);
  }
}

bool SmPipeline::launch_tb(uint32_t slot, const KernelLaunch* launch, uint32_t tb, uint64_t cycle,
                           const std::vector<WarpPosition>* resume) {
  const KernelDesc& k = *launch->kernel;
  std::shared_ptr<const TraceTbView> ttb;
  uint32_t nwarps = (k.threads_per_tb + p_.warp_size - 1) / p_.warp_size;
  if (k.trace) {
    ttb = k.trace->tb(tb);  // from the binary copy: only resident TBs are in memory
    nwarps = ttb ? static_cast<uint32_t>(ttb->warps.size()) : 0;
  }
  std::vector<uint32_t> free_slots;
  for (uint32_t w = 0; w < warps_.size() && free_slots.size() < nwarps; ++w)
    if (!warps_[w].live) free_slots.push_back(w);
  if (free_slots.size() < nwarps) return false;
  // A TB dispatched ahead of the pipeline's cycle starts then; the warps already running keep
  // issuing until it does (the pipeline is not moved forward). An idle pipeline just moves on.
  if (live_warps_ == 0) advance_to(cycle);
  const uint64_t start = std::max(cycle, cycle_);
  PipelineStats& ks = per_kernel_[launch->id];
  ++ks.tbs;
  ++stats_.tbs;
  TbSlot& t = tbs_.at(slot);
  t = TbSlot{true, launch, tb, nwarps, 0, start + 1, free_slots, ttb};
  if (!k.trace) t.spans = decoded_->spans(*k.program);
  // Scoreboard entries for the registers the code names (higher numbers are never a dependency).
  const uint32_t regs = std::max(1u, k.trace ? k.trace->register_span : k.program->max_register);
  const uint64_t code_base = p_.icache.enabled() ? code_address(k) : 0;  // hashed once per TB, not per warp
  const Decoded* decoded = nullptr;
  if (!k.trace) {
    decoded = decoded_->get(*k.program, p_.icache.instruction_bytes);
  }
  for (uint32_t i = 0; i < nwarps; ++i) {
    const uint32_t wid = free_slots[i];
    Warp& w = warps_[wid];
    w.live = true;
    w.at_barrier = false;
    w.tb_slot = slot;
    w.warp_in_tb = i;
    w.scheduler = wid % p_.warp_schedulers;
    if (regs <= kInlineRegs) {
      std::fill_n(w.inline_regs, regs, Reg{});
      w.reg_file = w.inline_regs;
    } else {
      w.regs.assign(regs, Reg{});
      w.reg_file = w.regs.data();
      large_reg_files_ = true;
    }
    if (sources_held_) w.released.assign(regs, 0);
    w.nregs = regs;
    w.fetch_ready = start;
    w.last_write = start;
    w.kstats = &ks;
    w.issued_here = w.threads_here = w.issue_cycles_here = 0;
    w.code_base = code_base;
    w.fetch_line = ~uint64_t{0};
    if (ttb)
      w.code.start_trace(ttb.get(), &ttb->warps[i]);
    else
      w.code.start_program(k.program.get(), decoded, LaneCoords{tb, i, k.threads_per_tb, p_.warp_size, 0, 0},
                           std::min(p_.warp_size, k.threads_per_tb - i * p_.warp_size));
    w.replays.clear();
    w.halt_from = kNever;
    w.resume = w.watch_until = 0;
    if (resume) {
      w.code.resume((*resume)[i]);
      restore_replays(wid, w, (*resume)[i], start);
    }
    ++ks.warps;
    ++stats_.warps;
    ++live_warps_;
    if (w.code.done() && w.replays.empty()) {  // a warp with nothing (left) to run never joins a scheduler
      exit_warp(wid, w);
      continue;
    }
    if (!w.code.done()) fetch_code(wid, w, start);
    refresh_ready(w);
    if (resume && (*resume)[i].at_barrier) {
      w.at_barrier = true;
      ++t.at_barrier;
    }
    slots_[w.scheduler].st.wake = 0;
    schedulers_[w.scheduler]->set_budget(launch->id, k.qos_budget);
    schedulers_[w.scheduler]->add_warp(wid, age_++, launch->id);
    w.scheduled = true;
    track(wid, w, w.ready);
  }
  if (nwarps == 0) {
    t.live = false;
    t.trace.reset();
    finished_.push_back({slot, start + 1});
  }
  repartition_log();
  return true;
}

std::vector<WarpPosition> SmPipeline::evict_tb(uint32_t slot, uint64_t& drained) {
  TbSlot& t = tbs_.at(slot);
  std::vector<WarpPosition> out;
  drained = std::max(drained, cycle_);
  for (uint32_t wid : t.warps) {
    Warp& w = warps_[wid];
    WarpPosition pos;
    pos.done = true;
    if (w.live && w.tb_slot == slot) {
      pos = w.code.position();
      pos.at_barrier = w.at_barrier;
      save_replays(wid, w, pos);
      fold_counts(w);
      w.live = false;
      --live_warps_;
      track(wid, w, w.ready);
      schedulers_[w.scheduler]->remove_warp(wid);
      w.scheduled = false;
    }
    if (w.tb_slot == slot) drained = std::max(drained, w.last_write);
    out.push_back(pos);
  }
  t.live = false;
  t.trace.reset();
  tb_left_log(slot);
  return out;
}


SmPipeline::Block SmPipeline::blocked(const Warp& w, uint64_t& wake) {
  if (w.at_barrier) return Block::control;
  if (w.ready > cycle_) {
    wake = w.ready;
    return w.ready > w.fetch_ready ? Block::operands : Block::control;
  }
  const Decoded& d = next_instr(w);
  const UnitClass u = d.unit;
  if (u == UnitClass::nop || u == UnitClass::barrier) return Block::none;
  const uint64_t free_at = u == UnitClass::ldst ? std::max(ldst_free_, tables_free_at(w, d, false)) : *unit_slot(w.scheduler, u);
  if (free_at <= cycle_) return Block::none;
  wake = free_at;
  return Block::unit;
}

void SmPipeline::issue_arith(uint32_t wid, Warp& w, const Decoded& d, uint64_t* unit) {
  const uint64_t c = cycle_;
  const PipelineParams& pp = p_.pipeline;
  count_issue(w, d);
  const UnitParams& up = pp.units[static_cast<int>(d.unit)];
  *unit = c + up.ii;
  const uint64_t commit = c + pp.operand_read + up.latency + pp.writeback;
  Reg* regs = w.reg_file;
  const uint32_t nregs = w.nregs;
  for (int i = 0; i < d.ndst; ++i)
    if (d.dst[i] < nregs) regs[d.dst[i]] = Reg::of(commit, false);
  w.last_write = std::max(w.last_write, commit);
  const bool waits_branch = d.unit == UnitClass::branch && pp.branch_stalls_fetch;
  w.fetch_ready = waits_branch ? commit + pp.fetch_latency : c;
  w.code.next();
  if (w.code.done()) {  // no replays pending (issue_any's condition)
    exit_warp(wid, w);
    return;
  }
  if (icache_on_) fetch_code(wid, w, waits_branch ? commit : c);
  refresh_ready(w);
}

void SmPipeline::issue_any(uint32_t wid, Warp& w) {
  const Decoded& d = w.code.head();
  if (d.unit != UnitClass::ldst && d.unit < UnitClass::barrier && !has_replays(w) && !watching(w))
    issue_arith(wid, w, d, unit_slot(w.scheduler, d.unit));
  else
    issue(wid, w);
}

bool SmPipeline::try_issue(uint32_t s, uint32_t wid, uint32_t& issued, uint32_t& first) {
  Warp& w = warps_[wid];
  if (replaying(w) && cycle_ < w.resume) {  // its fault became known
    refresh_ready(w);
    return false;
  }
  const Decoded& d = next_instr(w);
  const UnitClass u = d.unit;
  if (u != UnitClass::nop && u != UnitClass::barrier && *unit_slot(s, u) > cycle_) return false;
  if (u == UnitClass::ldst && tables_free_at(w, d, true) > cycle_) return false;
  issue_any(wid, w);
  if (first == kNoWarp) first = wid;
  // Its next instruction is already decoded: with width left it may issue in the same cycle
  // if independent ("2 instructions per cycle from 1-2 warps").
  uint64_t wake = kNever;
  if (++issued < p_.pipeline.issue_width && w.live && blocked(w, wake) == Block::none) {
    issue_any(wid, w);
    ++issued;
  }
  if (!w.live) exits_.push_back(wid);
  return true;
}

bool SmPipeline::issue_greedy(uint32_t s) {
  if (cycle_ < greedy_from_) return false;
  WarpScheduler& sched = *schedulers_[s];
  const uint32_t h = sched.segments()[0].head;  // GTO: one segment, headed by its greedy warp
  if (h == UINT32_MAX) return false;
  promote_ready(s);
  if (!(slots_[s].ready.bits >> sched.position(h) & 1)) return false;
  Warp& w = warps_[h];
  const Decoded& d = w.code.head();
  if (d.unit == UnitClass::ldst || d.unit >= UnitClass::barrier) return false;
  uint64_t* const unit = unit_slot(s, d.unit);
  if (*unit > cycle_) return false;
  issue_arith(h, w, d, unit);
  end_issue_cycle(s, w);
  // GTO's issued(h) changes nothing: h is its greedy warp already.
  if (!w.live) sched.remove_warp(h), w.scheduled = false;
  return true;
}

inline bool SmPipeline::issue_on(uint32_t s) {
  SchedulerState& st = slots_[s].st;
  if (cycle_ < st.wake) return false;  // nothing of this scheduler can issue before then
  // Its stall reason held until now; it may change below (a scheduler that issued last cycle has none).
  if (slots_[s].stalls_from < cycle_) flush_stalls(slots_[s]);
  if (issue_greedy(s)) return true;  // (a GTO scheduler without warps has no greedy one)
  WarpScheduler& sched = *schedulers_[s];
  if (sched.positions() == 0) {  // no warps (positions cover every warp of the scheduler)
    st = {kNever, -1, nullptr};
    return false;
  }
  scheduler_begin_cycle(s);
  promote_ready(s);
  // The scheduler's order, walked over the ready warps only: each segment's head, then its ready
  // positions ascending. Readiness is re-read after every issue, as a walk of order() would.
  const uint64_t& bits = slots_[s].ready.bits;
  const uint32_t width = p_.pipeline.issue_width;
  uint32_t issued = 0;
  uint32_t first = kNoWarp;
  exits_.clear();
  for (const WarpScheduler::Segment& g : sched.segments()) {
    // The segments and positions hold through the walk (exits leave the scheduler after it): read
    // once, not again after every issue attempt's stores.
    const uint32_t head = g.head, end = g.end;
    const uint64_t below_end = end >= 64 ? ~uint64_t{0} : (uint64_t{1} << end) - 1;
    if (head != UINT32_MAX && (bits >> sched.position(head) & 1)) try_issue(s, head, issued, first);
    for (uint32_t pos = g.begin; pos < end && issued < width;) {
      const uint64_t m = (bits >> pos) << pos & below_end;
      if (!m) break;
      pos = uint32_t(__builtin_ctzll(m));
      const uint32_t wid = sched.warp_at(pos++);
      if (wid != head) try_issue(s, wid, issued, first);
    }
    if (issued >= width) break;
  }
  scheduler_issued(s, first);
  for (uint32_t wid : exits_) sched.remove_warp(wid), warps_[wid].scheduled = false;  // after issued(): positions stay valid until then
  if (first != kNoWarp) end_issue_cycle(s, warps_[first]);
  else st = stalled_state(s);
  return first != kNoWarp;
}

SmPipeline::SchedulerState SmPipeline::stalled_state(uint32_t s) {
  // Same answer as looking at every warp in order (blocked()), from the ready set: its warps are
  // all held by a busy unit (nothing issued), the others wait in the wheel, the far set or at a
  // barrier. Called right after promote_ready(s) in this cycle.
  const WarpScheduler& sched = *schedulers_[s];
  const ReadySet& r = slots_[s].ready;
  SchedulerState st{kNever, -1, nullptr};
  // The earliest operand or fetch wake-up: the first occupied slot after now (now's is empty).
  for (uint64_t ahead = rotate_right(r.occupied, (cycle_ + 1) & 63); ahead; ahead &= ahead - 1) {  // bit i: cycle_ + 1 + i
    const uint64_t c = cycle_ + 1 + uint64_t(__builtin_ctzll(ahead));
    if (r.wheel[c & 63]) {  // a slot whose warps all left keeps its occupied bit until promoted
      st.wake = c;
      break;
    }
  }
  if (r.far && r.far_exact)
    st.wake = std::min(st.wake, r.far_min);
  else
    for (uint64_t m = r.far; m; m &= m - 1) st.wake = std::min(st.wake, r.due[__builtin_ctzll(m)]);
  uint64_t ldst = 0;  // of the ready warps, those held by the ld/st unit (the others by theirs)
  for (uint64_t m = r.bits; m; m &= m - 1) {
    const Warp& w = warps_[sched.warp_at(uint32_t(__builtin_ctzll(m)))];
    const Decoded& d = next_instr(w);
    if (d.unit == UnitClass::ldst) ldst |= m & -m;
    st.wake = std::min(st.wake, d.unit == UnitClass::ldst ? std::max(ldst_free_, tables_free_at(w, d, false))
                                                          : *unit_slot(s, d.unit));
  }
  // The stall reason of the most advanced warp (blocked()'s, ranked): pipe busy (ld/st 4, other
  // 3) > operands (from memory 2, arithmetic 1) > control 0; its kernel is that of the first warp
  // in order with that reason. Ranks come from the ready set's masks, so only that warp is read.
  const uint32_t n = sched.positions();
  if (n == 0) return st;
  auto below = [](uint32_t k) { return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1; };  // positions < k
  const uint64_t all = below(n);
  const uint64_t waiting = all & ~r.bits, mem = r.mem_wait & waiting, op = r.op_wait & waiting;
  uint64_t ranked;  // the positions of the top rank
  if (ldst) st.rank = 4, ranked = ldst;
  else if (r.bits) st.rank = 3, ranked = r.bits;
  else if (mem) st.rank = 2, ranked = mem;
  else if (op) st.rank = 1, ranked = op;
  else st.rank = 0, ranked = waiting & ~mem & ~op;
  if (r.kstats_all) return st.kstats = r.kstats_all, st;  // whichever warp it is
  for (const WarpScheduler::Segment& g : sched.segments()) {  // the order: each segment's head, then its positions
    uint64_t in = below(g.end) & ~below(g.begin);
    if (g.head != UINT32_MAX) {
      const uint64_t head = uint64_t{1} << sched.position(g.head);
      if (ranked & head) return st.kstats = warps_[g.head].kstats, st;
      in &= ~head;
    }
    if (const uint64_t m = ranked & in) return st.kstats = warps_[sched.warp_at(uint32_t(__builtin_ctzll(m)))].kstats, st;
  }
  return st;
}

void SmPipeline::issue(uint32_t wid, Warp& w) {
  const bool replay = replaying(w);
  // A reference, not a copy: a replay's entry stays put until erased below, and the code's head
  // until next() (a trace step or partial warp is decoded into the cursor; read `barrier` first).
  const Decoded& d = next_instr(w);
  const uint64_t c = cycle_;
  const PipelineParams& pp = p_.pipeline;
  const uint64_t at_unit = c + pp.operand_read;  // operands read: the unit takes the instruction
  count_issue(w, d);
  if (!replay && watching(w)) watch_hazards(w, d);
  uint64_t commit = c + 1;  // its results can be read (after write-back)
  bool from_memory = false, squashed = false;
  uint64_t fetch_from = c;  // the warp's fetch unit takes the next instruction (memory: refetch)
  const UnitParams& up = pp.units[static_cast<int>(d.unit)];
  switch (d.unit) {
    case UnitClass::nop:
    case UnitClass::barrier:
      break;
    case UnitClass::ldst: {
      if (running_ahead_) throw SimError("internal: a memory instruction issued while the SM ran ahead");
      if (d.space == MemSpace::none) {  // no addresses (e.g. all lanes off): one pass, no data
        ldst_free_ = c + 1;
        break;
      }
      int lanes;
      if (replay) {
        const PendingReplay& r = w.replays.front();
        std::copy(r.addrs, r.addrs + r.lanes, addr_buf_);
        lanes = r.lanes;
        addr_contiguous_ = false;
      } else {
        // A contiguous global access other than an atomic is read only by the coalescer, which
        // needs the range's ends; the rest (shared banks, local remapping, atomics) need every lane.
        const bool range_only = d.space == MemSpace::global && d.op != MemOp::atomic;
        lanes = w.code.addresses(addr_buf_, &addr_contiguous_, range_only);
      }
      const MemIssue m = execute_memory(w, d, wid, at_unit, lanes);
      ldst_free_ = c + m.busy;
      commit = m.done + pp.writeback;
      from_memory = true;  // global and shared results alike count as RAW on memory (SPEC 5)
      if (translated(d) && (m.fault || p_.fault_organization != FaultOrganization::stall_on_fault)) {
        issue_table_cycles_ = 1;
        file_memory(wid, w, d, m, commit, replay);
        // Tables slower than the issue cycle (a linked pin view or twin, or a configured latency)
        // hold the ld/st unit until they answer.
        if (issue_table_cycles_ > 1) ldst_free_ = std::max(ldst_free_, c + issue_table_cycles_);
        squashed = m.fault && p_.fault_organization != FaultOrganization::stall_on_fault;
        if (p_.fault_organization == FaultOrganization::wd_commit) fetch_from = squashed ? m.fault_at : commit;
        if (p_.fault_organization == FaultOrganization::wd_lastcheck) fetch_from = squashed ? m.fault_at : m.last_check;
      }
      break;
    }
    default:
      *unit_slot(w.scheduler, d.unit) = c + up.ii;
      commit = at_unit + up.latency + pp.writeback;
      break;
  }
  // A squashed instruction's results come with its replay: readers wait until then.
  const uint64_t written = squashed ? kAwaitingReplay : commit;
  for (int i = 0; i < d.ndst; ++i)  // through the warp's first line (reg_file), not the vector's further down
    if (d.dst[i] < w.nregs) w.reg_file[d.dst[i]] = Reg::of(written, from_memory);
  if (!squashed) w.last_write = std::max(w.last_write, commit);
  // Fetch: disabled after a control-flow instruction until it commits, after a memory
  // instruction until it issues (now; warp disable: until it commits or passes its last TLB
  // check); otherwise the next instruction is already decoded.
  const bool waits_branch = d.unit == UnitClass::branch && pp.branch_stalls_fetch;
  const uint64_t fetch_at = waits_branch ? commit : fetch_from;
  w.fetch_ready = waits_branch || d.unit == UnitClass::ldst ? fetch_at + pp.fetch_latency
                                                            : c;  // fetched ahead: free to issue now or next cycle
  if (d.op == MemOp::atomic && pp.atomics_block_warp) w.fetch_ready = std::max(w.fetch_ready, commit);
  if (replay) {  // the code's head was fetched before the fault: the cursor stays
    if (!squashed) {
      w.replays.erase(w.replays.begin());
      ++stats_.replays, ++w.kstats->replays;
      if (w.replays.empty()) w.halt_from = kNever, w.resume = 0, --faulted_warps_, note_faults();
    }
    if (w.code.done() && w.replays.empty()) exit_warp(wid, w);
    else refresh_ready(w);
    return;
  }
  const bool barrier = d.unit == UnitClass::barrier;
  w.code.next();
  if (w.code.done() && w.replays.empty()) {
    exit_warp(wid, w);
    return;
  }
  if (icache_on_ && !w.code.done()) fetch_code(wid, w, fetch_at);
  if (barrier) {
    barrier_arrive(w);
    return;
  }
  refresh_ready(w);
}

void SmPipeline::fetch_code(uint32_t wid, Warp& w, uint64_t at) {
  if (!p_.icache.enabled()) return;
  const uint64_t line = (w.code_base + w.code.head().pc) / p_.icache.line_bytes;
  if (line == w.fetch_line) return;  // same line: fetched ahead with the previous instruction
  w.fetch_line = line;
  ++stats_.icache_accesses, ++w.kstats->icache_accesses;
  const auto lk = icache_.lookup(line, at);
  uint64_t ready = at + p_.icache.latency;
  if (lk.outcome == L1dCache::Outcome::merged) {
    ready = std::max(ready, lk.ready + p_.icache.latency);
  } else if (lk.outcome == L1dCache::Outcome::miss) {
    ++stats_.icache_misses, ++w.kstats->icache_misses;
    const uint64_t send = icache_.mshr_free_at(at);
    const TbSlot& t = tbs_[w.tb_slot];
    MemAccess a{line * p_.icache.line_bytes, p_.icache.line_bytes, AccessKind::instruction, send, t.launch, t.tb, wid};
    const uint64_t fill = port_.access(a);
    icache_.miss(line, send, fill, true);
    ready = fill + p_.icache.latency;
  }
  w.fetch_ready = std::max(w.fetch_ready, ready);
}

void SmPipeline::refresh_ready(Warp& w) {
  const bool faulted = has_replays(w);  // read once
  const bool replay_due = faulted && (cycle_ >= w.halt_from || w.code.done());
  const Decoded& d = w.code.head();
  const Reg* regs = w.reg_file;
  const uint32_t nregs = w.nregs;
  uint64_t key = Reg::key(w.fetch_ready);  // of the latest cycle found so far
  bool mem = false;
  auto check = [&](uint16_t r) {
    if (r < nregs && regs[r].word > key) {  // its ready cycle is later
      key = regs[r].word | 1;
      mem = regs[r].from_memory();
    }
  };
  if (!replay_due) {
    for (int i = 0; i < d.nsrc; ++i) check(d.src[i]);  // RAW
    if (sources_held_) {
      for (int i = 0; i < d.ndst; ++i) {  // WAW; WAR ends at operand read (early release),
        check(d.dst[i]);                  // replay_queue: at the reader's last TLB check
        if (d.dst[i] < nregs) key = std::max(key, Reg::key(w.released[d.dst[i]]));
      }
    } else {  // WAW of the destinations not read (a source's check covered the others); no release is held
      for (uint32_t m = d.waw; m; m &= m - 1) check(d.dst[__builtin_ctz(m)]);
    }
  }
  uint64_t ready = key >> 1;
  // From the moment a fault is known the warp issues nothing until it is handled; then it replays.
  if (replay_due || (faulted && ready >= w.halt_from)) ready = w.resume, mem = true;
  const uint64_t filed_ready = w.ready;
  w.ready = ready;
  w.waits_memory = mem;
  track(uint32_t(&w - warps_.data()), w, filed_ready);
}

void SmPipeline::add_counts(PipelineStats& ks, const Warp& w) {
  ks.warp_instructions += w.issued_here;
  ks.thread_instructions += w.threads_here;
  ks.issue_cycles += w.issue_cycles_here;
}

void SmPipeline::fold_counts(Warp& w) {
  tbs_[w.tb_slot].issued += w.issued_here;
  add_counts(*w.kstats, w);
  w.issued_here = w.threads_here = w.issue_cycles_here = 0;
}

uint64_t SmPipeline::tb_issued(uint32_t slot) const {
  const TbSlot& t = tbs_.at(slot);
  uint64_t n = t.issued;
  if (t.live)
    for (uint32_t wid : t.warps)
      if (warps_[wid].live && warps_[wid].tb_slot == slot) n += warps_[wid].issued_here;
  return n;
}

std::map<uint32_t, PipelineStats> SmPipeline::kernel_stats() const {
  std::map<uint32_t, PipelineStats> out = per_kernel_;
  for (const Warp& w : warps_)  // counts not yet folded (a run stopped with warps still running)
    if (w.live) add_counts(out.at(tbs_[w.tb_slot].launch->id), w);
  return out;
}

void SmPipeline::exit_warp(uint32_t wid, Warp& w) {
  if (running_ahead_) throw SimError("internal: a warp exited while the SM ran ahead");
  fold_counts(w);
  w.live = false;
  --live_warps_;
  track(wid, w, w.ready);
  TbSlot& t = tbs_[w.tb_slot];
  t.done = std::max({t.done, w.last_write, cycle_ + 1});
  if (--t.warps_live == 0) {
    t.live = false;
    t.trace.reset();
    finished_.push_back({w.tb_slot, t.done});
    tb_left_log(w.tb_slot);
  } else if (t.at_barrier == t.warps_live) {
    // The warps still at the barrier no longer wait for this one.
    barrier_release(t);
  }
}

void SmPipeline::barrier_arrive(Warp& w) {
  TbSlot& t = tbs_[w.tb_slot];
  w.at_barrier = true;
  track(uint32_t(&w - warps_.data()), w, w.ready);
  if (++t.at_barrier == t.warps_live) barrier_release(t);
}

void SmPipeline::barrier_release(TbSlot& t) {
  t.at_barrier = 0;
  for (uint32_t wid : t.warps) {
    Warp& o = warps_[wid];
    if (!o.live || !o.at_barrier) continue;
    o.at_barrier = false;
    o.fetch_ready = std::max(o.fetch_ready, cycle_ + p_.pipeline.barrier_latency);
    refresh_ready(o);
    slots_[o.scheduler].st.wake = 0;
  }
}

void SmPipeline::count_stall(const SchedulerState& st, uint64_t cycles) {
  static constexpr uint64_t PipelineStats::*kField[] = {
      &PipelineStats::stall_idle_control, &PipelineStats::stall_raw_compute, &PipelineStats::stall_raw_memory,
      &PipelineStats::stall_compute_pipe, &PipelineStats::stall_memory_pipe};
  const auto field = kField[std::max(st.rank, 0)];
  stats_.*field += cycles;
  if (st.kstats) st.kstats->*field += cycles;
}

void SmPipeline::flush_stalls(SchedulerSlot& sl) {
  if (sl.stalls_from < cycle_) count_stall(sl.st, cycle_ - sl.stalls_from);
  sl.stalls_from = cycle_;
}

void SmPipeline::skip_to(uint64_t c) {
  for (SchedulerSlot& sl : slots_) flush_stalls(sl);  // those up to now were stalls
  cycle_ = c;
  for (SchedulerSlot& sl : slots_) sl.stalls_from = c;
}

void SmPipeline::account_memory_stall(uint64_t cycles) {
  // MIAS's M: a cycle with no issue counts when a scheduler waits on memory (ranks as kField).
  constexpr int kRawMemory = 2, kMemoryPipe = 4;
  bool memory_wait = false;
  for (const SchedulerSlot& sl : slots_) memory_wait |= sl.st.rank == kRawMemory || sl.st.rank == kMemoryPipe;
  if (!memory_wait) return;
  sharing_.mem_stall_cycles += cycles;
  if (l1d_.tracks_outstanding()) {
    const uint64_t before = l1d_.outstanding_integral(cycle_);  // read in time order
    sharing_.outstanding += l1d_.outstanding_integral(cycle_ + cycles) - before;
  }
}

uint64_t SmPipeline::run_until(uint64_t limit, CycleMarks* visited) {
  while (cycle_ < limit) {
    if (live_warps_ == 0) {
      skip_to(limit);
      break;
    }
    if (visited) visited->mark(cycle_);
    uint32_t n_issued = 0;
    for (uint32_t s = 0, n = uint32_t(slots_.size()); s < n; ++s) n_issued += issue_on(s);
    uint64_t step = 1;
    if (!n_issued) {
      const uint64_t next = next_issue_cycle();
      step = next == kNever ? limit - cycle_ : std::clamp<uint64_t>(next - cycle_, 1, limit - cycle_);
      account_memory_stall(step);
    }
    stats_.issue_cycles += n_issued;
    cycle_ += step;
    if (!finished_.empty()) break;
  }
  for (SchedulerSlot& sl : slots_) flush_stalls(sl);  // none pending between calls: stats() may be read
  return cycle_;
}

}  // namespace mpgpu
