#include "workload/program.hpp"

#include <cmath>
#include <cstring>
#include <map>

#include "common/rng.hpp"

namespace mpgpu {

namespace {

struct OpSpec {
  UnitClass unit;
  MemSpace space;
  MemOp op;
};

const std::map<std::string, OpSpec>& op_table() {
  static const std::map<std::string, OpSpec> t = {
      {"sp", {UnitClass::sp, MemSpace::none, MemOp::none}},
      {"fma", {UnitClass::fma, MemSpace::none, MemOp::none}},
      {"dp", {UnitClass::dp, MemSpace::none, MemOp::none}},
      {"sfu", {UnitClass::sfu, MemSpace::none, MemOp::none}},
      {"tensor", {UnitClass::tensor, MemSpace::none, MemOp::none}},
      {"nop", {UnitClass::nop, MemSpace::none, MemOp::none}},
      {"branch", {UnitClass::branch, MemSpace::none, MemOp::none}},
      {"bar", {UnitClass::barrier, MemSpace::none, MemOp::none}},
      {"ld.global", {UnitClass::ldst, MemSpace::global, MemOp::load}},
      {"st.global", {UnitClass::ldst, MemSpace::global, MemOp::store}},
      {"atom.global", {UnitClass::ldst, MemSpace::global, MemOp::atomic}},
      {"ld.shared", {UnitClass::ldst, MemSpace::shared, MemOp::load}},
      {"st.shared", {UnitClass::ldst, MemSpace::shared, MemOp::store}},
      {"atom.shared", {UnitClass::ldst, MemSpace::shared, MemOp::atomic}},
  };
  return t;
}

std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const auto& [k, _] : op_table()) v.push_back(k);
  return v;
}

uint16_t parse_register(const ConfigNode& n) {
  const std::string s = n.as_str();
  if (s.size() < 2 || (s[0] != 'r' && s[0] != 'R')) n.fail("expected a register name r0..r254, got '" + s + "'");
  char* end = nullptr;
  const long r = std::strtol(s.c_str() + 1, &end, 10);
  if (*end || r < 0 || r > 254) n.fail("expected a register name r0..r254, got '" + s + "'");
  return static_cast<uint16_t>(r);
}

AddressExpr parse_address(const ConfigNode& n, uint64_t grid_threads) {
  n.expect_map();
  AddressExpr e;
  if (auto r = n.opt("random")) {
    e.kind = AddressExpr::Kind::random;
    e.base = r->req_int("base", 0, int64_t{1} << 48);
    e.range = r->req_int("bytes", 1, int64_t{1} << 40);
    e.seed = r->opt_int("seed", 1, 0, int64_t{1} << 62);
    r->finish();
  } else {
    e.base = n.req_int("base", 0, int64_t{1} << 48);
    constexpr int64_t kStride = int64_t{1} << 40;  // past bit 33, which no GTX 1080 hash uses
    e.tid = n.opt_int("tid", 0, -kStride, kStride);
    e.gtid = n.opt_int("gtid", 0, -kStride, kStride);
    e.lane = n.opt_int("lane", 0, -kStride, kStride);
    e.warp = n.opt_int("warp", 0, -kStride, kStride);
    e.tb = n.opt_int("tb", 0, -kStride, kStride);
    e.iter = n.opt_int("iter", 0, -kStride, kStride);
    // A grid-stride loop's step follows the launch: bytes per thread times the grid's threads,
    // so a kernel whose grid is changed (--set, the speed benchmark's scaling) keeps its meaning.
    if (auto g = n.opt("grid_stride")) {
      // In 128 bits: up to 2^40 bytes x 2^42 threads (2^32 TBs of 1024) overflows 64.
      const __int128 step = __int128{g->as_int(-kStride, kStride)} * grid_threads + e.iter;
      if (step < -kStride || step > kStride)
        g->fail("grid_stride x the grid's " + std::to_string(grid_threads) + " threads is out of range [-2^40, 2^40]");
      e.iter = static_cast<int64_t>(step);
    }
    e.wrap = n.opt_int("wrap", 0, 0, int64_t{1} << 40);
    if (auto x = n.opt("tb_xor")) {
      if (x->items().size() > AddressExpr::kTbXorBits)
        x->fail("at most " + std::to_string(AddressExpr::kTbXorBits) + " masks (one per bit of the TB index)");
      for (const auto& v : x->items()) e.tb_xor[e.tb_xor_bits++] = v.as_int(0, int64_t{1} << 48);
    }
  }
  n.finish();
  return e;
}

class ProgramReader {
 public:
  ProgramReader(WarpProgram& p, uint32_t warp_size, uint64_t grid_threads)
      : p_(p), warp_size_(warp_size), grid_threads_(grid_threads) {}

  void body(const ConfigNode& list, double active, uint8_t depth) {
    list.expect_sequence();
    if (list.items().empty()) list.fail("a program body needs at least one instruction");
    for (const auto& item : list.items()) {
      item.expect_map();
      if (item.has("loop")) {
        if (depth >= kMaxLoopDepth) item.fail("loops nested more than " + std::to_string(kMaxLoopDepth) + " deep");
        const uint32_t count = item.req_int("loop", 1, 1 << 30);
        const uint32_t start = static_cast<uint32_t>(p_.instrs.size());
        body(item.req("body"), item.opt_num("active_fraction", active, 0, 1), depth + 1);
        item.finish();
        ProgInstr b;  // the back-edge: a real branch instruction, executed once per iteration
        b.unit = UnitClass::branch;
        b.back_edge = true;
        b.count = count;
        b.target = start;
        b.depth = depth + 1;
        b.active_lanes = lanes(active);
        p_.instrs.push_back(b);
      } else {
        instr(item, active, depth);
      }
    }
  }

 private:
  uint32_t lanes(double fraction) const {
    return std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(fraction * warp_size_)));
  }

  void registers(const ConfigNode& n, const std::string& key, uint16_t* out, uint8_t& count, int max) {
    auto r = n.opt(key);
    if (!r) return;
    std::vector<ConfigNode> regs = r->is_sequence() ? r->items() : std::vector<ConfigNode>{*r};
    if (static_cast<int>(regs.size()) > max) r->fail("at most " + std::to_string(max) + " registers");
    for (const auto& reg : regs) {
      out[count++] = parse_register(reg);
      p_.max_register = std::max<uint32_t>(p_.max_register, out[count - 1] + 1u);
    }
  }

  void instr(const ConfigNode& n, double active, uint8_t depth) {
    const std::string name = n.req_enum("op", op_names());
    const OpSpec& s = op_table().at(name);
    ProgInstr i;
    i.unit = s.unit;
    i.space = s.space;
    i.op = s.op;
    i.depth = depth;
    i.active_lanes = lanes(n.opt_num("active_fraction", active, 0, 1));
    registers(n, "dst", i.dst, i.ndst, kMaxDst);
    registers(n, "src", i.src, i.nsrc, kMaxSrc);
    if (s.space != MemSpace::none) {
      i.width = static_cast<uint8_t>(n.opt_int("width", 4, 1, 16));
      if (i.width & (i.width - 1)) n.req("width").fail("access width must be 1, 2, 4, 8 or 16 bytes");
      i.addr = static_cast<int32_t>(p_.addresses.size());
      p_.addresses.push_back(parse_address(n.req("addr"), grid_threads_));
      if (s.op == MemOp::load && i.ndst == 0) n.fail("a load needs a destination register (dst)");
    } else {
      n.opt("width");
      n.opt("addr");
      if (n.has("width") || n.has("addr")) n.fail("'" + name + "' does not access memory: no width/addr");
    }
    n.finish();
    p_.instrs.push_back(i);
  }

  WarpProgram& p_;
  uint32_t warp_size_;
  uint64_t grid_threads_;
};

}  // namespace

WarpProgram parse_program(const ConfigNode& n, uint32_t warp_size, uint64_t grid_threads) {
  n.expect_map();
  WarpProgram p;
  ProgramReader(p, warp_size, grid_threads).body(n.req("body"), n.opt_num("active_fraction", 1.0, 0, 1), 0);
  n.finish();
  return p;
}

uint64_t WarpProgram::instructions_per_warp() const {
  // Executions of each instruction = product of the counts of its enclosing loops; walk the
  // flat list backwards, entering a loop at its back-edge.
  uint64_t total = 0;
  std::vector<uint64_t> mult{1};
  std::vector<uint32_t> starts;
  for (size_t k = instrs.size(); k-- > 0;) {
    const ProgInstr& i = instrs[k];
    if (i.back_edge) {
      total += mult.back() * i.count;
      mult.push_back(mult.back() * i.count);
      starts.push_back(i.target);
    } else {
      total += mult.back();
    }
    while (!starts.empty() && k == starts.back()) {
      starts.pop_back();
      mult.pop_back();
    }
  }
  return total;
}

namespace {
// affine: the XOR of tb_xor[k] over the set bits k of the TB index (lane-independent).
uint64_t tb_swizzle(const AddressExpr& e, uint32_t tb) {
  uint64_t swizzle = 0;
  for (uint32_t k = 0; k < e.tb_xor_bits; ++k)
    if (tb >> k & 1) swizzle ^= e.tb_xor[k];
  return swizzle;
}
}  // namespace

uint64_t lane_address(const AddressExpr& e, const LaneCoords& c, uint32_t lane) {
  const uint64_t tid = uint64_t{c.warp_in_tb} * c.warp_size + lane;
  if (e.kind == AddressExpr::Kind::random) {
    const uint64_t h = hash3(e.seed, (uint64_t{c.tb} << 32) | tid, (uint64_t{c.pc} << 32) | c.iter);
    return e.base + (h % e.range);
  }
  const uint64_t gtid = uint64_t{c.tb} * c.threads_per_tb + tid;
  // Unsigned arithmetic: wraps modulo 2^64 like the address arithmetic of a real kernel.
  uint64_t u = uint64_t(e.tid) * tid + uint64_t(e.gtid) * gtid + uint64_t(e.lane) * lane +
               uint64_t(e.warp) * c.warp_in_tb + uint64_t(e.tb) * c.tb + uint64_t(e.iter) * c.iter;
  int64_t off = static_cast<int64_t>(u);
  if (e.wrap) {
    off %= int64_t(e.wrap);
    if (off < 0) off += int64_t(e.wrap);
  }
  return (e.base + uint64_t(off)) ^ tb_swizzle(e, c.tb);
}

bool lane_addresses(const AddressExpr& e, const LaneCoords& c, uint32_t n, uint64_t align, uint64_t* out,
                    bool range_only) {
  if (e.kind != AddressExpr::Kind::affine || e.wrap || n == 0) {
    for (uint32_t l = 0; l < n; ++l) out[l] = lane_address(e, c, l) & align;
    return false;
  }
  // Without a wrap the address is affine in the lane (tid, gtid and lane all step by one) and
  // the swizzle does not depend on it: lane 0's address plus a stride, modulo 2^64 as above.
  const uint64_t stride = uint64_t(e.tid) + uint64_t(e.gtid) + uint64_t(e.lane);
  const uint64_t swizzle = tb_swizzle(e, c.tb);
  const uint64_t base = lane_address(e, c, 0) ^ swizzle;
  // Each lane right after the previous: no swizzle, the access width (a power of two, so that the
  // mask keeps every lane's address) as the stride, an aligned base.
  const uint64_t width = ~align + 1;
  const bool contiguous =
      swizzle == 0 && align != 0 && (width & (width - 1)) == 0 && stride == width && (base & ~align) == 0;
  if (contiguous && range_only) {  // the lanes between follow from the ends
    out[0] = base & align;
    out[n - 1] = (base + (n - 1) * stride) & align;
    return true;
  }
  // Stepped, not multiplied, two lanes a vector (-O2 does not vectorize the plain loop).
  using Pair = uint64_t __attribute__((vector_size(16)));
  const Pair sw = {swizzle, swizzle}, mask = {align, align}, step = {2 * stride, 2 * stride};
  Pair a = {base, base + stride};
  uint32_t l = 0;
  for (; l + 2 <= n; l += 2, a += step) {
    const Pair v = (a ^ sw) & mask;
    std::memcpy(out + l, &v, sizeof v);
  }
  if (l < n) out[l] = ((base + l * stride) ^ swizzle) & align;
  return contiguous;
}

const char* unit_class_name(UnitClass c) {
  static const char* const names[kUnitClasses] = {"sp", "fma", "dp", "sfu", "tensor", "ldst", "branch", "barrier", "nop"};
  return names[static_cast<int>(c)];
}

}  // namespace mpgpu
