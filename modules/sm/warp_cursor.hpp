#pragma once
// Where a warp is in its code: a position in a YAML warp program (with loop counters) or in a
// SASS trace. The pipeline sees only the decoded head instruction and its lane addresses.
#include <algorithm>
#include <iterator>
#include <cstdint>
#include <vector>

#include "workload/kernel.hpp"
#include "workload/program.hpp"
#include "workload/trace.hpp"

namespace mpgpu {

struct Decoded {
  UnitClass unit = UnitClass::nop;
  MemSpace space = MemSpace::none;
  MemOp op = MemOp::none;
  uint8_t ndst = 0, nsrc = 0, width = 0;
  // Bit i: dst[i] is none of the sources, so its WAW check is not already a RAW check (waw_only).
  uint8_t waw = 0;
  uint32_t lanes = 0;  // active lanes
  uint32_t pc = 0;     // byte offset of the instruction in its kernel's code (instruction fetch)
  // Copied out of the record: the issue stage reads them later, when a trace record's cache line
  // may have been evicted again.
  uint16_t dst[kMaxDst] = {kNoReg, kNoReg, kNoReg, kNoReg};
  uint16_t src[kMaxSrc] = {kNoReg, kNoReg, kNoReg, kNoReg};
};
static_assert(sizeof(Decoded) == 32, "a decoded instruction is half a cache line");

// A warp program's instructions decoded once for the SM (full warps; `pc` in bytes at the
// platform's instruction size): a program warp's head is an entry of it, not a copy per step.
inline std::vector<Decoded> decode_program(const WarpProgram& p, uint32_t instruction_bytes) {
  std::vector<Decoded> out(p.instrs.size());
  for (size_t pc = 0; pc < p.instrs.size(); ++pc) {
    const ProgInstr& i = p.instrs[pc];
    Decoded& d = out[pc];
    d = {i.unit, i.space, i.op, i.ndst, i.nsrc, i.width, 0, i.active_lanes, uint32_t(pc) * instruction_bytes};
    std::copy(std::begin(i.dst), std::end(i.dst), d.dst);
    std::copy(std::begin(i.src), std::end(i.src), d.src);
    d.waw = waw_only(d.dst, d.ndst, d.src, d.nsrc);
  }
  return out;
}

class WarpCursor {
 public:
  WarpCursor() = default;
  // The head may point into the cursor itself (a trace step, a partial warp): copies rebind it.
  WarpCursor(const WarpCursor& o) { *this = o; }
  WarpCursor& operator=(const WarpCursor& o) {
    prog_ = o.prog_, decoded_ = o.decoded_, tb_ = o.tb_, trace_ = o.trace_, coords_ = o.coords_;
    pc_ = o.pc_, lanes_ = o.lanes_, done_ = o.done_, count_ = o.count_, own_ = o.own_;
    std::copy(std::begin(o.iter_), std::end(o.iter_), iter_);
    head_ = o.head_ == &o.own_ ? &own_ : o.head_;
    return *this;
  }
  // `lanes`: threads of the TB in this warp (fewer than the warp size in a partial last warp).
  // `decoded`: decode_program(*p, ...), which outlives the cursor.
  void start_program(const WarpProgram* p, const Decoded* decoded, const LaneCoords& coords, uint32_t lanes) {
    prog_ = p;
    count_ = static_cast<uint32_t>(p->instrs.size());
    decoded_ = decoded;
    lanes_ = lanes;
    trace_ = nullptr;
    coords_ = coords;
    pc_ = 0;
    for (auto& i : iter_) i = 0;
    decode();
  }
  void start_trace(const TraceTbView* tb, const TraceWarpView* w) {
    prog_ = nullptr;
    tb_ = tb;
    trace_ = w;
    pc_ = 0;
    decode();
  }
  bool done() const { return done_; }
  WarpPosition position() const {
    WarpPosition w;
    w.pc = pc_;
    std::copy(iter_, iter_ + kMaxLoopDepth, w.iter);
    w.done = done_;
    return w;
  }
  // Continues from a saved position (after start_program / start_trace of the same code).
  void resume(const WarpPosition& w) {
    pc_ = w.pc;
    std::copy(w.iter, w.iter + kMaxLoopDepth, iter_);
    decode();
  }
  const Decoded& head() const { return *head_; }
  // A program's position (run-ahead's look at the code ahead, sm/run_ahead.hpp).
  uint32_t pc() const { return pc_; }
  const uint32_t* iterations() const { return iter_; }

  // Addresses of the head's active lanes; returns how many. *contiguous (when given): true when
  // each lane's address is known to follow the previous one's by the access width; then, with
  // `range_only`, only the first and last lane's are written (lane_addresses).
  int addresses(uint64_t* out, bool* contiguous = nullptr, bool range_only = false) const {
    if (contiguous) *contiguous = false;
    if (trace_) {
      const TraceStep& t = trace_->steps[pc_];
      const int n = static_cast<int>(own_.lanes);  // t's active lanes, counted once in decode
      for (int i = 0; i < n; ++i) out[i] = tb_->addresses[t.addr_begin + i];
      return n;
    }
    const ProgInstr& i = prog_->instrs[pc_];
    LaneCoords c = coords_;
    c.iter = i.depth ? iter_[i.depth - 1] : 0;
    c.pc = pc_;
    const AddressExpr& e = prog_->addresses[i.addr];
    const uint64_t align = ~uint64_t(i.width - 1);
    const uint32_t n = std::min(i.active_lanes, lanes_);
    const bool run = lane_addresses(e, c, n, align, out, range_only && contiguous != nullptr);
    if (contiguous) *contiguous = run;
    return static_cast<int>(n);
  }

  void next() {
    if (trace_) {
      ++pc_;
      // Records stream from a mapping far larger than the caches, one warp among many: fetch a
      // few ahead so that later decodes find them in cache (a prefetch past the end is harmless).
      __builtin_prefetch(trace_->steps + pc_ + kPrefetchAhead);
      decode();
      return;
    }
    if (head_->unit == UnitClass::branch) {  // only a loop's back-edge (a branch) may jump
      const ProgInstr& i = prog_->instrs[pc_];
      if (i.back_edge && ++iter_[i.depth - 1] < i.count) {
        pc_ = i.target;
      } else {
        if (i.back_edge) iter_[i.depth - 1] = 0;
        ++pc_;
      }
    } else {
      ++pc_;
    }
    head_from_table();
  }

 private:
  static constexpr uint32_t kPrefetchAhead = 8;  // steps: about 1.5 cache lines

  void decode() {
    if (trace_) {
      done_ = pc_ >= trace_->count;
      if (done_) return;
      const TraceStep& step = trace_->steps[pc_];
      const TraceOp& t = tb_->ops[step.op];
      // A trace line without addresses (e.g. a predicated-off access) moves no data.
      const uint32_t lanes = static_cast<uint32_t>(__builtin_popcount(step.mask));
      const bool mem = t.mem_width > 0 && lanes > 0;
      own_ = {t.unit, mem ? t.space : MemSpace::none, mem ? t.op : MemOp::none, t.ndst, t.nsrc,
              t.mem_width, 0, lanes, t.pc};
      std::copy(std::begin(t.dst), std::end(t.dst), own_.dst);
      std::copy(std::begin(t.src), std::end(t.src), own_.src);
      own_.waw = t.waw;
      head_ = &own_;
      return;
    }
    head_from_table();
  }
  void head_from_table() {  // a program's head: its entry of decoded_
    done_ = pc_ >= count_;
    if (done_) return;
    head_ = &decoded_[pc_];
    if (head_->lanes > lanes_) {  // a partial last warp: fewer lanes than the decoded full warp
      own_ = *head_;
      own_.lanes = lanes_;
      head_ = &own_;
    }
  }

  // Hot (read on every issue) first: the pipeline keeps the cursor in its warp's hot lines.
  const Decoded* head_ = &own_;
  uint32_t pc_ = 0;
  uint32_t lanes_ = 32;
  bool done_ = true;
  uint32_t count_ = 0;  // a program's instructions (prog_->instrs.size(), read on every step)
  const TraceWarpView* trace_ = nullptr;
  const Decoded* decoded_ = nullptr;  // prog_'s instructions, decoded
  const WarpProgram* prog_ = nullptr;
  const TraceTbView* tb_ = nullptr;
  uint32_t iter_[kMaxLoopDepth] = {};
  LaneCoords coords_{};
  Decoded own_;                  // the head when it is not an entry of decoded_
};

}  // namespace mpgpu
