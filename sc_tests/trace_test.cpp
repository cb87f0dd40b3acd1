// Accel-Sim trace reader: the shared vectoradd sample, synthetic traces for each address encoding
// and line format, error messages, and the opcode table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/error.hpp"
#include "test_util.hpp"
#include "workload/trace.hpp"
#include "workload/trace_cache.hpp"
#include "workload/trace_workload.hpp"

namespace mpgpu {
namespace {

const std::string kSampleDir = std::string(MPGPU_SOURCE_DIR) + "/../shared/traces/vectoradd-100-32";

using TraceDir = test::TempDir;  // synthetic traces, removed with the object

// Header of a synthetic kernel: one TB of 64 threads (2 warps) in a 2x1x1 grid.
std::string header(int tracer_version, bool lineinfo = false) {
  return "-kernel name = synth\n"
         "-kernel id = 7\n"
         "-grid dim = (2,1,1)\n"
         "-block dim = (64,1,1)\n"
         "-shmem = 128\n"
         "-nregs = 16\n"
         "-binary version = 86\n"
         "-cuda stream id = 94251623071232\n"
         "-shmem base_addr = 0x00007f0000000000\n"
         "-local mem base_addr = 0x00007f1000000000\n"
         "-nvbit version = 1.7.1\n"
         "-accelsim tracer version = " +
         std::to_string(tracer_version) + "\n-enable lineinfo = " + (lineinfo ? "1" : "0") +
         "\n\n#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
         "[adrrescompress?] [mem_addresses]\n\n";
}

// One TB holding warp 0 with the given instruction lines (each ending in '\n').
std::string tb(const std::string& lines, int count, const std::string& coords = "1,0,0") {
  return "#BEGIN_TB\n\nthread block = " + coords + "\n\nwarp = 0\ninsts = " + std::to_string(count) + "\n" + lines +
         "\n#END_TB\n";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no ConfigError";
}

// The i-th address of an instruction.
uint64_t addr(const TraceKernel& k, const TraceInstr& in, uint32_t i) { return k.tbs.at(0).addresses.at(in.addr_begin + i); }

TEST(Trace, SampleHeader) {
  const TraceKernel k = read_traceg(kSampleDir + "/kernel-1.traceg");
  EXPECT_EQ(k.name, "_Z6vecAddIfEvPT_S1_S1_i");
  EXPECT_EQ(k.id, 1u);
  EXPECT_EQ(k.grid[0], 1u);
  EXPECT_EQ(k.grid[1], 1u);
  EXPECT_EQ(k.grid[2], 1u);
  EXPECT_EQ(k.block[0], 1024u);
  EXPECT_EQ(k.block[1], 1u);
  EXPECT_EQ(k.block[2], 1u);
  EXPECT_EQ(k.threads_per_tb(), 1024u);
  EXPECT_EQ(k.warps_per_tb(), 32u);
  EXPECT_EQ(k.shmem, 0u);
  EXPECT_EQ(k.nregs, 8u);
  EXPECT_EQ(k.binary_version, 61u);
  EXPECT_EQ(k.stream, 0u);
  EXPECT_EQ(k.shmem_base, 0x00007f2b5a000000u);
  EXPECT_EQ(k.local_base, 0x00007f2b58000000u);
  EXPECT_EQ(k.nvbit_version, "1.5.5");
  EXPECT_EQ(k.tracer_version, 4u);
  EXPECT_FALSE(k.lineinfo);
}

TEST(Trace, SampleInstructionCount) {
  const TraceKernel k = read_traceg(kSampleDir + "/kernel-1.traceg");
  // Verified by hand on the file: `grep -cE '^[0-9a-f]{4} [0-9a-f]{8} ' kernel-1.traceg` counts 344
  // instruction lines, and the 'insts =' lines sum to 344 too (warps 0-3: 23 each, warps 4-31:
  // 9 each, i.e. 4*23 + 28*9): 100 elements fill 3 warps and 4 lanes of a fourth; the other
  // 28 warps of the 1024-thread TB fail the bounds check and exit.
  EXPECT_EQ(k.instruction_count(), 344u);
  ASSERT_EQ(k.tbs.size(), 1u);
  EXPECT_EQ(k.tbs[0].x, 0u);
  ASSERT_EQ(k.tbs[0].warps.size(), 32u);
  EXPECT_EQ(k.tbs[0].warps[0].instrs.size(), 23u);
  EXPECT_EQ(k.tbs[0].warps[3].instrs.size(), 23u);
  EXPECT_EQ(k.tbs[0].warps[4].instrs.size(), 9u);
  EXPECT_EQ(k.tbs[0].warps[31].instrs.size(), 9u);
}

TEST(Trace, SampleFirstInstructions) {
  const TraceKernel k = read_traceg(kSampleDir + "/kernel-1.traceg");
  const auto& w0 = k.tbs[0].warps[0].instrs;
  // "0008 ffffffff 1 R1 MOV 0 0"
  EXPECT_EQ(w0[0].pc, 0x8u);
  EXPECT_EQ(w0[0].mask, 0xffffffffu);
  EXPECT_EQ(w0[0].ndst, 1);
  EXPECT_EQ(w0[0].dst[0], 1);
  EXPECT_EQ(w0[0].dst[1], kNoReg);
  EXPECT_EQ(w0[0].nsrc, 0);
  EXPECT_EQ(w0[0].src[0], kNoReg);
  EXPECT_EQ(k.opcodes[w0[0].opcode], "MOV");
  EXPECT_EQ(w0[0].unit, UnitClass::sp);
  EXPECT_EQ(w0[0].mem_width, 0);
  // "0028 ffffffff 1 R3 XMAD.MRG 2 R0 R255 0": RZ is no dependency.
  EXPECT_EQ(k.opcodes[w0[3].opcode], "XMAD.MRG");
  EXPECT_EQ(w0[3].unit, UnitClass::fma);
  EXPECT_EQ(w0[3].nsrc, 1);
  EXPECT_EQ(w0[3].src[0], 0);
  EXPECT_EQ(w0[3].src[1], kNoReg);
  // "0038 ffffffff 1 R0 XMAD.PSL.CBCC 3 R0 R3 R2 0"
  EXPECT_EQ(w0[5].nsrc, 3);
  EXPECT_EQ(w0[5].src[2], 2);
  // "0058 00000000 0 EXIT 0 0": predicated off for every lane.
  EXPECT_EQ(w0[8].mask, 0u);
  EXPECT_EQ(w0[8].unit, UnitClass::branch);
  // "00d8 ffffffff 0 STG.E 2 R6 R0 4 1 0x7f2b2d500400 4"
  EXPECT_EQ(w0[20].op, MemOp::store);
  EXPECT_EQ(w0[20].ndst, 0);
  EXPECT_EQ(addr(k, w0[20], 31), 0x7f2b2d500400u + 31 * 4);
}

TEST(Trace, SampleLdgBaseStride) {
  const TraceKernel k = read_traceg(kSampleDir + "/kernel-1.traceg");
  // Warp 0: "0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4"
  const TraceInstr& full = k.tbs[0].warps[0].instrs[14];
  EXPECT_EQ(k.opcodes[full.opcode], "LDG.E.CG");
  EXPECT_EQ(full.unit, UnitClass::ldst);
  EXPECT_EQ(full.space, MemSpace::global);
  EXPECT_EQ(full.op, MemOp::load);
  EXPECT_EQ(full.mem_width, 4);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(addr(k, full, i), 0x7f2b2d500000u + 4 * i);
  // Warp 3 has 4 live lanes: "0098 0000000f 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500180 4"
  const TraceInstr& part = k.tbs[0].warps[3].instrs[14];
  EXPECT_EQ(part.mask, 0xfu);
  EXPECT_EQ(part.active_lanes(), 4u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(addr(k, part, i), 0x7f2b2d500180u + 4 * i);
  // 3 memory instructions x 32 lanes in warps 0-2, 3 x 4 lanes in warp 3.
  EXPECT_EQ(k.tbs[0].addresses.size(), 3u * 3 * 32 + 3 * 4);
}

TEST(Trace, SampleKernelslist) {
  const TraceList list = read_kernelslist(kSampleDir + "/kernelslist.g");
  ASSERT_EQ(list.commands.size(), 4u);
  const uint64_t bases[3] = {0x00007f2b2d500000, 0x00007f2b2d500200, 0x00007f2b2d500400};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(list.commands[i].kind, TraceCommand::Kind::memcpy_h2d);
    EXPECT_EQ(list.commands[i].addr, bases[i]);
    EXPECT_EQ(list.commands[i].bytes, 400u);
  }
  EXPECT_EQ(list.commands[3].kind, TraceCommand::Kind::kernel);
  EXPECT_EQ(list.commands[3].path, kSampleDir + "/kernel-1.traceg");
  EXPECT_EQ(list.commands[3].line, 4u);
  EXPECT_EQ(read_traceg(list.commands[3].path).instruction_count(), 344u);
}

TEST(Trace, SyntheticHeader) {
  TraceDir dir;
  const TraceKernel k = read_traceg(dir.write("k.traceg", header(4) + tb("0010 00000001 0 NOP 0 0\n", 1)));
  EXPECT_EQ(k.name, "synth");
  EXPECT_EQ(k.id, 7u);
  EXPECT_EQ(k.grid[0], 2u);
  EXPECT_EQ(k.block[0], 64u);
  EXPECT_EQ(k.shmem, 128u);
  EXPECT_EQ(k.nregs, 16u);
  EXPECT_EQ(k.binary_version, 86u);
  EXPECT_EQ(k.stream, 94251623071232u);  // a CUstream handle: wider than 32 bits
  EXPECT_EQ(k.shmem_base, 0x00007f0000000000u);
  EXPECT_EQ(k.local_base, 0x00007f1000000000u);
  ASSERT_EQ(k.tbs.size(), 1u);
  EXPECT_EQ(k.tbs[0].x, 1u);
  EXPECT_EQ(k.tbs[0].warps[0].instrs[0].unit, UnitClass::nop);
}

TEST(Trace, AddressModeList) {
  TraceDir dir;
  // Lanes 0, 1 and 3 active: one address each, in lane order.
  const TraceKernel k = read_traceg(dir.write(
      "k.traceg", header(4) + tb("0020 0000000b 1 R2 LDG.E.64.SYS 1 R4 8 0 0x0000000000001000 "
                                 "0x0000000000002000 0x0000000000000ff8 \n",
                                 1)));
  const TraceInstr& in = k.tbs[0].warps[0].instrs[0];
  EXPECT_EQ(in.mem_width, 8);
  ASSERT_EQ(k.tbs[0].addresses.size(), 3u);
  EXPECT_EQ(addr(k, in, 0), 0x1000u);
  EXPECT_EQ(addr(k, in, 1), 0x2000u);
  EXPECT_EQ(addr(k, in, 2), 0xff8u);
}

TEST(Trace, AddressModeBaseStride) {
  TraceDir dir;
  // Lanes 4..7 with a negative stride.
  const TraceKernel k = read_traceg(
      dir.write("k.traceg", header(4) + tb("0020 000000f0 0 STS 2 R3 R5 4 1 0x100 -4 \n", 1)));
  const TraceInstr& in = k.tbs[0].warps[0].instrs[0];
  EXPECT_EQ(in.space, MemSpace::shared);
  EXPECT_EQ(in.op, MemOp::store);
  ASSERT_EQ(k.tbs[0].addresses.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(addr(k, in, i), 0x100u - 4 * i);
}

TEST(Trace, AddressModeBaseDelta) {
  TraceDir dir;
  // Lanes 8..11: base, then one delta per further lane, each from the previous address.
  const TraceKernel k = read_traceg(dir.write(
      "k.traceg", header(4) + tb("0030 00000f00 1 R6 LDG.E.CONSTANT.SYS 1 R2 4 2 0x7f0000001000 16 -8 100 \n"
                                 "0040 00000400 1 R7 LDG.E.SYS 1 R2 4 2 0x7f0000002000 \n",
                                 2)));
  const auto& w = k.tbs[0].warps[0].instrs;
  ASSERT_EQ(k.tbs[0].addresses.size(), 5u);
  EXPECT_EQ(addr(k, w[0], 0), 0x7f0000001000u);
  EXPECT_EQ(addr(k, w[0], 1), 0x7f0000001010u);
  EXPECT_EQ(addr(k, w[0], 2), 0x7f0000001008u);
  EXPECT_EQ(addr(k, w[0], 3), 0x7f000000106cu);
  // A single live lane: the base alone.
  EXPECT_EQ(w[1].addr_begin, 4u);
  EXPECT_EQ(addr(k, w[1], 0), 0x7f0000002000u);
}

TEST(Trace, MemoryInstructionWithNoLiveLane) {
  TraceDir dir;
  // The tracer writes base 0 stride 0 when the predicate turned every lane off.
  const TraceKernel k =
      read_traceg(dir.write("k.traceg", header(4) + tb("0030 00000000 1 R6 LDG.E.SYS 1 R2 4 1 0x0 0 \n", 1)));
  EXPECT_EQ(k.tbs[0].warps[0].instrs[0].mem_width, 4);
  EXPECT_TRUE(k.tbs[0].addresses.empty());
}

TEST(Trace, TracerVersion2LinePrefix) {
  TraceDir dir;
  // Lines start with "tb_x tb_y tb_z warp_in_tb".
  const TraceKernel k = read_traceg(dir.write(
      "k.traceg", header(2) + tb("1 0 0 0 0008 ffffffff 1 R1 MOV 0 0 \n"
                                 "1 0 0 0 0010 00000003 1 R4 LDG.E 1 R2 4 1 0x2000 4 \n",
                                 2)));
  const auto& w = k.tbs[0].warps[0].instrs;
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].pc, 0x8u);
  EXPECT_EQ(w[0].dst[0], 1);
  EXPECT_EQ(w[1].pc, 0x10u);
  EXPECT_EQ(w[1].mask, 3u);
  EXPECT_EQ(addr(k, w[1], 1), 0x2004u);
}

TEST(Trace, LineinfoPrefixAndVersion5Immediate) {
  TraceDir dir;
  // Tracer 5 ends each line with an immediate; lineinfo puts a source line number first.
  const TraceKernel k = read_traceg(dir.write(
      "k.traceg", header(5, true) + tb("42 0008 ffffffff 1 R1 MOV 0 0 0 \n"
                                       "43 0010 ffffffff 1 R4 LDG.E 1 R2 4 1 0x2000 4 -3 \n",
                                       2)));
  EXPECT_TRUE(k.lineinfo);
  const auto& w = k.tbs[0].warps[0].instrs;
  EXPECT_EQ(w[0].pc, 0x8u);
  EXPECT_EQ(w[1].pc, 0x10u);
  EXPECT_EQ(addr(k, w[1], 31), 0x2000u + 31 * 4);
}

TEST(Trace, OnlyGeneralRegistersAreDependencies) {
  TraceDir dir;
  const TraceKernel k = read_traceg(dir.write(
      "k.traceg", header(4) + tb("0010 ffffffff 1 P0 ISETP.GE.AND 4 R2 UR4 RZ PT 0 \n"
                                 "0018 ffffffff 2 R8 UR6 HMMA.16816.F32 3 R12 R255 R14 0 \n",
                                 2)));
  const auto& w = k.tbs[0].warps[0].instrs;
  EXPECT_EQ(w[0].ndst, 0);
  EXPECT_EQ(w[0].dst[0], kNoReg);
  EXPECT_EQ(w[0].nsrc, 1);
  EXPECT_EQ(w[0].src[0], 2);
  EXPECT_EQ(w[1].unit, UnitClass::tensor);
  EXPECT_EQ(w[1].ndst, 1);
  EXPECT_EQ(w[1].dst[0], 8);
  EXPECT_EQ(w[1].nsrc, 2);
  EXPECT_EQ(w[1].src[0], 12);
  EXPECT_EQ(w[1].src[1], 14);
}

TEST(Trace, OpcodesAreInterned) {
  TraceDir dir;
  const TraceKernel k = read_traceg(dir.write(
      "k.traceg", header(4) + tb("0008 ffffffff 1 R1 MOV 0 0\n0010 ffffffff 1 R1 IADD3 2 R1 R1 0\n"
                                 "0018 ffffffff 1 R1 MOV 0 0\n",
                                 3)));
  ASSERT_EQ(k.opcodes.size(), 2u);
  const auto& w = k.tbs[0].warps[0].instrs;
  EXPECT_EQ(w[0].opcode, w[2].opcode);
  EXPECT_EQ(k.opcodes[w[1].opcode], "IADD3");
}

TEST(Trace, SeveralTbsAndWarpsWithCrlfAndBlankLines) {
  TraceDir dir;
  std::string text = header(4) + tb("0008 ffffffff 1 R1 MOV 0 0\n", 1, "0,0,0") +
                     "\n#BEGIN_TB\n\nthread block = 1,0,0\n\nwarp = 0\ninsts = 0\n\nwarp = 1\ninsts = 2\n"
                     "0008 ffffffff 1 R1 MOV 0 0\n\n0010 ffffffff 0 EXIT 0 0\n\n#END_TB\n";
  for (size_t p = 0; (p = text.find('\n', p)) != std::string::npos; p += 2) text.replace(p, 1, "\r\n");
  const TraceKernel k = read_traceg(dir.write("k.traceg", text));
  ASSERT_EQ(k.tbs.size(), 2u);
  EXPECT_EQ(k.tbs[1].x, 1u);
  ASSERT_EQ(k.tbs[1].warps.size(), 2u);
  EXPECT_TRUE(k.tbs[1].warps[0].instrs.empty());
  EXPECT_EQ(k.tbs[1].warps[1].instrs[1].pc, 0x10u);
  EXPECT_EQ(k.instruction_count(), 3u);
}

TEST(Trace, UnknownOpcodeNamesOpcodeFileAndLine) {
  TraceDir dir;
  const std::string path =
      dir.write("kernel-1.traceg", header(4) + tb("0008 ffffffff 1 R1 MOV 0 0\n0010 ffffffff 0 FOO.BAR 0 0\n", 2));
  // The header takes 16 lines, then "#BEGIN_TB", "", "thread block", "", "warp", "insts", MOV.
  const std::string e = error_of([&] { read_traceg(path); });
  EXPECT_NE(e.find(path + ":24: unknown opcode 'FOO.BAR'"), std::string::npos) << e;
}

TEST(Trace, UnknownOpcodeAsSp) {
  TraceDir dir;
  const std::string path = dir.write(
      "k.traceg", header(4) + tb("0008 ffffffff 0 FOO 0 0\n0010 ffffffff 0 FOO 0 0\n0018 ffffffff 0 BAZ.X 0 0\n", 3));
  std::vector<std::string> unknown = {"BAZ.X"};  // already reported by an earlier kernel
  const TraceKernel k = read_traceg(path, true, &unknown);
  const auto& w = k.tbs[0].warps[0].instrs;
  EXPECT_EQ(w[0].unit, UnitClass::sp);
  EXPECT_EQ(w[0].space, MemSpace::none);
  EXPECT_EQ(w[2].unit, UnitClass::sp);
  EXPECT_EQ(unknown, (std::vector<std::string>{"BAZ.X", "FOO"}));
  EXPECT_NO_THROW(read_traceg(path, true));  // no list to fill
}

TEST(Trace, MalformedLinesNameTheLine) {
  // Instruction lines start at line 23 (see UnknownOpcodeNamesOpcodeFileAndLine).
  struct Case {
    std::string body;  // TB text after the header
    std::string where, what;
  };
  const std::string ok = "0008 ffffffff 1 R1 MOV 0 0\n";
  const std::vector<Case> cases = {
      {tb("00g8 ffffffff 1 R1 MOV 0 0\n", 1), ":23:", "has 0 instruction lines"},  // not an instruction
      {tb("0008 fffffffff 1 R1 MOV 0 0\n", 1), ":23:", "bad active mask 'fffffffff'"},
      {tb("0008 ffffffff 1 R1 MOV 0\n", 1), ":23:", "missing memory width"},
      {tb("0008 ffffffff 2 R1 MOV 0 0\n", 1), ":23:", "bad destination register 'MOV'"},
      {tb("0008 ffffffff 1 R256 MOV 0 0\n", 1), ":23:", "bad destination register 'R256'"},
      {tb("0008 ffffffff 0 MOV 1 R1\n", 1), ":23:", "missing memory width"},
      {tb(ok, 2), ":25:", "has 1 instruction lines but 'insts = 2' at line 22; found '#END_TB'"},
      {tb(ok + ok, 1), ":24:", "beyond the 'insts' count"},
      {tb("0008 000000ff 1 R1 LDG.E 1 R2 4 0 0x10 0x20\n", 1), ":23:", "mask 000000ff has 8 active lanes, so 8 addresses are due, found 2"},
      {tb("0008 00000001 1 R1 LDG.E 1 R2 4 0 0x10 0x20\n", 1), ":23:", "unexpected field '0x20' at the end of the instruction line (more addresses"},
      {tb("0008 00000007 1 R1 LDG.E 1 R2 4 2 0x10 4\n", 1), ":23:", "mask 00000007 has 3 active lanes, so 2 address deltas after the base are due, found 1"},
      {tb("0008 00000001 1 R1 LDG.E 1 R2 4 3 0x10\n", 1), ":23:", "unknown address mode"},
      {tb("0008 ffffffff 1 R1 MOV 0 0\n", 1, "2,0,0"), ":19:", "outside the grid"},
      {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n" + ok, ":21:", "truncated file"},
      {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 1\n" + ok, ":21:", "no #END_TB"},
      {"#BEGIN_TB\nthread block = 0,0,0\nwarp = 2\n", ":19:", "warp 2 out of range"},
      {"#BEGIN_TB\nthread block = 0,0,0\ninsts = 1\n", ":19:", "before any 'warp'"},
  };
  TraceDir dir;
  for (const Case& c : cases) {
    const std::string path = dir.write("bad.traceg", header(4) + c.body);
    const std::string e = error_of([&] { read_traceg(path); });
    EXPECT_NE(e.find(path + c.where), std::string::npos) << c.body << "\n-> " << e;
    EXPECT_NE(e.find(c.what), std::string::npos) << c.body << "\n-> " << e;
  }
}

TEST(Trace, BadHeader) {
  TraceDir dir;
  const std::string no_block = "-kernel name = x\n-grid dim = (1,1,1)\n#BEGIN_TB\n";
  std::string e = error_of([&] { read_traceg(dir.write("a.traceg", no_block)); });
  EXPECT_NE(e.find("a.traceg:3: missing '-block dim' header"), std::string::npos) << e;
  e = error_of([&] { read_traceg(dir.write("b.traceg", "-grid dim = (1,x,1)\n")); });
  EXPECT_NE(e.find("b.traceg:1: bad value '(1,x,1)' for '-grid dim'"), std::string::npos) << e;
  e = error_of([&] { read_traceg(dir.write("c.traceg", "-grid dim = (1,1,1)\n-block dim = (64,32,1)\n")); });
  EXPECT_NE(e.find("c.traceg:2: block dim (64,32,1) has 2048 threads"), std::string::npos) << e;
  e = error_of([&] { read_traceg(dir.path.string() + "/missing.traceg"); });
  EXPECT_NE(e.find("missing.traceg: cannot open"), std::string::npos) << e;
}

// Header values beyond what CUDA and the model's tables hold (issue 18 item 4): a grid of
// (2^32-1, 2^32-1, 2^31) wrapped to a small TB count, nregs 4194304 to 0 registers per TB.
TEST(Trace, HeaderValuesAreRangeChecked) {
  TraceDir dir;
  const auto error_for = [&](const std::string& line, const std::string& replaced) {
    std::string h = header(4);
    h.replace(h.find(replaced), replaced.size(), line);
    return error_of([&] { read_traceg(dir.write("h.traceg", h + tb("0010 00000001 0 NOP 0 0\n", 1))); });
  };
  std::string e = error_for("-grid dim = (4294967295,4294967295,2147483648)", "-grid dim = (2,1,1)");
  EXPECT_NE(e.find("h.traceg:3: '-grid dim = (4294967295,4294967295,2147483648)' is beyond CUDA's limits "
                   "(2147483647,65535,65535)"),
            std::string::npos)
      << e;
  e = error_for("-grid dim = (2147483647,65535,1)", "-grid dim = (2,1,1)");
  EXPECT_NE(e.find("h.traceg:3: '-grid dim = (2147483647,65535,1)' has 140735340806145 TBs: the model's TB index"),
            std::string::npos)
      << e;
  e = error_for("-block dim = (64,1,65)", "-block dim = (64,1,1)");
  EXPECT_NE(e.find("h.traceg:4: '-block dim = (64,1,65)' is beyond CUDA's limits (1024,1024,64)"), std::string::npos) << e;
  e = error_for("-nregs = 4194304", "-nregs = 16");
  EXPECT_NE(e.find("h.traceg:6: '-nregs = 4194304': CUDA allows at most 255 registers per thread"), std::string::npos) << e;
  e = error_for("-shmem = 1048576", "-shmem = 128");
  EXPECT_NE(e.find("h.traceg:5: '-shmem = 1048576': CUDA allows at most 232448 bytes"), std::string::npos) << e;
  // The largest values CUDA allows are read as they are.
  std::string h = header(4);
  h.replace(h.find("-nregs = 16"), 11, "-nregs = 255");
  EXPECT_EQ(read_traceg(dir.write("ok.traceg", h + tb("0010 00000001 0 NOP 0 0\n", 1))).nregs, 255u);
}

TEST(Trace, KernelslistWithMemcpys) {
  TraceDir dir;
  dir.write("kernel-1.traceg", header(4));
  dir.write("kernel-2.traceg", header(4));
  const std::string path = dir.write("kernelslist.g",
                                     "MemcpyHtoD,0x00007f2b2d500000,400\n"
                                     "kernel-1.traceg\n"
                                     "\n"
                                     "MemcpyDtoH,0x00007f2b2d500400,4096\r\n"
                                     "kernel-2.traceg\n");
  const TraceList list = read_kernelslist(path);
  EXPECT_EQ(list.file, path);
  ASSERT_EQ(list.commands.size(), 4u);
  EXPECT_EQ(list.commands[0].kind, TraceCommand::Kind::memcpy_h2d);
  EXPECT_EQ(list.commands[0].addr, 0x00007f2b2d500000u);
  EXPECT_EQ(list.commands[0].bytes, 400u);
  EXPECT_EQ(list.commands[1].kind, TraceCommand::Kind::kernel);
  EXPECT_EQ(list.commands[1].path, (dir.path / "kernel-1.traceg").string());
  EXPECT_EQ(list.commands[2].kind, TraceCommand::Kind::memcpy_d2h);
  EXPECT_EQ(list.commands[2].bytes, 4096u);
  EXPECT_EQ(list.commands[2].line, 4u);
  EXPECT_EQ(list.commands[3].path, (dir.path / "kernel-2.traceg").string());
}

TEST(Trace, KernelslistErrors) {
  TraceDir dir;
  std::string path = dir.write("l1.g", "MemcpyHtoD,0x10,400\nkernel-9.traceg\n");
  std::string e = error_of([&] { read_kernelslist(path); });
  EXPECT_NE(e.find(path + ":2: kernel trace 'kernel-9.traceg' not found"), std::string::npos) << e;
  path = dir.write("l2.g", "MemcpyHtoD,0xzz,400\n");
  e = error_of([&] { read_kernelslist(path); });
  EXPECT_NE(e.find(path + ":1: bad address"), std::string::npos) << e;
  path = dir.write("l3.g", "MemcpyHtoD,0x10\n");
  e = error_of([&] { read_kernelslist(path); });
  EXPECT_NE(e.find(path + ":1: expected 3 fields"), std::string::npos) << e;
  path = dir.write("l4.g", "\nlaunch something\n");
  e = error_of([&] { read_kernelslist(path); });
  EXPECT_NE(e.find(path + ":2: unrecognised command 'launch something'"), std::string::npos) << e;
  e = error_of([&] { read_kernelslist(dir.path.string() + "/none.g"); });
  EXPECT_NE(e.find("none.g: cannot open"), std::string::npos) << e;
  // A 1e19-byte copy never finished simulating (simulated time wrapped): bounded like a workload's.
  path = dir.write("l5.g", "\nMemcpyHtoD,0x10,18446744073709551615\n");
  e = error_of([&] { read_kernelslist(path); });
  EXPECT_NE(e.find(path + ":2: byte count 18446744073709551615 out of range [1, 2^40]"), std::string::npos) << e;
  // A list without kernels names its last line.
  path = dir.write("l6.g", "MemcpyHtoD,0x10,400\n# nothing else\n");
  e = error_of([&] { workload_from_trace(path); });
  EXPECT_NE(e.find(path + ":2: no kernel in the list"), std::string::npos) << e;
}

TEST(Trace, OpcodeTable) {
  const auto is = [](const char* opcode, UnitClass unit, MemSpace space = MemSpace::none, MemOp op = MemOp::none) {
    const auto info = lookup_opcode(opcode);
    if (!info) return ::testing::AssertionFailure() << opcode << " not in the table";
    if (info->unit != unit || info->space != space || info->op != op)
      return ::testing::AssertionFailure() << opcode << " classed " << int(info->unit) << "/" << int(info->space) << "/"
                                           << int(info->op);
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(is("FADD", UnitClass::sp));
  EXPECT_TRUE(is("IADD3.X", UnitClass::sp));
  EXPECT_TRUE(is("ISETP.GE.AND", UnitClass::sp));
  EXPECT_TRUE(is("FFMA", UnitClass::fma));
  EXPECT_TRUE(is("IMAD.WIDE.U32", UnitClass::fma));
  EXPECT_TRUE(is("XMAD.PSL.CBCC", UnitClass::fma));
  EXPECT_TRUE(is("DFMA", UnitClass::dp));
  EXPECT_TRUE(is("DSETP.GT.AND", UnitClass::dp));
  EXPECT_TRUE(is("MUFU.RSQ", UnitClass::sfu));
  EXPECT_TRUE(is("F2I.FTZ.U32.TRUNC", UnitClass::sfu));
  EXPECT_TRUE(is("HMMA.1688.F32", UnitClass::tensor));
  EXPECT_TRUE(is("IMMA.8816.S8.S8", UnitClass::tensor));
  EXPECT_TRUE(is("LDG.E.SYS", UnitClass::ldst, MemSpace::global, MemOp::load));
  EXPECT_TRUE(is("LD.E.64", UnitClass::ldst, MemSpace::global, MemOp::load));
  EXPECT_TRUE(is("STG.E.128", UnitClass::ldst, MemSpace::global, MemOp::store));
  EXPECT_TRUE(is("ATOMG.E.ADD.STRONG.GPU", UnitClass::ldst, MemSpace::global, MemOp::atomic));
  EXPECT_TRUE(is("RED.E.ADD.F32.FTZ.RN", UnitClass::ldst, MemSpace::global, MemOp::atomic));
  EXPECT_TRUE(is("LDS.U.128", UnitClass::ldst, MemSpace::shared, MemOp::load));
  EXPECT_TRUE(is("STS", UnitClass::ldst, MemSpace::shared, MemOp::store));
  EXPECT_TRUE(is("ATOMS.CAS", UnitClass::ldst, MemSpace::shared, MemOp::atomic));
  EXPECT_TRUE(is("LDL.LU", UnitClass::ldst, MemSpace::local, MemOp::load));
  EXPECT_TRUE(is("STL.64", UnitClass::ldst, MemSpace::local, MemOp::store));
  EXPECT_TRUE(is("LDC.64", UnitClass::ldst, MemSpace::constant, MemOp::load));
  EXPECT_TRUE(is("BRA", UnitClass::branch));
  EXPECT_TRUE(is("BSYNC", UnitClass::branch));
  EXPECT_TRUE(is("SSY", UnitClass::branch));
  EXPECT_TRUE(is("EXIT", UnitClass::branch));
  EXPECT_TRUE(is("BAR.SYNC", UnitClass::barrier));
  EXPECT_TRUE(is("NOP", UnitClass::nop));
  EXPECT_TRUE(is("DEPBAR.LE", UnitClass::nop));
  EXPECT_FALSE(lookup_opcode("FOO").has_value());
  EXPECT_FALSE(lookup_opcode("").has_value());
  EXPECT_FALSE(lookup_opcode("FFMAX").has_value());  // the base name must match whole
}


// ---- binary cache of a streamed trace ----

// Two TBs with memory lines in two encodings: enough to compare every field after a round trip.
std::string cached_trace_text(const std::string& second_address = "0x2000") {
  return header(4) + tb("0010 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000 4 \n0018 00000003 0 STG.E 2 R1 R2 4 0 " +
                        second_address + " 0x2004 \n", 2, "0,0,0") +
         tb("0010 0000000f 1 R3 FFMA 3 R1 R2 R3 0 \n", 1, "1,0,0");
}

void expect_same_tbs(const TraceKernel& a, const TraceKernel& b) {
  ASSERT_EQ(a.tb_records, b.tb_records);
  EXPECT_EQ(a.instruction_count(), b.instruction_count());
  EXPECT_EQ(a.opcodes, b.opcodes);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.grid[0], b.grid[0]);
  for (uint32_t i = 0; i < a.tb_records; ++i) {
    auto x = a.tb(i), y = b.tb(i);
    ASSERT_TRUE(x && y);
    EXPECT_EQ(x->x, y->x);
    EXPECT_EQ(x->y, y->y);
    EXPECT_EQ(std::vector<uint64_t>(x->addresses, x->addresses + x->address_count),
              std::vector<uint64_t>(y->addresses, y->addresses + y->address_count));
    ASSERT_EQ(x->warps.size(), y->warps.size());
    for (size_t w = 0; w < x->warps.size(); ++w) {
      ASSERT_EQ(x->warps[w].count, y->warps[w].count);
      for (size_t k = 0; k < x->warps[w].count; ++k) {
        const TraceStep &p = x->warps[w].steps[k], &q = y->warps[w].steps[k];
        EXPECT_EQ(p.mask, q.mask);
        EXPECT_EQ(p.addr_begin, q.addr_begin);
        const TraceOp &po = x->ops[p.op], &qo = y->ops[q.op];
        EXPECT_EQ(po.pc, qo.pc);
        EXPECT_EQ(po.opcode, qo.opcode);
        EXPECT_EQ(po.mem_width, qo.mem_width);
        EXPECT_EQ(po.dst[0], qo.dst[0]);
        EXPECT_EQ(po.src[1], qo.src[1]);
      }
    }
  }
}

struct CacheEnv {  // MPGPU_TRACE_CACHE for one test
  explicit CacheEnv(const std::string& v) {
    ::setenv("MPGPU_TRACE_CACHE", v.c_str(), 1);
    trace_cache_counters() = {};  // counts start at zero whichever tests ran before in this process
  }
  ~CacheEnv() { ::unsetenv("MPGPU_TRACE_CACHE"); }
};

// A loop listed once per iteration keeps one static instruction per distinct line; a line that
// differs in any static field (here a register) is another one; masks and addresses stay per step.
TEST(TraceCache, RecurringLinesShareOneStaticInstruction) {
  TraceDir dir;
  const std::string loop = "0010 ffffffff 1 R2 FFMA 3 R1 R2 R2 0 \n0018 0000ffff 1 R4 LDG.E 1 R2 4 1 0x1000 4 \n";
  const std::string path =
      dir.write("k.traceg", header(4) + tb(loop + loop + loop + "0010 ffffffff 1 R3 FFMA 3 R1 R3 R3 0 \n", 7, "0,0,0"));
  const TraceKernel mem = read_traceg(path);
  ASSERT_EQ(mem.ops.size(), 3u);
  const auto& in = mem.tbs.at(0).warps.at(0).instrs;
  EXPECT_EQ(in[0].op_index, in[2].op_index);
  EXPECT_EQ(in[1].op_index, in[5].op_index);
  EXPECT_NE(in[0].op_index, in[6].op_index);  // same PC and opcode, other registers
  EXPECT_NE(in[1].addr_begin, in[3].addr_begin);
  CacheEnv env((dir.path / "cache").string());
  auto streamed = open_traceg(path);
  EXPECT_EQ(streamed->ops.size(), 3u);
  auto t = streamed->tb(0);
  EXPECT_EQ(t->ops[t->warps[0].steps[6].op].dst[0], 3u);
  EXPECT_EQ(t->warps[0].steps[3].mask, 0xffffu);
  EXPECT_EQ(t->addresses[t->warps[0].steps[3].addr_begin + 1], 0x1004u);
  expect_same_tbs(mem, *streamed);
}

// A block of 64 KiB or more is mapped from the copy rather than read: the same records either way.
TEST(TraceCache, ALargeBlockIsMappedWithTheSameContent) {
  TraceDir dir;
  std::string lines;
  for (int i = 0; i < 3000; ++i)
    lines += "0010 ffffffff 1 R2 FFMA 3 R1 R2 R2 0 \n0018 0000ffff 1 R4 LDG.E 1 R2 4 1 0x" + std::to_string(1000 + i) + "0 4 \n";
  const std::string path = dir.write("k.traceg", header(4) + tb(lines, 6000, "0,0,0") + tb("0010 0000000f 1 R3 FFMA 3 R1 R2 R3 0 \n", 1, "1,0,0"));
  const TraceKernel mem = read_traceg(path);
  CacheEnv env((dir.path / "cache").string());
  open_traceg(path);
  auto streamed = open_traceg(path);
  EXPECT_EQ(trace_cache_counters().reused, 1u);
  expect_same_tbs(mem, *streamed);  // thread block 0 is mapped (6000 steps and 48,000 addresses), 1 is read
  auto t = streamed->tb(0);
  EXPECT_EQ(t->addresses[t->warps[0].steps[5999].addr_begin + 15], 0x39990u + 15 * 4);
}

TEST(TraceCache, FirstOpenWritesTheCopySecondReusesItWithTheSameContent) {
  TraceDir dir;
  CacheEnv env((dir.path / "cache").string());
  const std::string path = dir.write("k.traceg", cached_trace_text());
  const TraceKernel mem = read_traceg(path);
  auto first = open_traceg(path);
  EXPECT_EQ(trace_cache_counters().parsed, 1u);
  EXPECT_TRUE(std::filesystem::exists(trace_cache_path(path)));
  auto second = open_traceg(path);
  EXPECT_EQ(trace_cache_counters().reused, 1u);
  EXPECT_TRUE(first->tbs.empty());  // streamed: thread blocks come from the copy
  expect_same_tbs(mem, *first);
  expect_same_tbs(mem, *second);
  auto tb1 = second->tb(1);
  EXPECT_EQ(tb1->ops[tb1->warps[0].steps[0].op].unit, UnitClass::fma);
}

TEST(TraceCache, ATextChangedWithTheSameSizeAndTimeIsParsedAgain) {
  TraceDir dir;
  CacheEnv env((dir.path / "cache").string());
  const std::string path = dir.write("k.traceg", cached_trace_text("0x2000"));
  open_traceg(path);
  const auto when = std::filesystem::last_write_time(path);
  dir.write("k.traceg", cached_trace_text("0x3000"));  // same length, other address
  std::filesystem::last_write_time(path, when);
  auto k = open_traceg(path);
  EXPECT_EQ(trace_cache_counters().rejected, 1u);
  EXPECT_EQ(trace_cache_counters().parsed, 2u);
  auto tb0 = k->tb(0);
  ASSERT_GT(tb0->address_count, 32u);
  EXPECT_EQ(tb0->addresses[32], 0x3000u);  // lane 0 of the store: the new text
}

TEST(TraceCache, ADamagedCopyIsNeverTrusted) {
  TraceDir dir;
  CacheEnv env((dir.path / "cache").string());
  const std::string path = dir.write("k.traceg", cached_trace_text());
  open_traceg(path);
  const std::string copy = trace_cache_path(path);
  {
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(copy) / 2));
    const char junk = 0x5a;
    f.write(&junk, 1);
  }
  auto k = open_traceg(path);
  EXPECT_EQ(trace_cache_counters().rejected, 1u);
  EXPECT_EQ(trace_cache_counters().parsed, 2u);
  expect_same_tbs(read_traceg(path), *k);
  std::filesystem::resize_file(copy, 10);  // truncated: rejected as well
  open_traceg(path);
  EXPECT_EQ(trace_cache_counters().rejected, 2u);
}

TEST(TraceCache, OffReadsIntoMemoryAndWritesNothing) {
  TraceDir dir;
  CacheEnv env("off");
  const std::string path = dir.write("k.traceg", cached_trace_text());
  auto k = open_traceg(path);
  EXPECT_EQ(k->tbs.size(), 2u);
  EXPECT_FALSE(k->store);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path), {}), 1);
}

TEST(TraceCache, ABadTextStillFailsWithItsLine) {
  TraceDir dir;
  CacheEnv env((dir.path / "cache").string());
  const std::string path = dir.write("k.traceg", header(4) + tb("0010 ffffffff 1 R1 NOTANOP 0 0 \n", 1));
  EXPECT_NE(error_of([&] { open_traceg(path); }).find("unknown opcode 'NOTANOP'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(trace_cache_path(path)));
}

}  // namespace
}  // namespace mpgpu
