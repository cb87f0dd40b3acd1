#pragma once
// Where a warp is in its code: a position in a YAML warp program (with loop counters) or in a
// SASS trace. The pipeline sees only the decoded head instruction and its lane addresses.
#include <algorithm>
#include <cstdint>

#include "workload/kernel.hpp"
#include "workload/program.hpp"
#include "workload/trace.hpp"

namespace mpgpu {

struct Decoded {
  UnitClass unit = UnitClass::nop;
  MemSpace space = MemSpace::none;
  MemOp op = MemOp::none;
  uint8_t ndst = 0, nsrc = 0, width = 0;
  uint32_t lanes = 0;  // active lanes
  uint32_t pc = 0;     // byte offset of the instruction in its kernel's code (instruction fetch)
  const uint16_t* dst = nullptr;
  const uint16_t* src = nullptr;
};

class WarpCursor {
 public:
  // `lanes`: threads of the TB in this warp (fewer than the warp size in a partial last warp).
  void start_program(const WarpProgram* p, const LaneCoords& coords, uint32_t lanes, uint32_t instruction_bytes = 8) {
    prog_ = p;
    instruction_bytes_ = instruction_bytes;
    lanes_ = lanes;
    trace_ = nullptr;
    coords_ = coords;
    pc_ = 0;
    for (auto& i : iter_) i = 0;
    decode();
  }
  void start_trace(const TraceTb* tb, const TraceWarp* w) {
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
    for (int i = 0; i < 8; ++i) w.iter[i] = iter_[i];
    w.done = done_;
    return w;
  }
  // Continues from a saved position (after start_program / start_trace of the same code).
  void resume(const WarpPosition& w) {
    pc_ = w.pc;
    for (int i = 0; i < 8; ++i) iter_[i] = w.iter[i];
    decode();
  }
  const Decoded& head() const { return head_; }

  // Addresses of the head's active lanes; returns how many.
  int addresses(uint64_t* out) const {
    if (trace_) {
      const TraceInstr& t = trace_->instrs[pc_];
      const int n = static_cast<int>(t.active_lanes());
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
    for (uint32_t l = 0; l < n; ++l) out[l] = lane_address(e, c, l) & align;
    return static_cast<int>(n);
  }

  void next() {
    if (trace_) {
      ++pc_;
    } else {
      const ProgInstr& i = prog_->instrs[pc_];
      if (i.back_edge && ++iter_[i.depth - 1] < i.count) {
        pc_ = i.target;
      } else {
        if (i.back_edge) iter_[i.depth - 1] = 0;
        ++pc_;
      }
    }
    decode();
  }

 private:
  void decode() {
    if (trace_) {
      done_ = pc_ >= trace_->instrs.size();
      if (done_) return;
      const TraceInstr& t = trace_->instrs[pc_];
      // A trace line without addresses (e.g. a predicated-off access) moves no data.
      const bool mem = t.mem_width > 0 && t.active_lanes() > 0;
      head_ = {t.unit, mem ? t.space : MemSpace::none, mem ? t.op : MemOp::none, t.ndst, t.nsrc,
               t.mem_width, t.active_lanes(), t.pc, t.dst, t.src};
      return;
    }
    done_ = pc_ >= prog_->instrs.size();
    if (done_) return;
    const ProgInstr& i = prog_->instrs[pc_];
    head_ = {i.unit, i.space, i.op, i.ndst, i.nsrc, i.width, std::min(i.active_lanes, lanes_), pc_ * instruction_bytes_,
             i.dst, i.src};
  }

  const WarpProgram* prog_ = nullptr;
  const TraceTb* tb_ = nullptr;
  const TraceWarp* trace_ = nullptr;
  LaneCoords coords_{};
  uint32_t pc_ = 0;
  uint32_t lanes_ = 32;
  uint32_t instruction_bytes_ = 8;
  uint32_t iter_[8] = {};
  bool done_ = true;
  Decoded head_;
};

}  // namespace mpgpu
