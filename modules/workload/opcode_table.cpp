// SASS opcode -> unit class, for the trace reader. Opcodes are those of the CUDA binary utilities
// instruction-set lists for Fermi (sm_2x) through Ampere (sm_8x); an opcode is looked up by its
// base name (the part before the first '.'), since modifiers do not change the unit.
#include <string_view>
#include <unordered_map>

#include "workload/trace.hpp"

namespace mpgpu {

namespace {

constexpr OpcodeInfo kSp{UnitClass::sp, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kFma{UnitClass::fma, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kDp{UnitClass::dp, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kSfu{UnitClass::sfu, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kTensor{UnitClass::tensor, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kBranch{UnitClass::branch, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kBarrier{UnitClass::barrier, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kNop{UnitClass::nop, MemSpace::none, MemOp::none};
constexpr OpcodeInfo kLdGlobal{UnitClass::ldst, MemSpace::global, MemOp::load};
constexpr OpcodeInfo kStGlobal{UnitClass::ldst, MemSpace::global, MemOp::store};
constexpr OpcodeInfo kAtomGlobal{UnitClass::ldst, MemSpace::global, MemOp::atomic};
constexpr OpcodeInfo kLdShared{UnitClass::ldst, MemSpace::shared, MemOp::load};
constexpr OpcodeInfo kStShared{UnitClass::ldst, MemSpace::shared, MemOp::store};
constexpr OpcodeInfo kAtomShared{UnitClass::ldst, MemSpace::shared, MemOp::atomic};
constexpr OpcodeInfo kLdLocal{UnitClass::ldst, MemSpace::local, MemOp::load};
constexpr OpcodeInfo kStLocal{UnitClass::ldst, MemSpace::local, MemOp::store};
constexpr OpcodeInfo kLdConstant{UnitClass::ldst, MemSpace::constant, MemOp::load};

using OpcodeMap = std::unordered_map<std::string_view, OpcodeInfo>;

const OpcodeMap& opcode_map() {
  static const OpcodeMap table = {
      // FP32 add/compare/select: the ALU pipe.
      {"FADD", kSp}, {"FADD32I", kSp}, {"FCHK", kSp}, {"FCMP", kSp}, {"FMNMX", kSp},
      {"FSEL", kSp}, {"FSET", kSp}, {"FSETP", kSp}, {"FSWZ", kSp}, {"FSWZADD", kSp},
      // FP32 and integer multiplies: the FMA pipe.
      {"FFMA", kFma}, {"FFMA32I", kFma}, {"FMUL", kFma}, {"FMUL32I", kFma},
      {"IMAD", kFma}, {"IMAD32I", kFma}, {"IMADSP", kFma}, {"IMUL", kFma}, {"IMUL32I", kFma},
      {"XMAD", kFma}, {"IDP", kFma}, {"IDP4A", kFma}, {"VMAD", kFma},
      // FP16x2: adds and compares on the ALU, multiplies on the FMA pipe.
      {"HADD2", kSp}, {"HADD2_32I", kSp}, {"HSET2", kSp}, {"HSETP2", kSp}, {"HMNMX2", kSp},
      {"HFMA2", kFma}, {"HFMA2_32I", kFma}, {"HMUL2", kFma}, {"HMUL2_32I", kFma},
      // FP64.
      {"DADD", kDp}, {"DFMA", kDp}, {"DMUL", kDp}, {"DMNMX", kDp}, {"DSET", kDp}, {"DSETP", kDp},
      // Special functions, their range reduction, and conversions.
      {"MUFU", kSfu}, {"RRO", kSfu},
      {"F2F", kSfu}, {"F2FP", kSfu}, {"F2I", kSfu}, {"F2IP", kSfu}, {"I2F", kSfu},
      {"I2FP", kSfu}, {"I2I", kSfu}, {"I2IP", kSfu}, {"FRND", kSfu},
      // Matrix units.
      {"HMMA", kTensor}, {"IMMA", kTensor}, {"BMMA", kTensor}, {"DMMA", kTensor},
      // Integer add/logic/shift/compare.
      {"BFE", kSp}, {"BFI", kSp}, {"BMSK", kSp}, {"BREV", kSp}, {"FLO", kSp}, {"IABS", kSp},
      {"IADD", kSp}, {"IADD3", kSp}, {"IADD32I", kSp}, {"ICMP", kSp}, {"IMNMX", kSp},
      {"ISAD", kSp}, {"ISCADD", kSp}, {"ISCADD32I", kSp}, {"ISET", kSp}, {"ISETP", kSp},
      {"ISUB", kSp}, {"LEA", kSp}, {"LOP", kSp}, {"LOP3", kSp}, {"LOP32I", kSp}, {"POPC", kSp},
      {"SHF", kSp}, {"SHL", kSp}, {"SHR", kSp},
      // SIMD video instructions (Fermi..Pascal) and their Volta+ survivors.
      {"VABSDIFF", kSp}, {"VABSDIFF4", kSp}, {"VADD", kSp}, {"VADD2", kSp}, {"VADD4", kSp},
      {"VSUB", kSp}, {"VSUB2", kSp}, {"VSUB4", kSp}, {"VMNMX", kSp}, {"VMNMX2", kSp},
      {"VMNMX4", kSp}, {"VSET", kSp}, {"VSET2", kSp}, {"VSET4", kSp}, {"VSETP", kSp},
      {"VSHL", kSp}, {"VSHR", kSp}, {"VAVRG2", kSp}, {"VAVRG4", kSp}, {"VSEL", kSp},
      // Moves, predicates, special registers, warp-wide data exchange.
      {"MOV", kSp}, {"MOV32I", kSp}, {"MOVM", kSp}, {"PRMT", kSp}, {"SEL", kSp}, {"SGXT", kSp},
      {"SHFL", kSp}, {"P2R", kSp}, {"R2P", kSp}, {"CSET", kSp}, {"CSETP", kSp}, {"PSET", kSp},
      {"PSETP", kSp}, {"PLOP3", kSp}, {"S2R", kSp}, {"CS2R", kSp}, {"B2R", kSp}, {"R2B", kSp},
      {"VOTE", kSp}, {"VOTE_VTG", kSp}, {"MATCH", kSp}, {"QSPC", kSp}, {"LEPC", kSp},
      {"GETLMEMBASE", kSp}, {"SETLMEMBASE", kSp}, {"SETCTAID", kSp}, {"CSMTEST", kSp},
      // Uniform datapath (Turing+): one value per warp, modelled on the ALU.
      {"R2UR", kSp}, {"S2UR", kSp}, {"REDUX", kSp}, {"UBMSK", kSp}, {"UBREV", kSp},
      {"UCLEA", kSp}, {"UF2FP", kSp}, {"UFLO", kSp}, {"UIADD3", kSp}, {"UIMAD", kSp},
      {"UISETP", kSp}, {"ULEA", kSp}, {"ULOP", kSp}, {"ULOP3", kSp}, {"ULOP32I", kSp},
      {"UMOV", kSp}, {"UP2UR", kSp}, {"UPLOP3", kSp}, {"UPOPC", kSp}, {"UPRMT", kSp},
      {"UPSETP", kSp}, {"UR2UP", kSp}, {"USEL", kSp}, {"USGXT", kSp}, {"USHF", kSp},
      {"USHL", kSp}, {"USHR", kSp}, {"VOTEU", kSp},
      // Texture and surface accesses: the tracer records no addresses for them, so, as Accel-Sim
      // does, they are timed as ALU work rather than as memory requests without addresses.
      {"TEX", kSp}, {"TEXS", kSp}, {"TLD", kSp}, {"TLDS", kSp}, {"TLD4", kSp}, {"TLD4S", kSp},
      {"TMML", kSp}, {"TXD", kSp}, {"TXQ", kSp}, {"SULD", kSp}, {"SUST", kSp}, {"SUATOM", kSp},
      {"SURED", kSp}, {"SUQ", kSp}, {"SUQUERY", kSp}, {"SULEA", kSp}, {"SUCLAMP", kSp},
      {"SUBFM", kSp}, {"SUEAU", kSp}, {"SULDGA", kSp}, {"SUSTGA", kSp},
      // Global (and generic, which the tracer resolves to global addresses) memory.
      {"LD", kLdGlobal}, {"LDG", kLdGlobal}, {"LDU", kLdGlobal}, {"LD_LDU", kLdGlobal},
      {"LDGSTS", kLdGlobal},  // async copy: the trace keeps its global (source) addresses
      {"ST", kStGlobal}, {"STG", kStGlobal},
      {"ATOM", kAtomGlobal}, {"ATOMG", kAtomGlobal}, {"RED", kAtomGlobal},
      // Shared memory.
      {"LDS", kLdShared}, {"LDSM", kLdShared}, {"LDSLK", kLdShared}, {"LDS_LDU", kLdShared},
      {"STS", kStShared}, {"STSUL", kStShared}, {"STSCUL", kStShared}, {"ATOMS", kAtomShared},
      // Local memory (register spills, per-thread arrays).
      {"LDL", kLdLocal}, {"LDLK", kLdLocal}, {"STL", kStLocal}, {"STUL", kStLocal},
      // Constant memory.
      {"LDC", kLdConstant}, {"ULDC", kLdConstant},
      // Control flow, reconvergence and warp scheduling hints.
      {"BRA", kBranch}, {"BRX", kBranch}, {"BRXU", kBranch}, {"JMP", kBranch}, {"JMX", kBranch},
      {"JMXU", kBranch}, {"CAL", kBranch}, {"CALL", kBranch}, {"JCAL", kBranch}, {"RET", kBranch},
      {"PRET", kBranch}, {"BRK", kBranch}, {"PBK", kBranch}, {"BREAK", kBranch}, {"CONT", kBranch},
      {"PCNT", kBranch}, {"LONGJMP", kBranch}, {"PLONGJMP", kBranch}, {"SSY", kBranch},
      {"SYNC", kBranch}, {"BSSY", kBranch}, {"BSYNC", kBranch}, {"BMOV", kBranch},
      {"WARPSYNC", kBranch}, {"EXIT", kBranch}, {"PEXIT", kBranch}, {"KILL", kBranch},
      {"RTT", kBranch}, {"RPCMOV", kBranch}, {"BPT", kBranch}, {"YIELD", kBranch},
      {"NANOSLEEP", kBranch},
      // CTA barrier.
      {"BAR", kBarrier},
      // No unit: fences, scoreboard waits, cache control, profiling triggers.
      {"NOP", kNop}, {"DEPBAR", kNop}, {"TEXDEPBAR", kNop}, {"LDGDEPBAR", kNop},
      {"MEMBAR", kNop}, {"ERRBAR", kNop}, {"CCTL", kNop}, {"CCTLL", kNop}, {"CCTLT", kNop},
      {"PMTRIG", kNop},
  };
  return table;
}

}  // namespace

std::optional<OpcodeInfo> lookup_opcode(const std::string& opcode) {
  const std::string_view full(opcode);
  const auto it = opcode_map().find(full.substr(0, full.find('.')));
  if (it == opcode_map().end()) return std::nullopt;
  return it->second;
}

}  // namespace mpgpu
