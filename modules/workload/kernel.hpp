#pragma once
// TB-level kernel description (DESIGN, Workloads: fidelity 1) and one launch of it.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "workload/instruction.hpp"

namespace mpgpu {

struct WarpProgram;
struct TraceKernel;

// How long one TB runs, in SM core cycles, once resolved against a platform.
struct TbTimeDist {
  enum class Kind { fixed, normal, uniform, calibrated } kind = Kind::fixed;
  // Given in the workload (time units as written; resolved to cycles by the platform).
  double mean_ns = 0;     // fixed, normal
  double cv = 0;          // normal (and calibrated): stddev / mean
  double min_ns = 0, max_ns = 0;   // uniform
  double kernel_time_ns = 0;       // calibrated: the isolated kernel time to reproduce
  // Resolved by the platform: mean TB time in core cycles (calibrated: kernel time / waves).
  double mean_cycles = 0;
  double min_cycles = 0, max_cycles = 0;
};

struct KernelDesc {
  std::string name;
  uint32_t grid = 1;                 // TBs
  uint32_t threads_per_tb = 32;
  uint32_t registers_per_tb = 0;
  uint32_t shared_mem_per_tb = 0;    // bytes
  double idempotent_fraction = 1.0;  // TB level: part of a TB's run before it loses idempotence (1: never)
  uint64_t instructions_per_tb = 0;  // warp instructions; 0 = not given
  TbTimeDist tb_time;                // TB level only
  // Warp level (DESIGN, Workloads): the program every warp runs, or a SASS trace of the kernel.
  // Either one makes the SM execute the kernel instruction by instruction.
  std::shared_ptr<const WarpProgram> program;
  std::shared_ptr<const TraceKernel> trace;
  uint32_t qos_budget = 1;           // QAWS warp-scheduler budget (SPEC 7): higher QoS, larger
  // Published reference numbers, kept for comparison only.
  std::optional<uint32_t> published_max_tbs_per_sm;
  std::optional<double> published_kernel_time_us;
  std::optional<double> published_tb_time_us;
  std::string source;  // file:line:col of the definition, for messages
};

inline bool warp_level(const KernelDesc& k) { return k.program || k.trace; }

// Whether a TB of the kernel can lose its relaxed idempotence (SPEC 4: an atomic or a global
// store executed): at warp level such an instruction in its program or trace, at TB level an
// idempotent fraction below 1. Flushing such a TB needs a fallback once it has.
bool may_lose_idempotence(const KernelDesc& k);

// Cycles TB `tb` of launch `launch_uid` runs for: depends only on (seed, launch, tb).
uint64_t sample_tb_cycles(const TbTimeDist& d, uint64_t seed, uint64_t launch_uid, uint32_t tb);

// Where one warp of a context-switched warp-level TB stopped: its next instruction, its loop
// counters and whether it waits at a barrier. Restored by whichever SM gets the TB back.
struct WarpPosition {
  uint32_t pc = 0;
  uint32_t iter[kMaxLoopDepth] = {};
  bool done = false;       // the warp had exited
  bool at_barrier = false;
  // Squashed faulted instructions (SPEC 3), program order: replayed first on restore. Their
  // replay-queue entries and operand-log values travel with the context: `replay_bytes`.
  std::vector<WarpPosition> replay;
  uint32_t replay_bytes = 0;
};

// One kernel launch in flight: owned by the host, read by block scheduler and SMs.
struct KernelLaunch {
  uint32_t id = ~0u;          // model-wide, in command-processor issue order; ~0u: not issued
  uint64_t uid = 0;           // stable across runs: (process, repetition, command)
  const KernelDesc* kernel = nullptr;
  uint32_t process = 0;        // slot among the processes of this run
  uint32_t process_index = 0;  // index in the workload (stable across isolated runs)
  uint32_t context = 0;
  uint64_t page_table_base = 0;  // SPEC 2: loaded into the SM's page-table base register with the context id
  uint32_t priority = 0;
  uint64_t seed = 0;
  // Times in ns, filled as the launch progresses.
  double submit_ns = -1, arrive_ns = -1, start_ns = -1, end_ns = -1;
  uint32_t tbs_done = 0;
  std::map<uint32_t, std::vector<WarpPosition>> saved_warps;  // by TB, while switched out
  // Relaxed idempotence of a switched-out warp-level TB (SPEC 4): warp instructions it executed
  // and whether it overwrote memory, restored into the running-TB status when it comes back.
  struct Progress {
    uint64_t executed = 0;
    bool overwrote = false;
  };
  std::map<uint32_t, Progress> saved_progress;  // by TB, while switched out
  void* host_cookie = nullptr;  // the command processor's record of this launch
};

}  // namespace mpgpu
