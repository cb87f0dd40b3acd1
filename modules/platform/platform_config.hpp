#pragma once
// A GPU platform as elaborated from YAML: every block's parameters, validated.
#include <memory>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "extensions/table_link.hpp"
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

// `extensions.<table>`: which implementation the owner reaches, and its access latency.
struct TableLinkConfig {
  ExtensionImpl impl = ExtensionImpl::core;
  uint32_t latency_cycles = 1;  // core and pins; a twin's comes from its RTL
  std::string rtl;              // verilog: the RTL module (default: the table's own twin, rtl/<table>.v)
};
inline const char* const kLinkedTables[] = {"command_buffers", "active_queue", "ksrt",        "smst",
                                            "ptbq",            "victim_sets",  "preempting_status", "replay_queue",
                                            "operand_log",     "running_tb_status", "allocation_positions"};

// Sizes of the per-SM extensions that are design choices rather than derived (SPEC 3, 4).
struct ExtensionSizes {
  uint32_t operand_log_bytes = 8192;   // SPEC 3: 8 KB is the smallest explored
  uint32_t replay_queue_entries = 0;   // 0: two per warp
  uint32_t dual_kernel_positions = 0;  // 0: T_max
  // The tables their owner reaches through a TableLink (extensions/table_link.hpp), by name:
  // command_buffers, active_queue, ksrt, smst, ptbq (the block scheduler's SM driver), victim_sets
  // and preempting_status (its preemption processor, per SM).
  std::map<std::string, TableLinkConfig> links;
  const TableLinkConfig& link(const std::string& table) const;
};

struct Mechanisms {
  std::vector<std::string> policies, preemption, warp_schedulers;
};

struct PlatformConfig {
  std::string name, file;
  ClocksMhz clocks;
  uint32_t quantum_cycles = 1;
  // At quantum 1, SMs run cycles without the calendar while none can reach outside itself
  // (SmCalendar::enable_run_ahead); the results are the same either way.
  bool run_ahead = true;
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
