#pragma once
// Run-ahead at quantum 1 (docs/architecture.md, Run-ahead): how far a warp's code goes before it
// can next reach outside its SM. An SM whose every warp is far from such an instruction may run
// those cycles without the calendar, because nothing another block could see happens in them.
//
// "Outside" is any memory instruction (ld/st unit: the L1, crossbar, TLB and fill unit) and a
// warp's last instruction (its exit may end a TB, which the SM reports).
#include <cstdint>
#include <vector>

#include "workload/program.hpp"

namespace mpgpu {

// Per loop of a warp program, indexed by its back-edge: whether its body holds a memory
// instruction, and the instructions one iteration of it executes (nested loops counted whole).
class LoopSpans {
 public:
  explicit LoopSpans(const WarpProgram& p);
  // Instructions a warp at `pc` (loop counters `iter`, as WarpCursor keeps them) issues before
  // its next memory or last instruction: a lower bound, exact unless the walk reached `max_steps`
  // program positions first.
  uint64_t before_external(uint32_t pc, const uint32_t* iter, uint32_t max_steps = 64) const;

 private:
  const WarpProgram& p_;
  std::vector<uint8_t> body_external_;
  std::vector<uint64_t> body_length_;
};

// The cycles at which the SM calendar's clients that ran ahead would have been due (each a time
// the calendar would have run at): its rotating start moves on by their count, as if it had.
class CycleMarks {
 public:
  void reset(uint64_t first, uint64_t end) {
    first_ = first;
    words_.assign((end - first + 63) / 64, 0);
    marked_ = 0;
  }
  // `step`: a client's step (counted in marked()), not only a time the calendar would have run at.
  void mark(uint64_t c, bool step = true) {
    words_[(c - first_) >> 6] |= uint64_t{1} << ((c - first_) & 63);
    marked_ += step;
  }
  uint64_t marked() const { return marked_; }  // marks made (client steps), not distinct cycles
  uint64_t count() const {
    uint64_t n = 0;
    for (uint64_t w : words_) n += uint64_t(__builtin_popcountll(w));
    return n;
  }

 private:
  uint64_t first_ = 0, marked_ = 0;
  std::vector<uint64_t> words_;
};

}  // namespace mpgpu
