#pragma once
// Reader for Accel-Sim SASS traces (DESIGN, Workloads: fidelity 3): a `kernelslist.g` command
// list and one `kernel-N.traceg` per kernel launch, as written by the Accel-Sim NVBit tracer and
// its post-processor. read_traceg parses a whole file into memory; open_traceg streams it: the
// text is parsed once, thread block by thread block, into a compact binary copy cached beside
// the trace (trace_cache.hpp), and the simulation loads each thread block from it when the block
// is dispatched, so memory stays bounded by the resident blocks whatever the trace's size.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workload/instruction.hpp"

namespace mpgpu {

// Unit class and memory behaviour of one SASS opcode.
struct OpcodeInfo {
  UnitClass unit;
  MemSpace space;
  MemOp op;
};

// Maps a full SASS opcode ("LDG.E.SYS", "FFMA", "BAR.SYNC", "ATOMG.E.ADD") to its class by the part
// before the first '.', from a table covering Fermi..Ampere opcodes (opcode_table.cpp).
// Returns nullopt for an opcode not in the table.
std::optional<OpcodeInfo> lookup_opcode(const std::string& opcode);

// The static part of a trace instruction: the same each time its line recurs (a loop body is
// listed once per iteration), so a kernel keeps each distinct one once (TraceKernel::ops).
struct TraceOp {
  uint32_t pc = 0;
  uint16_t dst[kMaxDst] = {kNoReg, kNoReg, kNoReg, kNoReg};  // R-registers only; kNoReg when unused
  uint16_t src[kMaxSrc] = {kNoReg, kNoReg, kNoReg, kNoReg};
  uint8_t ndst = 0, nsrc = 0;
  uint16_t opcode = 0;  // index into TraceKernel::opcodes
  UnitClass unit = UnitClass::sp;
  MemSpace space = MemSpace::none;
  MemOp op = MemOp::none;
  uint8_t mem_width = 0;  // bytes per thread; 0: the trace carries no addresses
  uint8_t waw = 0;        // waw_only(dst, src), once per distinct instruction
  uint8_t spare[3] = {};  // no padding: the struct is hashed as bytes
};

// One executed instruction as the simulation streams it: 12 bytes instead of a whole line's
// decode, so that a large trace's records cost a third of the memory traffic.
struct TraceStep {
  uint32_t op = 0;  // index into TraceKernel::ops
  uint32_t mask = 0;
  uint32_t addr_begin = 0;
};

// One instruction line as parsed: its static part and what varies per execution.
struct TraceInstr : TraceOp {
  uint32_t mask = 0;        // active lanes (the tracer already folds the guard predicate in)
  uint32_t addr_begin = 0;  // first of popcount(mask) addresses in TraceTb::addresses
  uint32_t op_index = 0;    // its static part in TraceKernel::ops
  uint32_t active_lanes() const { return static_cast<uint32_t>(__builtin_popcount(mask)); }
  TraceStep step() const { return {op_index, mask, addr_begin}; }
};


struct TraceWarp {
  std::vector<TraceInstr> instrs;
};

struct TraceTb {
  uint32_t x = 0, y = 0, z = 0;
  std::vector<TraceWarp> warps;     // indexed by warp id in the TB
  std::vector<uint64_t> addresses;  // its lanes' addresses; TraceInstr::addr_begin indexes here
};

// A thread block as the SM reads it: views of records held elsewhere, either a TraceTb of a
// kernel read into memory or the thread block's bytes mapped from the binary copy (no copy made).
struct TraceWarpView {
  const TraceStep* steps = nullptr;
  uint32_t count = 0;
};
struct TraceTbView {
  uint32_t x = 0, y = 0, z = 0;
  std::vector<TraceWarpView> warps;
  const uint64_t* addresses = nullptr;
  uint32_t address_count = 0;
  const TraceOp* ops = nullptr;  // the kernel's static instructions
  virtual ~TraceTbView() = default;  // a mapped block unmaps its bytes when the last holder drops it
};

class TraceTbStore;

struct TraceKernel {
  std::string file, name;
  uint32_t id = 0, grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shmem = 0, nregs = 0, binary_version = 0;
  uint64_t stream = 0;  // the tracer prints the CUstream handle, a pointer value
  uint32_t tracer_version = 0;  // 0 when the header lacks it: the oldest (prefixed) line format
  bool lineinfo = false;        // lines start with a source line number
  std::string nvbit_version;
  uint64_t shmem_base = 0, local_base = 0;
  std::vector<std::string> opcodes;  // distinct full opcodes seen, in order of first use
  std::vector<TraceOp> ops;          // distinct static instructions, in order of first use
  std::vector<TraceTb> tbs;          // in file order, when read into memory (read_traceg)
  std::shared_ptr<const TraceTbStore> store;  // otherwise: loaded from the binary copy on demand
  uint32_t tb_records = 0;     // thread blocks in the file
  uint64_t instructions = 0;   // warp instructions in the file
  uint32_t register_span = 0;  // 1 + the highest general-purpose register any instruction names
  uint64_t instruction_count() const { return instructions; }
  // Thread block `i` of the file (file order): a view of memory or of the store's mapped bytes.
  // A view of memory is valid while this kernel lives.
  std::shared_ptr<const TraceTbView> tb(uint32_t i) const;
  uint32_t threads_per_tb() const;
  uint32_t warps_per_tb() const;  // threads_per_tb rounded up to whole warps of 32
  uint64_t tb_count() const;      // grid size; the file may hold fewer TBs (empty ones are dropped)
};

struct TraceCommand {
  enum class Kind { kernel, memcpy_h2d, memcpy_d2h } kind = Kind::kernel;
  std::string path;  // kernel: the .traceg path, joined to the list's folder
  uint64_t addr = 0, bytes = 0;
  uint32_t line = 0;  // line in the list, for later messages about this command
};

struct TraceList {
  std::string file;
  std::vector<TraceCommand> commands;  // in file order
  uint32_t lines = 1;                  // number of the last line (1 for an empty file)
};

// Reads a kernelslist.g. ConfigError (file:line) on unrecognised lines, bad numbers and kernel
// traces that do not exist.
TraceList read_kernelslist(const std::string& path);

// Reads one .traceg. ConfigError (file:line: what) on malformed input.
// Unknown opcode policy: if `unknown_as_sp` is false a ConfigError names the opcode, file and
// line; if true the instruction is classed `sp` and the opcode is added once to `unknown_opcodes`
// (when given; entries already there are not repeated), so the caller can warn once.
TraceKernel read_traceg(const std::string& path, bool unknown_as_sp = false,
                        std::vector<std::string>* unknown_opcodes = nullptr);

// As read_traceg, but hands each thread block to `sink` as soon as it is complete instead of
// keeping it (the returned kernel has the header, opcodes and counts, and no tbs).
TraceKernel parse_traceg(const std::string& path, const std::function<void(TraceTb&&)>& sink);

// A trace for simulation, streamed through its binary cache (trace_cache.hpp); errors as read_traceg.
std::shared_ptr<const TraceKernel> open_traceg(const std::string& path);

}  // namespace mpgpu
