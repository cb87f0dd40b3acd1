#pragma once
// `extensions.<table>: {impl, latency_cycles, rtl}`: reading it, checking that the Verilog twin a
// platform asks for is built for its widths, and making the TableLink an owner reaches its table by.
#include <map>
#include <memory>
#include <string>

#include "common/config_node.hpp"
#include "extensions/allocation_positions_pins.hpp"
#include "extensions/ksrt_pins.hpp"
#include "extensions/preempting_status_pins.hpp"
#include "extensions/ptbq_pins.hpp"
#include "extensions/queue_pins.hpp"
#include "extensions/replay_queue_pins.hpp"
#include "extensions/running_tb_status_pins.hpp"
#include "extensions/smst_pins.hpp"
#include "extensions/table_link.hpp"
#include "extensions/victim_sets_pins.hpp"
#include "platform/platform_config.hpp"
#include "twins/twin_params.hpp"

namespace mpgpu {

// Reads one table's section into `out`; returns the node for later checks.
ConfigNode read_table_link(const ConfigNode& n, TableLinkConfig& out);
// Every `impl: verilog` has a twin built with the platform's parameters, and every table set is
// one the platform uses (exit 2 naming the key).
void check_links(const PlatformConfig& c, const std::map<std::string, ConfigNode>& nodes);

// The link to each table as the platform configures it (`name`: the instance, e.g. "smst" or
// "victim_sets3"). Null when the table is `core` with the one-cycle latency the owner's step
// already includes: such a table costs nothing extra (and the owner installs no hook at all).
std::unique_ptr<TableLink<SmstBus>> make_smst_link(const PlatformConfig& c, const ExtensionParams& p);
std::unique_ptr<TableLink<KsrtBus>> make_ksrt_link(const PlatformConfig& c, const ExtensionParams& p);
std::unique_ptr<TableLink<PtbqBus>> make_ptbq_link(const PlatformConfig& c, const ExtensionParams& p);
std::unique_ptr<TableLink<VictimSetsBus>> make_victim_sets_link(const PlatformConfig& c, const DualKernelParams& p,
                                                                const std::string& name);

std::unique_ptr<TableLink<CommandBuffersBus>> make_command_buffers_link(const PlatformConfig& c, const ExtensionParams& p);
std::unique_ptr<TableLink<ActiveQueueBus>> make_active_queue_link(const PlatformConfig& c, const ExtensionParams& p);

std::unique_ptr<TableLink<PreemptingStatusBus>> make_preempting_status_link(const PlatformConfig& c, const DualKernelParams& p,
                                                                            const std::string& name);

// Each SM pipeline's replay queue and operand log (`name`: "replay_queue3", ...).
std::unique_ptr<TableLink<ReplayQueueBus>> make_replay_queue_link(const PlatformConfig& c, const std::string& name);
std::unique_ptr<TableLink<OperandLogBus>> make_operand_log_link(const PlatformConfig& c, const std::string& name);
// Each SM's allocation positions ("allocation_positions3", ...; dual_kernel).
std::unique_ptr<TableLink<AllocationPositionsBus>> make_allocation_positions_link(const PlatformConfig& c, const DualKernelParams& p,
                                                                                  const std::string& name);
// Each SM's running-TB status ("running_tb_status3", ...).
std::unique_ptr<TableLink<RunningTbStatusBus>> make_running_tb_status_link(const PlatformConfig& c, const std::string& name);

// The parameters of a linked table's Verilog twin on platform c (every name in kLinkedTables).
TwinParams twin_params_of(const PlatformConfig& c, const std::string& table);
// One access measured on the table as configured (core: the configured latency): `mpgpu report`.
uint32_t measured_latency(const PlatformConfig& c, const std::string& table);

}  // namespace mpgpu
