#pragma once
// A multiprogrammed workload: processes (each its own context), their streams, and the kernel
// launch and copy commands of each stream.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common/address_space.hpp"
#include "common/config_node.hpp"
#include "workload/kernel.hpp"

namespace mpgpu {

struct Command {
  enum class Kind { launch, copy } kind = Kind::launch;
  uint32_t kernel = 0;  // index into WorkloadDesc::kernels
  uint64_t bytes = 0;   // copy
  uint64_t addr = 0;    // copy: device address (traces give it); 0 = not given
  enum class Direction { h2d, d2h } direction = Direction::h2d;
};

struct StreamDesc {
  std::vector<Command> commands;  // loops already expanded
};

struct ProcessDesc {
  std::string name;
  double arrival_ns = 0;
  uint32_t priority = 0;
  uint32_t repeat = 1;  // runs of the whole launch sequence
  int32_t dss_tokens = -1;  // DSS SM budget set by the OS; -1: equal sharing
  std::string priority_source, dss_tokens_source;  // file:line:col of the keys, when given
  bool replays = true;      // under `replay: until_all_done`; false: runs `repeat` times only
  std::vector<StreamDesc> streams;
  AddressSpaceDesc address_space;  // allocations (none: implicit) and page colouring
  int32_t partition = -1;          // index into WorkloadDesc::partitions; -1: none
  std::string partition_name, partition_source;
  std::string source;
};

// SPEC 6: an isolation partition of the GPU. Compute partitioning binds its processes to an SM
// set; memory partitioning gives their pages only the listed page colours; an MPS-style share
// limits their resident threads per SM to a fraction of the SM's.
struct PartitionDesc {
  std::string name;
  std::vector<uint32_t> sms;      // empty: every SM
  std::vector<uint32_t> colours;  // indices into the platform's page colours; empty: any page
  double thread_limit = 1.0;      // share of each SM's threads its processes may hold together
  uint64_t modules = 0;           // resolved against the platform: the memory modules of its colours
  std::string source, sms_source, colours_source;
};

struct WorkloadDesc {
  std::string name;
  std::string file;
  uint64_t seed = 1;
  std::string policy = "fcfs";
  std::string policy_source;  // file:line:col of the policy key, or the file
  std::string preemption = "context_switch";  // context_switch | draining | flush (SM-driver policies)
  std::string preemption_source;
  std::string flush_fallback = "none";  // none | draining | context_switch (preemption: flush)
  std::string flush_fallback_source;
  // Policies chimera, dual_kernel (SPEC 4): the preemption latency constraint (default 15 us, the
  // constraint Chimera's paper evaluates) and the drain estimate (oracle: each TB's exact
  // remaining time instead of the cost model's prediction).
  double latency_constraint_ns = 15000;
  bool oracle = false;
  std::string drain_estimate_source;
  // Replay every process until all have completed `repeat` runs (SPEC 2 methodology); statistics
  // over completed runs only.
  bool replay_until_all_done = false;
  double max_sim_time_ns = 0;  // 0: none; otherwise a run still busy then fails (starvation, livelock)
  // stop_at_us / stop_at_cycles: the run ends then, finished or not (a measuring window: SPEC 5
  // reads IPC over a fixed window); 0: when the workload is done. Exactly one of the two is set.
  double stop_at_ns = 0, stop_at_cycles = 0;
  // sharing: (policies warped_slicer, mias; SPEC 5) MIAS's decision model and the profiling window.
  std::string sharing_model = "ipm_ipc";
  uint64_t sharing_window_cycles = 45000;
  std::deque<KernelDesc> kernels;  // deque: stable addresses
  std::vector<ProcessDesc> processes;
  std::vector<PartitionDesc> partitions;
  std::vector<std::shared_ptr<ConfigDoc>> docs;  // the YAML read, kept for the resolved config

  int find_kernel(const std::string& name) const;
  uint64_t total_launches() const;
};

// Reads and validates a workload file; --set overrides whose path starts with "workload." apply.
WorkloadDesc load_workload(const std::string& file,
                           const std::vector<std::pair<std::string, std::string>>& overrides = {});

// Chimera and dual-kernel (SPEC 4) choose switch, drain or flush per TB: no whole-SM mechanism.
inline bool per_tb_policy(const std::string& policy) { return policy == "chimera" || policy == "dual_kernel"; }
// Warped-Slicer and MIAS (SPEC 5) share every SM under TB-mix limits: no whole-SM mechanism either.
inline bool sharing_policy(const std::string& policy) { return policy == "warped_slicer" || policy == "mias"; }

}  // namespace mpgpu
