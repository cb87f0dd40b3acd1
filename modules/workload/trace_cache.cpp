#include "workload/trace_cache.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sys/mman.h>
#include <xxhash.h>

#include "common/error.hpp"

namespace mpgpu {

namespace {

static_assert(std::is_trivially_copyable_v<TraceStep> && std::is_trivially_copyable_v<TraceOp>,
              "trace records are written as raw bytes");

constexpr char kMagic[8] = {'M', 'P', 'G', 'P', 'U', 'T', 'R', 'C'};
// Bumped whenever the parser accepts less (2: header ranges) or the layout changes (3: records
// 8-byte aligned, mapped in place, XXH3; 4: an instruction's WAW mask): an older copy is read
// again from the text.
constexpr uint32_t kVersion = 4;
constexpr uint32_t kRecordBytes = sizeof(TraceStep) + sizeof(TraceOp);

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t instr_bytes;  // sizeof(TraceStep) + sizeof(TraceOp) when written: a different layout is not read
  uint64_t text_size;
  int64_t text_mtime_ns;
  uint64_t text_hash;
  uint64_t payload_hash;  // every byte after this header
  uint64_t payload_bytes;
  uint64_t meta_offset;   // kernel header, opcodes and thread-block index, after the records
};

// XXH3 (64 bits) over bytes, resumable across chunks: the freshness check reads the text and the
// copy at memory speed (the byte-wise FNV-1a it replaces was a quarter of a warm run).
class Hash {
 public:
  Hash() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_64bits_reset(state_);
  }
  ~Hash() { XXH3_freeState(state_); }
  Hash(const Hash&) = delete;
  Hash& operator=(const Hash&) = delete;
  void add(const void* p, size_t n) { XXH3_64bits_update(state_, p, n); }
  uint64_t value() const { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

struct TextStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
};

bool stat_text(const std::string& path, TextStat& s) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return true;
}

// Hash of `bytes` bytes of fd from `offset`; false on a short read.
bool hash_fd(int fd, uint64_t offset, uint64_t bytes, uint64_t& out) {
  static thread_local std::vector<char> buf(1 << 20);
  Hash h;
  while (bytes > 0) {
    const ssize_t n = ::pread(fd, buf.data(), std::min<uint64_t>(buf.size(), bytes), static_cast<off_t>(offset));
    if (n <= 0) return false;
    h.add(buf.data(), static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
    bytes -= static_cast<uint64_t>(n);
  }
  out = h.value();
  return true;
}

bool hash_file(const std::string& path, uint64_t size, uint64_t& out) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const bool ok = hash_fd(fd, 0, size, out);
  ::close(fd);
  return ok;
}

// Little writer/reader of the meta section.
struct Out {
  std::vector<char> b;
  template <class T>
  void put(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    b.insert(b.end(), p, p + sizeof v);
  }
  void str(const std::string& s) {
    put(static_cast<uint32_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
};

struct In {
  const char* p;
  const char* end;
  bool ok = true;
  template <class T>
  T get() {
    T v{};
    if (end - p < static_cast<ptrdiff_t>(sizeof v)) {
      ok = false;
      return v;
    }
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  std::string str() {
    const uint32_t n = get<uint32_t>();
    if (!ok || static_cast<uint64_t>(end - p) < n) {
      ok = false;
      return {};
    }
    std::string s(p, n);
    p += n;
    return s;
  }
};

void write_meta(Out& o, const TraceKernel& k, const std::vector<TraceTbStore::Entry>& index) {
  for (uint32_t v : {k.id, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2], k.shmem, k.nregs,
                     k.binary_version, k.tracer_version, uint32_t(k.lineinfo), k.tb_records, k.register_span})
    o.put(v);
  for (uint64_t v : {k.stream, k.shmem_base, k.local_base, k.instructions}) o.put(v);
  o.str(k.name);
  o.str(k.nvbit_version);
  o.put(static_cast<uint32_t>(k.opcodes.size()));
  for (const std::string& s : k.opcodes) o.str(s);
  o.put(static_cast<uint64_t>(k.ops.size()));
  for (const TraceOp& op : k.ops) o.put(op);
  o.put(static_cast<uint64_t>(index.size()));
  for (const auto& e : index) o.put(e);
}

bool read_meta(In& in, TraceKernel& k, std::vector<TraceTbStore::Entry>& index) {
  uint32_t lineinfo = 0;
  for (uint32_t* v : {&k.id, &k.grid[0], &k.grid[1], &k.grid[2], &k.block[0], &k.block[1], &k.block[2], &k.shmem,
                      &k.nregs, &k.binary_version, &k.tracer_version, &lineinfo, &k.tb_records, &k.register_span})
    *v = in.get<uint32_t>();
  k.lineinfo = lineinfo != 0;
  for (uint64_t* v : {&k.stream, &k.shmem_base, &k.local_base, &k.instructions}) *v = in.get<uint64_t>();
  k.name = in.str();
  k.nvbit_version = in.str();
  const uint32_t nops = in.get<uint32_t>();
  for (uint32_t i = 0; in.ok && i < nops; ++i) k.opcodes.push_back(in.str());
  const uint64_t nstatic = in.get<uint64_t>();
  if (!in.ok || nstatic > static_cast<uint64_t>(in.end - in.p) / sizeof(TraceOp)) return false;
  k.ops.resize(nstatic);
  for (TraceOp& op : k.ops) {
    op = in.get<TraceOp>();
    if (op.opcode >= k.opcodes.size()) return false;
  }
  const uint64_t n = in.get<uint64_t>();
  if (!in.ok || n != k.tb_records || n > static_cast<uint64_t>(in.end - in.p) / sizeof(TraceTbStore::Entry)) return false;
  index.resize(n);
  for (auto& e : index) e = in.get<TraceTbStore::Entry>();
  return in.ok && in.p == in.end;
}

// One thread block as bytes, each part 8-byte aligned so that the records can be used where they
// are mapped: x y z nwarps naddr, per-warp counts, pad, the steps (TraceStep), pad, the addresses.
size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

void encode_tb(const TraceTb& tb, std::vector<char>& out) {
  Out o;
  for (uint32_t v : {tb.x, tb.y, tb.z, uint32_t(tb.warps.size()), uint32_t(tb.addresses.size())}) o.put(v);
  for (const TraceWarp& w : tb.warps) o.put(static_cast<uint32_t>(w.instrs.size()));
  o.b.resize(align8(o.b.size()));
  for (const TraceWarp& w : tb.warps)
    for (const TraceInstr& in : w.instrs) o.put(in.step());
  o.b.resize(align8(o.b.size()));
  const char* a = reinterpret_cast<const char*>(tb.addresses.data());
  o.b.insert(o.b.end(), a, a + tb.addresses.size() * sizeof(uint64_t));
  out.swap(o.b);
}

// Points `tb` into the n bytes at p (8-byte aligned) after checking that the counts fit them and
// that every step names one of the kernel's static instructions and, for an access, addresses it has.
bool view_tb(const char* p, size_t n, const std::vector<TraceOp>& ops, TraceTbView& tb) {
  In in{p, p + n};
  tb.x = in.get<uint32_t>();
  tb.y = in.get<uint32_t>();
  tb.z = in.get<uint32_t>();
  const uint32_t nwarps = in.get<uint32_t>(), naddr = in.get<uint32_t>();
  if (!in.ok || nwarps > 1024) return false;
  tb.warps.resize(nwarps);
  uint64_t total = 0;
  for (TraceWarpView& w : tb.warps) total += w.count = in.get<uint32_t>();
  const uint64_t head = align8(static_cast<size_t>(in.p - p)), instr_bytes = align8(total * sizeof(TraceStep));
  if (!in.ok || head + instr_bytes + uint64_t{naddr} * 8 != n) return false;
  const auto* steps = reinterpret_cast<const TraceStep*>(p + head);
  for (uint64_t i = 0; i < total; ++i) {
    const TraceStep& s = steps[i];
    if (s.op >= ops.size()) return false;
    if (ops[s.op].mem_width > 0 && uint64_t{s.addr_begin} + __builtin_popcount(s.mask) > naddr) return false;
  }
  for (TraceWarpView& w : tb.warps) {
    w.steps = steps;
    steps += w.count;
  }
  tb.addresses = reinterpret_cast<const uint64_t*>(p + head + instr_bytes);
  tb.address_count = naddr;
  return true;
}

// A thread block read from the copy into memory of its own (a small block: see load()).
struct ReadTb final : TraceTbView {
  std::unique_ptr<uint64_t[]> bytes;  // 8-byte aligned, as the records need
};

// A thread block mapped from the copy; unmapped when the SM drops it, so only resident blocks
// count in memory.
struct MappedTb final : TraceTbView {
  void* base = MAP_FAILED;
  size_t length = 0;
  ~MappedTb() override {
    if (base != MAP_FAILED) ::munmap(base, length);
  }
};

bool write_all(int fd, const void* p, size_t n, uint64_t offset) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, c, n, static_cast<off_t>(offset));
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return true;
}

std::string cache_home() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/mpgpu";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/mpgpu";
  return {};
}

std::string keyed_name(const std::string& traceg) {
  std::error_code ec;
  const std::string abs = std::filesystem::absolute(traceg, ec).lexically_normal().string();
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(XXH3_64bits(abs.data(), abs.size())));
  return std::string(key) + "-" + std::filesystem::path(traceg).filename().string() + ".mpgpu";
}

// The cache copy, if valid for `text`; otherwise nullptr.
std::shared_ptr<const TraceKernel> reuse(const std::string& cache, const std::string& text, const TextStat& ts) {
  const int fd = ::open(cache.c_str(), O_RDONLY);
  if (fd < 0) return nullptr;
  auto reject = [&]() -> std::shared_ptr<const TraceKernel> {
    ::close(fd);
    ++trace_cache_counters().rejected;
    return nullptr;
  };
  FileHeader h{};
  struct stat st {};
  if (::pread(fd, &h, sizeof h, 0) != static_cast<ssize_t>(sizeof h) || ::fstat(fd, &st) != 0) return reject();
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.version != kVersion || h.instr_bytes != kRecordBytes ||
      h.text_size != ts.size || h.text_mtime_ns != ts.mtime_ns ||
      static_cast<uint64_t>(st.st_size) != sizeof h + h.payload_bytes || h.meta_offset < sizeof h ||
      h.meta_offset > static_cast<uint64_t>(st.st_size))
    return reject();
  uint64_t text_hash = 0, payload_hash = 0;
  if (!hash_file(text, ts.size, text_hash) || text_hash != h.text_hash) return reject();
  if (!hash_fd(fd, sizeof h, h.payload_bytes, payload_hash) || payload_hash != h.payload_hash) return reject();
  std::vector<char> meta(static_cast<size_t>(st.st_size) - h.meta_offset);
  if (::pread(fd, meta.data(), meta.size(), static_cast<off_t>(h.meta_offset)) != static_cast<ssize_t>(meta.size()))
    return reject();
  auto k = std::make_shared<TraceKernel>();
  std::vector<TraceTbStore::Entry> index;
  In in{meta.data(), meta.data() + meta.size()};
  if (!read_meta(in, *k, index)) return reject();
  for (const auto& e : index)
    if (e.offset < sizeof h || e.offset % 8 != 0 || e.offset + e.bytes > h.meta_offset) return reject();
  k->file = text;
  k->store = std::make_shared<TraceTbStore>(fd, cache, std::move(index));
  return k;
}

// Opens a file to write the copy into: the cache path through a temporary name, or an unnamed
// temporary file. Returns the fd and sets `tmp` to the name to rename (empty: nothing to rename).
int create_copy(const std::string& cache, std::string& tmp) {
  if (!cache.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(cache).parent_path(), ec);
    tmp = cache + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) return fd;
  }
  tmp.clear();
  std::FILE* f = std::tmpfile();
  return f ? ::dup(::fileno(f)) : -1;  // the FILE is leaked on purpose: the descriptor outlives it
}

}  // namespace

TraceCacheCounters& trace_cache_counters() {
  static TraceCacheCounters c;
  return c;
}

TraceTbStore::TraceTbStore(int fd, std::string path, std::vector<Entry> index)
    : fd_(fd), path_(std::move(path)), index_(std::move(index)) {}

TraceTbStore::~TraceTbStore() { ::close(fd_); }

std::shared_ptr<TraceTbView> TraceTbStore::load(uint32_t i, const std::vector<TraceOp>& ops) const {
  if (i >= index_.size()) return nullptr;
  const Entry& e = index_[i];
  const auto unreadable = [&] {
    return SimError(path_ + ": thread block " + std::to_string(i) + " could not be read back (file changed during the run?)");
  };
  // Mapping costs two system calls and, at unmap, a TLB flush (tens of us on a VM): worth it for a
  // large block, which it spares a copy; a small one (a trace of thousands of short launches) is
  // read into memory instead.
  constexpr uint64_t kMapFrom = 64 << 10;  // below malloc's own mmap threshold (128 KiB)
  if (e.bytes < kMapFrom) {
    auto tb = std::make_shared<ReadTb>();
    tb->bytes.reset(new uint64_t[(e.bytes + 7) / 8]);
    if (::pread(fd_, tb->bytes.get(), e.bytes, static_cast<off_t>(e.offset)) != static_cast<ssize_t>(e.bytes) ||
        !view_tb(reinterpret_cast<const char*>(tb->bytes.get()), e.bytes, ops, *tb))
      throw unreadable();
    return tb;
  }
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t from = e.offset / page * page;
  auto tb = std::make_shared<MappedTb>();
  tb->length = static_cast<size_t>(e.offset + e.bytes - from);
  // The copy is never rewritten in place (writers rename a new file over it), so the mapping
  // stays valid; MAP_POPULATE maps the block in one call instead of a fault per page.
  tb->base = ::mmap(nullptr, tb->length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_, static_cast<off_t>(from));
  if (tb->base == MAP_FAILED || !view_tb(static_cast<const char*>(tb->base) + (e.offset - from), e.bytes, ops, *tb))
    throw unreadable();
  return tb;
}

// A thread block read into memory, as steps (the form the simulation reads).
struct SteppedTb final : TraceTbView {
  std::vector<TraceStep> steps;
};

std::shared_ptr<const TraceTbView> TraceKernel::tb(uint32_t i) const {
  std::shared_ptr<TraceTbView> view;
  if (store) {
    view = store->load(i, ops);
  } else if (i < tbs.size()) {
    auto mem = std::make_shared<SteppedTb>();
    const TraceTb& t = tbs[i];
    for (const TraceWarp& w : t.warps)
      for (const TraceInstr& in : w.instrs) mem->steps.push_back(in.step());
    const TraceStep* at = mem->steps.data();
    for (const TraceWarp& w : t.warps) {
      mem->warps.push_back({at, static_cast<uint32_t>(w.instrs.size())});
      at += w.instrs.size();
    }
    mem->x = t.x;
    mem->y = t.y;
    mem->z = t.z;
    mem->addresses = t.addresses.data();
    mem->address_count = static_cast<uint32_t>(t.addresses.size());
    view = std::move(mem);
  }
  if (view) view->ops = ops.data();
  return view;
}

std::string trace_cache_path(const std::string& traceg) {
  const char* env = std::getenv("MPGPU_TRACE_CACHE");
  if (env && std::string(env) == "off") return {};
  if (env && *env) return std::string(env) + "/" + keyed_name(traceg);
  const std::string dir = std::filesystem::path(traceg).parent_path().string();
  if (::access(dir.empty() ? "." : dir.c_str(), W_OK) == 0) return traceg + ".mpgpu";
  const std::string home = cache_home();
  return home.empty() ? std::string() : home + "/" + keyed_name(traceg);
}

std::shared_ptr<const TraceKernel> open_traceg(const std::string& path) {
  const char* env = std::getenv("MPGPU_TRACE_CACHE");
  TextStat ts;
  if ((env && std::string(env) == "off") || !stat_text(path, ts))
    return std::make_shared<TraceKernel>(read_traceg(path));  // no cache, or read_traceg's own message
  const std::string cache = trace_cache_path(path);
  if (!cache.empty())
    if (auto k = reuse(cache, path, ts)) {
      ++trace_cache_counters().reused;
      return k;
    }
  std::string tmp;
  const int fd = create_copy(cache, tmp);
  if (fd < 0) return std::make_shared<TraceKernel>(read_traceg(path));
  auto fail = [&] {
    ::close(fd);
    if (!tmp.empty()) ::unlink(tmp.c_str());
  };
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.instr_bytes = kRecordBytes;
  h.text_size = ts.size;
  h.text_mtime_ns = ts.mtime_ns;
  Hash payload;
  uint64_t offset = sizeof h;
  std::vector<TraceTbStore::Entry> index;
  std::vector<char> bytes;
  bool io_ok = true;
  auto k = std::make_shared<TraceKernel>();
  try {
    *k = parse_traceg(path, [&](TraceTb&& tb) {
      encode_tb(tb, bytes);
      index.push_back({offset, bytes.size()});
      payload.add(bytes.data(), bytes.size());
      io_ok = io_ok && write_all(fd, bytes.data(), bytes.size(), offset);
      offset += bytes.size();
    });
  } catch (...) {
    fail();
    throw;
  }
  Out meta;
  write_meta(meta, *k, index);
  payload.add(meta.b.data(), meta.b.size());
  h.meta_offset = offset;
  h.payload_bytes = offset - sizeof h + meta.b.size();
  h.payload_hash = payload.value();
  io_ok = io_ok && write_all(fd, meta.b.data(), meta.b.size(), offset) && hash_file(path, ts.size, h.text_hash) &&
          write_all(fd, &h, sizeof h, 0);
  if (!io_ok) {  // a full disk: keep going from the text in memory
    fail();
    return std::make_shared<TraceKernel>(read_traceg(path));
  }
  if (!tmp.empty() && ::rename(tmp.c_str(), cache.c_str()) != 0) ::unlink(tmp.c_str());
  ++trace_cache_counters().parsed;
  k->store = std::make_shared<TraceTbStore>(fd, tmp.empty() ? std::string("(temporary copy)") : cache, std::move(index));
  return k;
}

}  // namespace mpgpu
