#pragma once
// One decoded warp instruction as the warp-level SM pipeline sees it, whatever its source
// (a YAML warp program or an Accel-Sim SASS trace): its unit class, registers and memory access.
#include <cstdint>
#include <string>

namespace mpgpu {

// Functional-unit class an instruction issues to (SPEC 1: math, SFU, ld/st, branch units).
enum class UnitClass : uint8_t {
  sp,        // single-precision / integer ALU (FADD, IADD, MOV, ...)
  fma,       // fused multiply-add pipe (FFMA, FMUL, IMAD, ...)
  dp,        // double precision
  sfu,       // special functions (MUFU, ...), conversions
  tensor,    // matrix units (HMMA, ...)
  ldst,      // memory instructions: the ld/st unit feeds the shared- and global-memory pipelines
  branch,    // control flow: BRA, loop back-edges, EXIT
  barrier,   // BAR.SYNC: handled by the SM's barrier unit
  nop,       // no unit (NOP, DEPBAR, ...): issues and retires in one cycle
};
constexpr int kUnitClasses = 9;
const char* unit_class_name(UnitClass c);

// What a memory instruction touches.
enum class MemSpace : uint8_t { none, global, shared, local, constant };
enum class MemOp : uint8_t { none, load, store, atomic };

// Ends a TB's relaxed idempotence (SPEC 4): an atomic, or a store to global memory.
inline bool overwrites_memory(MemSpace space, MemOp op) {
  return op == MemOp::atomic || (space == MemSpace::global && op == MemOp::store);
}

// Register numbers (per thread); kNoReg = unused operand slot. R255 (RZ) is never a dependency.
constexpr uint16_t kNoReg = 0xffff;
constexpr int kMaxDst = 4, kMaxSrc = 4;
// The destinations that are none of the sources, as bits of dst[]: only their WAW check is not
// already a RAW check (the issue stage's scoreboard skips the others).
inline uint8_t waw_only(const uint16_t* dst, int ndst, const uint16_t* src, int nsrc) {
  uint8_t m = 0;
  for (int i = 0; i < ndst; ++i) {
    bool read = false;
    for (int j = 0; j < nsrc; ++j) read |= src[j] == dst[i];
    if (!read) m |= uint8_t(1u << i);
  }
  return m;
}
// Warp-program loops nest at most this deep: a warp keeps one iteration counter per level.
constexpr uint32_t kMaxLoopDepth = 8;

}  // namespace mpgpu
