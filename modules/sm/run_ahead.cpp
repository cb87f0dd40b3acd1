#include "sm/run_ahead.hpp"

#include <algorithm>

namespace mpgpu {

LoopSpans::LoopSpans(const WarpProgram& p)
    : p_(p), body_external_(p.instrs.size(), 0), body_length_(p.instrs.size(), 0) {
  // Back-edges in program order: an inner loop's back-edge comes before its outer loop's, so the
  // inner one's length is known when the outer body is summed.
  for (uint32_t e = 0; e < p.instrs.size(); ++e) {
    const ProgInstr& b = p.instrs[e];
    if (!b.back_edge) continue;
    uint64_t length = 0;
    bool external = false;
    for (uint32_t pc = b.target; pc <= e; ++pc) {
      const ProgInstr& i = p.instrs[pc];
      external |= i.unit == UnitClass::ldst;
      ++length;
      if (i.back_edge && pc != e) length += uint64_t(i.count - 1) * body_length_[pc];  // its other iterations
    }
    body_external_[e] = external;
    body_length_[e] = length;
  }
}

uint64_t LoopSpans::before_external(uint32_t pc, const uint32_t* iter_in, uint32_t max_steps) const {
  const auto& code = p_.instrs;
  const uint32_t n = uint32_t(code.size());
  uint32_t iter[kMaxLoopDepth];
  std::copy(iter_in, iter_in + kMaxLoopDepth, iter);
  uint64_t before = 0;
  for (uint32_t step = 0; step < max_steps && pc < n; ++step) {
    const ProgInstr& i = code[pc];
    if (i.unit == UnitClass::ldst) return before;
    uint64_t issued = 1;  // instructions from this one up to the next position
    uint32_t next = pc + 1;
    if (i.back_edge) {
      uint32_t& k = iter[i.depth - 1];  // iterations completed before this one
      if (!body_external_[pc]) {        // the rest of the loop runs whole, inside the SM
        issued += uint64_t(i.count - 1 - k) * body_length_[pc];
        k = 0;
      } else if (k + 1 < i.count) {
        ++k;
        next = i.target;
      } else {
        k = 0;
      }
    }
    if (next >= n) return before + issued - 1;  // the last of them exits the warp
    before += issued;
    pc = next;
  }
  return before;
}

}  // namespace mpgpu
