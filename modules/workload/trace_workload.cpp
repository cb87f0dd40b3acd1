#include "workload/trace_workload.hpp"

#include <filesystem>
#include <map>

#include "common/error.hpp"
#include "workload/trace.hpp"
#include "workload/trace_cache.hpp"

namespace mpgpu {

KernelDesc kernel_from_trace(const std::string& traceg, const std::string& name, const std::string& source) {
  return kernel_from_trace(open_traceg(traceg), name, source);
}

KernelDesc kernel_from_trace(std::shared_ptr<const TraceKernel> t, const std::string& name, const std::string& source) {
  const std::string& traceg = t->file;
  KernelDesc k;
  k.name = name.empty() ? t->name : name;
  k.source = source;
  const uint64_t tbs = t->tb_count();
  // The parser bounds the header; a trace cache written by another version is checked again here.
  if (tbs == 0 || tbs > 0xffffffffull)
    throw ConfigError(traceg + ":1: grid of " + std::to_string(tbs) + " TBs is out of range [1, 2^32-1]");
  k.grid = static_cast<uint32_t>(tbs);
  k.threads_per_tb = t->threads_per_tb();
  // Registers are allocated per warp in the hardware: whole warps of threads.
  k.registers_per_tb = std::max(1u, t->nregs) * t->warps_per_tb() * 32;
  k.shared_mem_per_tb = t->shmem;
  k.trace = std::move(t);
  return k;
}

WorkloadDesc workload_from_trace(const std::string& kernelslist) {
  const TraceList list = read_kernelslist(kernelslist);
  WorkloadDesc w;
  w.file = kernelslist;
  const std::filesystem::path dir = std::filesystem::path(kernelslist).parent_path();
  w.name = dir.filename().string().empty() ? "trace" : dir.filename().string();
  ProcessDesc p;
  p.name = w.name;
  p.source = kernelslist;
  StreamDesc s;
  std::map<std::string, uint32_t> kernel_of_file;  // a trace launched many times is read and kept once
  for (const TraceCommand& c : list.commands) {
    const std::string where = kernelslist + ":" + std::to_string(c.line);
    if (c.kind == TraceCommand::Kind::kernel) {
      auto it = kernel_of_file.find(c.path);
      if (it == kernel_of_file.end()) {
        KernelDesc k = kernel_from_trace(c.path, "", where);
        if (w.find_kernel(k.name) >= 0) k.name += "#" + std::to_string(k.trace->id);
        w.kernels.push_back(std::move(k));
        it = kernel_of_file.emplace(c.path, uint32_t(w.kernels.size() - 1)).first;
      }
      s.commands.push_back({Command::Kind::launch, it->second, 0, {}});
    } else {
      Command cmd;
      cmd.kind = Command::Kind::copy;
      cmd.bytes = c.bytes;
      cmd.addr = c.addr;
      cmd.direction = c.kind == TraceCommand::Kind::memcpy_h2d ? Command::Direction::h2d : Command::Direction::d2h;
      s.commands.push_back(cmd);
    }
  }
  if (w.kernels.empty())
    throw ConfigError(kernelslist + ":" + std::to_string(list.lines) + ": no kernel in the list (" +
                      std::to_string(list.commands.size()) + " copies and no kernel-N.traceg line up to its end)");
  p.streams.push_back(std::move(s));
  w.processes.push_back(std::move(p));
  w.policy_source = w.preemption_source = kernelslist;
  return w;
}

}  // namespace mpgpu
