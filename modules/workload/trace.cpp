#include "workload/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "common/error.hpp"
#include "common/input_file.hpp"

namespace mpgpu {


uint32_t TraceKernel::threads_per_tb() const { return block[0] * block[1] * block[2]; }

uint32_t TraceKernel::warps_per_tb() const { return (threads_per_tb() + 31) / 32; }

uint64_t TraceKernel::tb_count() const { return uint64_t{grid[0]} * grid[1] * grid[2]; }

namespace {

constexpr uint32_t kWarpSize = 32;
constexpr uint32_t kMaxThreadsPerTb = 1024;
// Per-dimension limits of CUDA (compute capability 3.0 and later): they also keep the products
// of the dimensions within 64 bits.
constexpr uint32_t kMaxGridDim[3] = {2147483647u, 65535u, 65535u};
constexpr uint32_t kMaxBlockDim[3] = {1024u, 1024u, 64u};
constexpr uint64_t kMaxTbs = 0xffffffffull;
constexpr uint32_t kMaxRegsPerThread = 255;      // the ISA's register names R0..R254
constexpr uint32_t kMaxShmemPerTb = 227 * 1024;  // the largest opt-in TB carve-out (sm_90)
// Host copies in a kernelslist: the bound on a workload's copies (1 TiB).
constexpr uint64_t kMaxCopyBytes = uint64_t{1} << 40;

[[noreturn]] void fail_at(const std::string& file, uint32_t line, const std::string& what) {
  throw ConfigError(file + ":" + std::to_string(std::max(1u, line)) + ": " + what);  // an empty file: line 1
}

// The whole file in memory, so that lines and fields are scanned with pointers, not streams.
// Mapped rather than copied: traces run to gigabytes, and a copy would double the pages touched.
class FileText {
 public:
  explicit FileText(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw ConfigError(path + ": cannot open (" + std::strerror(errno) + ")");
    struct stat st {};
    if (::fstat(fd, &st) == 0)
      if (const std::string kind = unreadable_kind(st.st_mode); !kind.empty()) {
        ::close(fd);
        throw ConfigError(path + ": cannot open (" + kind + ")");
      }
    const bool regular = S_ISREG(st.st_mode);
    if (regular && st.st_size > 0) {
      void* m = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (m != MAP_FAILED) {
        map_ = static_cast<const char*>(m);
        size_ = static_cast<size_t>(st.st_size);
        ::madvise(m, size_, MADV_SEQUENTIAL);
      }
    }
    if (!map_) read_all(fd, path);  // a pipe, an empty file or no mmap: plain reads
    ::close(fd);
  }
  ~FileText() {
    if (map_) ::munmap(const_cast<char*>(map_), size_);
  }
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  const char* data() const { return map_ ? map_ : copy_.data(); }
  // The text before `p` will not be read again: drop its pages from memory (mapped files only),
  // a few MiB at a time, so that a long trace streams through a bounded number of pages.
  void release_before(const char* p) {
    if (!map_) return;
    const size_t page = 4096, chunk = size_t{8} << 20;
    const size_t upto = static_cast<size_t>(p - map_) / page * page;
    if (upto < released_ + chunk) return;
    ::madvise(const_cast<char*>(map_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }
  size_t size() const { return map_ ? size_ : copy_.size(); }

 private:
  void read_all(int fd, const std::string& path) {
    char chunk[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n == 0) break;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        throw ConfigError(path + ": read error (" + std::strerror(errno) + ")");
      }
      copy_.append(chunk, static_cast<size_t>(n));
    }
  }

  const char* map_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
  std::string copy_;
};

bool file_exists(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int digit_value(char c, int base) {  // -1: not a digit of `base` (10 or 16)
  if (c >= '0' && c <= '9') return c - '0';
  if (base == 16 && c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (base == 16 && c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// Successive lines of a text buffer, numbered from 1, without their '\n' (or "\r\n").
class LineReader {
 public:
  explicit LineReader(const FileText& text) : p_(text.data()), end_(text.data() + text.size()) {}
  bool next(std::string_view& line) {
    if (p_ == end_) return false;
    const char* nl = static_cast<const char*>(std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
    const char* stop = nl ? nl : end_;
    line = std::string_view(p_, static_cast<size_t>(stop - p_));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    p_ = nl ? nl + 1 : end_;
    ++number_;
    return true;
  }
  // Next line that is not blank; false at the end of the file.
  bool next_nonblank(std::string_view& line) {
    while (next(line))
      if (!trim(line).empty()) return true;
    return false;
  }
  uint32_t number() const { return number_; }
  const char* position() const { return p_; }
  size_t bytes_left() const { return static_cast<size_t>(end_ - p_); }

 private:
  const char* p_;
  const char* end_;
  uint32_t number_ = 0;
};

// Parses all of `s` as a number (hex without its optional 0x prefix when base is 16).
template <class T>
bool parse_number(std::string_view s, T& value, int base = 10) {
  if (base == 16 && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// "key = value" with the key and value trimmed; false when there is no '='.
bool split_key_value(std::string_view line, std::string_view& key, std::string_view& value) {
  const size_t eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  key = trim(line.substr(0, eq));
  value = trim(line.substr(eq + 1));
  return true;
}

// "(x,y,z)" or "x,y,z".
bool parse_triple(std::string_view s, uint32_t out[3]) {
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  for (int i = 0; i < 3; ++i) {
    const size_t comma = i < 2 ? s.find(',') : s.size();
    if (comma == std::string_view::npos || !parse_number(trim(s.substr(0, comma)), out[i])) return false;
    s = i < 2 ? s.substr(comma + 1) : std::string_view();
  }
  return true;
}

std::string triple_text(const uint32_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

// Whitespace-separated fields of one line.
struct Fields {
  const char* p;
  const char* end;
  void skip_blanks() {
    while (p < end && is_blank(*p)) ++p;
  }
  bool at_end() {
    skip_blanks();
    return p == end;
  }
  std::string_view next() {  // empty at the end of the line
    skip_blanks();
    const char* b = p;
    while (p < end && !is_blank(*p)) ++p;
    return std::string_view(b, static_cast<size_t>(p - b));
  }
  // The next field as a number in base 10 or 16 (hex may carry 0x), scanned in one pass since
  // this is the reader's inner loop. On an empty field, a stray character or a value out of T's
  // range it returns false and leaves the field unread, for the caller's message.
  template <class T, int Base>
  bool number(T& out) {
    skip_blanks();
    const char* const start = p;
    const bool negative = std::is_signed_v<T> && p < end && *p == '-';
    if (negative) ++p;
    if (Base == 16 && end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) p += 2;
    const char* const digits = p;
    uint64_t v = 0;
    bool overflow = false;
    for (; p < end && !is_blank(*p); ++p) {
      const int d = digit_value(*p, Base);
      if (d < 0) break;
      overflow |= __builtin_mul_overflow(v, static_cast<uint64_t>(Base), &v);
      overflow |= __builtin_add_overflow(v, static_cast<uint64_t>(d), &v);
    }
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<T>::max()) + (negative ? 1 : 0);
    if (p == digits || (p < end && !is_blank(*p)) || overflow || v > limit) {
      p = start;
      return false;
    }
    out = negative ? static_cast<T>(0 - v) : static_cast<T>(v);
    return true;
  }
};

// A register operand as the trace names it. Only general-purpose registers carry dependencies;
// RZ (R255), predicates (P0, PT), uniform registers (UR4, URZ, UP0) and convergence barriers (B1)
// are kept out. Returns false for a token that is no register at all.
bool parse_register(std::string_view tok, uint16_t& reg) {
  reg = kNoReg;
  if (tok.size() >= 2 && tok[0] == 'R' && is_digit(tok[1])) {
    if (tok.size() > 4) return false;  // beyond R255
    uint32_t n = 0;
    for (size_t i = 1; i < tok.size(); ++i) {
      if (!is_digit(tok[i])) return false;
      n = n * 10 + static_cast<uint32_t>(tok[i] - '0');
    }
    if (n > 255) return false;
    if (n != 255) reg = static_cast<uint16_t>(n);
    return true;
  }
  size_t letters = 0;
  while (letters < tok.size() && tok[letters] >= 'A' && tok[letters] <= 'Z') ++letters;
  const std::string_view kind = tok.substr(0, letters), rest = tok.substr(letters);
  const bool known_kind = kind == "P" || kind == "UR" || kind == "UP" || kind == "B";
  const bool digits = !rest.empty() && rest.find_first_not_of("0123456789") == std::string_view::npos;
  if (known_kind && digits) return true;  // P0, UR4, UP1, B2
  // RZ, URZ: the zero registers; PT, UPT: the always-true predicates.
  return rest.empty() && (kind == "RZ" || kind == "URZ" || kind == "PT" || kind == "UPT");
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// TraceOp as a hash key: its bytes (no padding, checked below; fields are value-initialised).
static_assert(std::has_unique_object_representations_v<TraceOp>, "TraceOp is hashed and compared as bytes");
struct TraceOpHash {
  size_t operator()(const TraceOp& op) const { return static_cast<size_t>(XXH3_64bits(&op, sizeof op)); }
};
struct TraceOpEqual {
  bool operator()(const TraceOp& a, const TraceOp& b) const { return std::memcmp(&a, &b, sizeof a) == 0; }
};

class TracegParser {
 public:
  TracegParser(const std::string& path, bool unknown_as_sp, std::vector<std::string>* unknown_opcodes,
               std::function<void(TraceTb&&)> sink)
      : text_(path), lines_(text_), unknown_as_sp_(unknown_as_sp), unknown_opcodes_(unknown_opcodes),
        sink_(std::move(sink)) {
    k_.file = path;
  }

  TraceKernel parse() {
    std::string_view line;
    while (lines_.next(line)) {
      line = trim(line);
      if (line.empty()) continue;
      if (line[0] == '-') {
        header_line(line);
      } else if (line[0] == '#') {
        marker_line(line);
      } else if (in_tb_) {
        tb_line(line);
      } else {
        fail("unexpected line outside a thread block: " + quoted(line));
      }
    }
    if (in_tb_) fail("truncated file: no #END_TB for the thread block begun at line " + std::to_string(tb_line_));
    if (!seen_dims_) require_dims();
    // Every TB runs at least its EXIT, so the tracer lists each one: none means a cut-off file.
    if (k_.tb_records == 0) fail("no thread block in the trace (a cut-off file?)");
    return std::move(k_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(k_.file, lines_.number(), what); }

  // ---- header: "-key = value" ----

  void header_line(std::string_view line) {
    if (seen_tb_) fail("header line after the first thread block: " + quoted(line));
    std::string_view key, value;
    if (!split_key_value(line.substr(1), key, value)) fail("header line without '=': " + quoted(line));
    if (key == "kernel name") k_.name = std::string(value);
    else if (key == "kernel id") k_.id = header_number<uint32_t>(key, value);
    else if (key == "grid dim") header_dims(key, value, k_.grid, seen_grid_, kMaxGridDim);
    else if (key == "block dim") header_dims(key, value, k_.block, seen_block_, kMaxBlockDim);
    else if (key == "shmem") k_.shmem = header_bounded(key, value, kMaxShmemPerTb, "bytes of shared memory per TB");
    else if (key == "nregs") k_.nregs = header_bounded(key, value, kMaxRegsPerThread, "registers per thread");
    else if (key == "binary version") k_.binary_version = header_number<uint32_t>(key, value);
    else if (key == "cuda stream id") k_.stream = header_number<uint64_t>(key, value);
    else if (key == "shmem base_addr") k_.shmem_base = header_number<uint64_t>(key, value, 16);
    else if (key == "local mem base_addr") k_.local_base = header_number<uint64_t>(key, value, 16);
    else if (key == "nvbit version") k_.nvbit_version = std::string(value);
    else if (key == "accelsim tracer version") k_.tracer_version = header_number<uint32_t>(key, value);
    else if (key == "enable lineinfo") k_.lineinfo = header_number<uint32_t>(key, value) != 0;
    // Other keys (newer tracers add some) carry nothing the model uses.
  }

  template <class T>
  T header_number(std::string_view key, std::string_view value, int base = 10) const {
    T v{};
    if (!parse_number(value, v, base)) fail("bad value " + quoted(value) + " for '-" + std::string(key) + "'");
    return v;
  }

  uint32_t header_bounded(std::string_view key, std::string_view value, uint32_t max, const char* what) const {
    const uint32_t v = header_number<uint32_t>(key, value);
    if (v > max)
      fail("'-" + std::string(key) + " = " + std::to_string(v) + "': CUDA allows at most " + std::to_string(max) + " " + what);
    return v;
  }

  void header_dims(std::string_view key, std::string_view value, uint32_t out[3], bool& seen, const uint32_t max[3]) {
    if (!parse_triple(value, out) || !out[0] || !out[1] || !out[2])
      fail("bad value " + quoted(value) + " for '-" + std::string(key) + "': expected (x,y,z) with x, y, z >= 1");
    if (out[0] > max[0] || out[1] > max[1] || out[2] > max[2])
      fail("'-" + std::string(key) + " = " + triple_text(out) + "' is beyond CUDA's limits " + triple_text(max));
    if (out == k_.grid && k_.tb_count() > kMaxTbs)
      fail("'-grid dim = " + triple_text(out) + "' has " + std::to_string(k_.tb_count()) +
           " TBs: the model's TB index (and the KSRT's grid_tbs field) holds at most 2^32-1");
    seen = true;
  }

  void require_dims() {
    if (!seen_grid_) fail("missing '-grid dim' header");
    if (!seen_block_) fail("missing '-block dim' header");
    const uint64_t threads = uint64_t{k_.block[0]} * k_.block[1] * k_.block[2];
    if (threads > kMaxThreadsPerTb)
      fail("block dim " + triple_text(k_.block) + " has " + std::to_string(threads) + " threads, more than CUDA's " +
           std::to_string(kMaxThreadsPerTb));
    seen_dims_ = true;
  }

  // ---- thread blocks ----

  void marker_line(std::string_view line) {
    if (line == "#BEGIN_TB") {
      if (in_tb_) fail("#BEGIN_TB before the #END_TB of the thread block begun at line " + std::to_string(tb_line_));
      if (!seen_dims_) require_dims();
      seen_tb_ = in_tb_ = true;
      tb_line_ = lines_.number();
      seen_tb_coords_ = false;
      tb_ = TraceTb{};
    } else if (line == "#END_TB") {
      if (!in_tb_) fail("#END_TB without #BEGIN_TB");
      if (!seen_tb_coords_) fail("thread block begun at line " + std::to_string(tb_line_) + " has no 'thread block = x,y,z'");
      in_tb_ = false;
      if (k_.tb_records == UINT32_MAX) fail("more than 2^32 thread blocks");
      ++k_.tb_records;
      for (const TraceWarp& w : tb_.warps) k_.instructions += w.instrs.size();
      sink_(std::move(tb_));
      text_.release_before(lines_.position());  // parsed text is not needed again: bounded memory
    }
    // Any other '#' line is a comment ("#traces format = ...").
  }

  void tb_line(std::string_view line) {
    std::string_view key, value;
    if (!split_key_value(line, key, value)) {
      if (is_hex_digit(line[0])) fail("instruction line beyond the 'insts' count of its warp: " + quoted(line));
      fail("unexpected line in a thread block: " + quoted(line));
    }
    TraceTb& tb = tb_;
    if (key == "thread block") {
      thread_block_line(tb, value);
    } else if (key == "warp") {
      warp_line(tb, value);
    } else if (key == "insts") {
      insts_line(tb, value);
    } else if (!starts_with(key, "cluster")) {  // cluster id / cta / rank (Hopper): not modelled
      fail("unexpected line in a thread block: " + quoted(line));
    }
  }

  void thread_block_line(TraceTb& tb, std::string_view value) {
    uint32_t xyz[3];
    if (!parse_triple(value, xyz)) fail("bad thread block coordinates " + quoted(value));
    if (xyz[0] >= k_.grid[0] || xyz[1] >= k_.grid[1] || xyz[2] >= k_.grid[2])
      fail("thread block " + triple_text(xyz) + " is outside the grid " + triple_text(k_.grid));
    tb.x = xyz[0];
    tb.y = xyz[1];
    tb.z = xyz[2];
    seen_tb_coords_ = true;
    warp_ = -1;
  }

  void warp_line(TraceTb& tb, std::string_view value) {
    uint32_t w = 0;
    if (!parse_number(value, w)) fail("bad warp id " + quoted(value));
    if (w >= k_.warps_per_tb())
      fail("warp " + std::to_string(w) + " out of range: block dim " + triple_text(k_.block) + " has " +
           std::to_string(k_.warps_per_tb()) + " warps");
    if (w < tb.warps.size()) fail("warp " + std::to_string(w) + " repeated or out of order");
    tb.warps.resize(w + 1);  // warps the file skips stay empty
    warp_ = static_cast<int64_t>(w);
    warp_has_insts_ = false;
  }

  void insts_line(TraceTb& tb, std::string_view value) {
    if (warp_ < 0) fail("'insts' line before any 'warp' line");
    if (warp_has_insts_) fail("second 'insts' line for warp " + std::to_string(warp_));
    uint32_t count = 0;
    if (!parse_number(value, count)) fail("bad instruction count " + quoted(value));
    warp_has_insts_ = true;
    const uint32_t insts_line_no = lines_.number();
    std::vector<TraceInstr>& instrs = tb.warps[static_cast<size_t>(warp_)].instrs;
    // An instruction line takes well over 8 bytes: a bogus count cannot reserve past the file.
    instrs.reserve(std::min<size_t>(count, lines_.bytes_left() / 8));
    std::string_view line;
    for (uint32_t i = 0; i < count; ++i) {
      const bool more = lines_.next_nonblank(line);
      if (!more || !looks_like_instruction(line)) {
        fail(std::string(more ? "" : "truncated file: ") + "warp " + std::to_string(warp_) + " of thread block " +
             std::to_string(tb.x) + "," + std::to_string(tb.y) + "," + std::to_string(tb.z) + " has " +
             std::to_string(i) + " instruction lines but 'insts = " + std::to_string(count) + "' at line " +
             std::to_string(insts_line_no) + (more ? "; found " + quoted(trim(line)) : std::string()));
      }
      instruction(line, instrs.emplace_back());
    }
  }

  static bool looks_like_instruction(std::string_view line) {
    line = trim(line);
    const size_t n = std::min(line.find_first_of(" \t"), line.size());
    for (size_t i = 0; i < n; ++i)
      if (!is_hex_digit(line[i])) return false;
    return n > 0;
  }

  // ---- one instruction line ----
  // [tb_x tb_y tb_z warp] (tracer < 3) [line_num] (lineinfo) PC mask ndst dst.. opcode nsrc src..
  // mem_width [mode addresses..] [immediate] (tracer >= 5)

  void instruction(std::string_view line, TraceInstr& in) {
    Fields f{line.data(), line.data() + line.size()};
    if (k_.tracer_version < 3)
      for (const char* what : {"thread block x", "thread block y", "thread block z", "warp id"}) field<uint32_t>(f, what);
    if (k_.lineinfo) field<uint32_t>(f, "source line number");
    in.pc = field<uint32_t, 16>(f, "PC");
    in.mask = field<uint32_t, 16>(f, "active mask");
    in.ndst = registers(f, in.dst, kMaxDst, "destination register count", "destination");
    opcode(f, in);
    in.nsrc = registers(f, in.src, kMaxSrc, "source register count", "source");
    in.waw = waw_only(in.dst, in.ndst, in.src, in.nsrc);
    memory(f, in);
    if (k_.tracer_version >= 5 && !f.at_end()) field<int64_t>(f, "immediate");
    if (!f.at_end()) {
      const std::string extra = "unexpected field " + quoted(f.next()) + " at the end of the instruction line";
      if (in.mem_width == 0) fail(extra);
      fail(extra + " (more addresses than the " + std::to_string(in.active_lanes()) + " active lanes?)");
    }
    in.op_index = intern(in);
  }

  // Index of the instruction's static part in the kernel's table, added at first sight.
  uint32_t intern(const TraceOp& op) {
    auto it = op_index_.find(op);
    if (it != op_index_.end()) return it->second;
    if (k_.ops.size() == UINT32_MAX) fail("more than 2^32 distinct instructions");
    k_.ops.push_back(op);
    return op_index_.emplace(op, static_cast<uint32_t>(k_.ops.size() - 1)).first->second;
  }

  template <class T, int Base = 10>
  T field(Fields& f, const char* what) {
    T v{};
    if (f.number<T, Base>(v)) return v;
    const std::string_view tok = f.next();
    if (tok.empty()) fail(std::string("missing ") + what);
    fail(std::string("bad ") + what + " " + quoted(tok));
  }

  // A count then that many register names; keeps the general-purpose ones in `regs`.
  uint8_t registers(Fields& f, uint16_t* regs, int capacity, const char* count_what, const char* what) {
    const uint32_t count = field<uint32_t>(f, count_what);
    uint8_t kept = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const std::string_view tok = f.next();
      if (tok.empty()) fail(std::string("missing ") + what + " register " + std::to_string(i + 1) + " of " + std::to_string(count));
      uint16_t reg;
      if (!parse_register(tok, reg)) fail(std::string("bad ") + what + " register " + quoted(tok));
      if (reg == kNoReg) continue;
      if (kept == capacity) fail(std::string("more than ") + std::to_string(capacity) + " " + what + " registers");
      regs[kept++] = reg;
      k_.register_span = std::max<uint32_t>(k_.register_span, reg + 1u);
    }
    return kept;
  }

  void opcode(Fields& f, TraceInstr& in) {
    const std::string_view name = f.next();
    if (name.empty()) fail("missing opcode");
    auto it = opcode_index_.find(name);
    if (it == opcode_index_.end()) it = opcode_index_.emplace(name, new_opcode(name)).first;
    const uint16_t index = it->second;
    const OpcodeInfo& info = opcode_info_[index];
    in.opcode = index;
    in.unit = info.unit;
    in.space = info.space;
    in.op = info.op;
  }

  // First sight of an opcode in this kernel: classify it once.
  uint16_t new_opcode(std::string_view name) {
    if (k_.opcodes.size() > UINT16_MAX) fail("more than 65536 distinct opcodes");
    std::string full(name);
    std::optional<OpcodeInfo> info = lookup_opcode(full);
    if (!info) {
      if (!unknown_as_sp_) fail("unknown opcode " + quoted(name));
      info = OpcodeInfo{UnitClass::sp, MemSpace::none, MemOp::none};
      if (unknown_opcodes_ && std::find(unknown_opcodes_->begin(), unknown_opcodes_->end(), full) == unknown_opcodes_->end())
        unknown_opcodes_->push_back(full);
    }
    k_.opcodes.push_back(std::move(full));
    opcode_info_.push_back(*info);
    return static_cast<uint16_t>(k_.opcodes.size() - 1);
  }

  // mem_width, then one address per active lane in one of the tracer's three encodings.
  void memory(Fields& f, TraceInstr& in) {
    const uint32_t width = field<uint32_t>(f, "memory width");
    if (width == 0) return;
    if (width > 255) fail("memory width " + std::to_string(width) + " out of range");
    in.mem_width = static_cast<uint8_t>(width);
    std::vector<uint64_t>& addresses = tb_.addresses;
    if (addresses.size() > UINT32_MAX - kWarpSize) fail("more than 2^32 addresses in one thread block");
    in.addr_begin = static_cast<uint32_t>(addresses.size());
    const uint32_t lanes = in.active_lanes();
    switch (field<uint32_t>(f, "address mode")) {
      case 0:  // list_all: each active lane's address
        for (uint32_t i = 0; i < lanes; ++i) {
          if (f.at_end()) fail_lane_count(in, lanes, i, "addresses");
          addresses.push_back(field<uint64_t, 16>(f, "address"));
        }
        break;
      case 1: {  // base_stride: lane i (counting active lanes) at base + i * stride
        const uint64_t base = field<uint64_t, 16>(f, "base address");
        const int64_t stride = field<int64_t>(f, "address stride");
        for (uint32_t i = 0; i < lanes; ++i) addresses.push_back(base + static_cast<uint64_t>(stride) * i);
        break;
      }
      case 2: {  // base_delta: the first lane at base, each further lane at the previous + delta
        uint64_t addr = field<uint64_t, 16>(f, "base address");
        for (uint32_t i = 0; i < lanes; ++i) {
          if (i > 0) {
            if (f.at_end()) fail_lane_count(in, lanes - 1, i - 1, "address deltas after the base");
            addr += static_cast<uint64_t>(field<int64_t>(f, "address delta"));
          }
          addresses.push_back(addr);
        }
        break;
      }
      default:
        fail("unknown address mode (expected 0 list, 1 base_stride or 2 base_delta)");
    }
  }

  // Fewer address fields than the active lanes need.
  [[noreturn]] void fail_lane_count(const TraceInstr& in, uint32_t due, uint32_t found, const char* what) const {
    char mask[9];
    std::snprintf(mask, sizeof mask, "%08x", in.mask);
    fail("mask " + std::string(mask) + " has " + std::to_string(in.active_lanes()) + " active lanes, so " +
         std::to_string(due) + " " + what + " are due, found " + std::to_string(found));
  }

  FileText text_;
  LineReader lines_;
  bool unknown_as_sp_;
  std::vector<std::string>* unknown_opcodes_;
  TraceKernel k_;
  TraceTb tb_;  // the thread block being read
  std::function<void(TraceTb&&)> sink_;
  // Opcode names view into text_, which outlives the parse.
  std::unordered_map<std::string_view, uint16_t> opcode_index_;
  std::unordered_map<TraceOp, uint32_t, TraceOpHash, TraceOpEqual> op_index_;
  std::vector<OpcodeInfo> opcode_info_;
  bool seen_grid_ = false, seen_block_ = false, seen_dims_ = false;
  bool seen_tb_ = false, in_tb_ = false, seen_tb_coords_ = false, warp_has_insts_ = false;
  uint32_t tb_line_ = 0;
  int64_t warp_ = -1;
};

// ---- kernelslist.g ----

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string join(const std::string& folder, std::string_view name) {
  if (!name.empty() && name[0] == '/') return std::string(name);
  return folder + (folder.back() == '/' ? "" : "/") + std::string(name);
}

// "MemcpyHtoD,0xADDR,BYTES" (or MemcpyDtoH).
TraceCommand memcpy_command(std::string_view line, const std::string& file, uint32_t line_no) {
  TraceCommand c;
  c.kind = starts_with(line, "MemcpyHtoD") ? TraceCommand::Kind::memcpy_h2d : TraceCommand::Kind::memcpy_d2h;
  c.line = line_no;
  const size_t a = line.find(','), b = a == std::string_view::npos ? a : line.find(',', a + 1);
  const auto bad = [&](const std::string& what) {
    fail_at(file, line_no, what + " in " + quoted(line) + " (expected MemcpyHtoD,0xADDRESS,BYTES)");
  };
  if (b == std::string_view::npos || line.find(',', b + 1) != std::string_view::npos) bad("expected 3 fields");
  if (trim(line.substr(0, a)) != "MemcpyHtoD" && trim(line.substr(0, a)) != "MemcpyDtoH") bad("unknown command");
  if (!parse_number(trim(line.substr(a + 1, b - a - 1)), c.addr, 16)) bad("bad address");
  if (!parse_number(trim(line.substr(b + 1)), c.bytes)) bad("bad byte count");
  if (c.bytes == 0 || c.bytes > kMaxCopyBytes) bad("byte count " + std::to_string(c.bytes) + " out of range [1, 2^40]");
  return c;
}

}  // namespace

TraceKernel read_traceg(const std::string& path, bool unknown_as_sp, std::vector<std::string>* unknown_opcodes) {
  if (ends_with(path, ".xz")) throw ConfigError(path + ": xz-compressed traces are not supported; decompress with 'xz -dk'");
  std::vector<TraceTb> tbs;
  TraceKernel k = TracegParser(path, unknown_as_sp, unknown_opcodes, [&](TraceTb&& tb) { tbs.push_back(std::move(tb)); }).parse();
  k.tbs = std::move(tbs);
  return k;
}

TraceKernel parse_traceg(const std::string& path, const std::function<void(TraceTb&&)>& sink) {
  if (ends_with(path, ".xz")) throw ConfigError(path + ": xz-compressed traces are not supported; decompress with 'xz -dk'");
  return TracegParser(path, false, nullptr, sink).parse();
}

TraceList read_kernelslist(const std::string& path) {
  TraceList list;
  list.file = path;
  const FileText text(path);
  const std::string folder = folder_of(path);
  LineReader lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    const std::string_view line = trim(raw);
    const uint32_t n = lines.number();
    list.lines = n;
    if (line.empty() || line[0] == '#') continue;
    if (starts_with(line, "Memcpy")) {
      list.commands.push_back(memcpy_command(line, path, n));
    } else if (ends_with(line, ".traceg")) {
      TraceCommand c;
      c.kind = TraceCommand::Kind::kernel;
      c.path = join(folder, line);
      c.line = n;
      if (!file_exists(c.path)) fail_at(path, n, "kernel trace " + quoted(line) + " not found (" + c.path + ")");
      list.commands.push_back(std::move(c));
    } else if (ends_with(line, ".xz")) {
      fail_at(path, n, "compressed trace " + quoted(line) + " is not supported; decompress it with 'xz -dk'");
    } else {
      fail_at(path, n, "unrecognised command " + quoted(line) +
                           " (expected kernel-N.traceg, MemcpyHtoD,ADDRESS,BYTES or MemcpyDtoH,ADDRESS,BYTES)");
    }
  }
  return list;
}

}  // namespace mpgpu
