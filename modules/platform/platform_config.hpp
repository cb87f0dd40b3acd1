#pragma once
// A GPU platform as elaborated from YAML: every block's parameters, validated.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "block_scheduler/block_scheduler.hpp"
#include "common/address_map.hpp"
#include "common/config_node.hpp"
#include "dram/memory_controller.hpp"
#include "fill_unit/fill_unit.hpp"
#include "host/host.hpp"
#include "l2/l2_slice.hpp"
#include "noc/crossbar.hpp"
#include "sm/sm_params.hpp"

namespace mpgpu {

struct ClocksMhz {
  double core = 1000, icnt = 1000, l2 = 1000, dram = 1000;
};

// Sizes of the per-SM extensions that are design choices rather than derived (SPEC 3, 4).
struct ExtensionSizes {
  uint32_t operand_log_bytes = 8192;   // SPEC 3: 8 KB is the smallest explored
  uint32_t replay_queue_entries = 0;   // 0: two per warp
  uint32_t dual_kernel_positions = 0;  // 0: T_max
  std::string smst_impl = "core";      // core | pins | verilog: what shadows the SM driver's SMST
  std::string victim_sets_impl = "core";  // core | pins | verilog: what shadows each SM's victim sets
};

struct Mechanisms {
  std::vector<std::string> policies, preemption, warp_schedulers;
};

struct PlatformConfig {
  std::string name, file;
  ClocksMhz clocks;
  uint32_t quantum_cycles = 1;
  // Module kinds, looked up in the factory registry.
  std::string host_kind, block_scheduler_kind, sm_kind, crossbar_kind, l2_kind, dram_kind, fill_unit_kind;
  HostParams host;
  BlockSchedulerParams block_scheduler;
  SmParams sm;
  CrossbarParams crossbar;
  L2Params l2;
  DramParams dram;
  AddressMapParams address_map;
  FillUnitParams fill_unit;
  Mechanisms mechanisms;
  ExtensionSizes extensions;
  std::shared_ptr<ConfigDoc> doc;

  double dram_peak_gbps() const { return dram.peak_gbps(clocks.dram); }
  nlohmann::json resolved() const { return yaml_to_json(doc->root); }
};

// The page colours (memory-module sets of a page) the platform's page size and address map give,
// in the order partitions number them; empty without translation.
std::vector<uint64_t> page_colours(const PlatformConfig& cfg);

// Loads and validates; overrides not starting with "workload." apply to the platform.
PlatformConfig load_platform(const std::string& file,
                             const std::vector<std::pair<std::string, std::string>>& overrides = {});

}  // namespace mpgpu
