#pragma once
// The binary copy of a .traceg that lets a simulation stream a trace: written once while the text
// is parsed, thread block by thread block, and afterwards read instead of the text. A thread block
// is loaded (one read) when the SM is given it and dropped when it ends, so memory is bounded by
// the resident blocks. The copy records the text's size, modification time and a hash of its
// bytes, and a hash of its own payload: a copy that does not match its text, or is damaged, is
// never trusted; the text is parsed again.
//
// Where the copy lives: $MPGPU_TRACE_CACHE names a folder (or `off`: parse into memory, no copy);
// otherwise beside the trace (`<trace>.mpgpu`), or in $XDG_CACHE_HOME/mpgpu (~/.cache/mpgpu) when
// the trace's folder is read-only, or an unnamed temporary file as a last resort.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workload/trace.hpp"

namespace mpgpu {

class TraceTbStore {
 public:
  struct Entry {
    uint64_t offset, bytes;
  };
  TraceTbStore(int fd, std::string path, std::vector<Entry> index);
  ~TraceTbStore();
  TraceTbStore(const TraceTbStore&) = delete;
  TraceTbStore& operator=(const TraceTbStore&) = delete;
  // Maps block i's bytes; its steps are checked against the kernel's static instructions.
  std::shared_ptr<TraceTbView> load(uint32_t i, const std::vector<TraceOp>& ops) const;
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
  std::vector<Entry> index_;
};

// The cache file a trace uses (empty when caching is off).
std::string trace_cache_path(const std::string& traceg);

// Statistics of the last open_traceg calls in this process, for tests and the benchmark.
struct TraceCacheCounters {
  uint64_t parsed = 0, reused = 0, rejected = 0;  // texts parsed, copies reused, copies found stale or damaged
};
TraceCacheCounters& trace_cache_counters();

}  // namespace mpgpu
