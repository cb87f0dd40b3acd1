#pragma once
// Warp-level kernel programs (DESIGN, Workloads: fidelity 2): a small instruction list written in
// YAML, flattened so that loops become counted back-edge branches. Every warp of every TB runs
// the same program; addresses come from expressions in the thread, warp, TB and loop iteration.
#include <cstdint>
#include <string>
#include <vector>

#include "common/config_node.hpp"
#include "workload/instruction.hpp"

namespace mpgpu {

// Address of one lane: affine in its coordinates, or pseudo-random in a range (irregular access).
struct AddressExpr {
  enum class Kind { affine, random } kind = Kind::affine;
  uint64_t base = 0;
  // affine: bytes per unit of each coordinate (tid: thread in TB; gtid: thread in grid;
  // lane: lane in warp; warp: warp in TB; tb: TB in grid; iter: innermost loop iteration).
  int64_t tid = 0, gtid = 0, lane = 0, warp = 0, tb = 0, iter = 0;
  uint64_t wrap = 0;  // affine: offset taken modulo wrap (0: no wrap), to bound a working set
  // affine: the address is XORed with tb_xor[k] for every set bit k of the TB index (a swizzle:
  // TBs told apart by address bits that addition cannot reach without carries, e.g. lines of one
  // L2 set and DRAM bank under an XOR hash). Bits of the TB index beyond the list are ignored.
  static constexpr uint32_t kTbXorBits = 16;
  uint64_t tb_xor[kTbXorBits] = {};
  uint8_t tb_xor_bits = 0;
  // random: uniformly in [base, base + range), aligned to the access width.
  uint64_t range = 0, seed = 0;
};

struct ProgInstr {
  UnitClass unit = UnitClass::sp;
  MemSpace space = MemSpace::none;
  MemOp op = MemOp::none;
  uint8_t ndst = 0, nsrc = 0;
  uint8_t width = 4;          // bytes per thread of a memory access
  uint16_t dst[kMaxDst] = {kNoReg, kNoReg, kNoReg, kNoReg};
  uint16_t src[kMaxSrc] = {kNoReg, kNoReg, kNoReg, kNoReg};
  uint32_t active_lanes = 32;  // lanes 0..active_lanes-1 execute
  int32_t addr = -1;           // index into WarpProgram::addresses
  uint8_t depth = 0;           // loops enclosing this instruction
  // A loop back-edge (unit branch): jump to `target` until the loop ran `count` times.
  bool back_edge = false;
  uint32_t count = 0, target = 0;
};

struct WarpProgram {
  std::vector<ProgInstr> instrs;
  std::vector<AddressExpr> addresses;
  uint32_t max_register = 0;  // highest register number used, +1
  // Warp instructions one warp executes (back-edges included), for checks and stats.
  uint64_t instructions_per_warp() const;
};

// Parses a `program:` node: {active_fraction?, body: [...]}. Register names are r0..r254.
// `grid_threads`: the kernel's grid x threads_per_tb (an address's grid_stride scales by it).
WarpProgram parse_program(const ConfigNode& n, uint32_t warp_size, uint64_t grid_threads);

// Lanes' addresses of a memory instruction for warp `warp_in_tb` of TB `tb`.
struct LaneCoords {
  uint32_t tb, warp_in_tb, threads_per_tb, warp_size;
  uint32_t iter;  // iteration of the innermost enclosing loop
  uint32_t pc;
};
uint64_t lane_address(const AddressExpr& e, const LaneCoords& c, uint32_t lane);
// Lanes 0..n-1 at once, each ANDed with `align`: the same as lane_address per lane. True when
// known contiguous: out[l] == out[0] + l * width for width = ~align + 1 (the coalescer's fast case).
// `range_only`: when contiguous, only out[0] and out[n - 1] are written (all a coalescer of a
// contiguous range reads); otherwise every lane, as without it.
bool lane_addresses(const AddressExpr& e, const LaneCoords& c, uint32_t n, uint64_t align, uint64_t* out,
                    bool range_only = false);

}  // namespace mpgpu
