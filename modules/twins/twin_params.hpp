#pragma once
// The Verilog parameters each extension table's twin needs on a platform: its widths (SM count,
// TB slots, kernel slots, field widths), derived from the same layouts that size the C++ cores.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "extensions/extension_params.hpp"
#include "extensions/replay_queue.hpp"
#include "extensions/victim_sets.hpp"

namespace mpgpu {

using TwinParams = std::vector<std::pair<std::string, uint64_t>>;  // in the RTL module's order

TwinParams smst_twin_params(const ExtensionParams& p);
TwinParams ksrt_twin_params(const ExtensionParams& p);
TwinParams ptbq_twin_params(const ExtensionParams& p);
TwinParams victim_sets_twin_params(const DualKernelParams& p);
TwinParams command_buffers_twin_params(const ExtensionParams& p);
TwinParams active_queue_twin_params(const ExtensionParams& p);
TwinParams preempting_status_twin_params(const DualKernelParams& p);
TwinParams replay_queue_twin_params(const ReplayQueueParams& p);
TwinParams operand_log_twin_params(const OperandLogParams& p);
TwinParams running_tb_status_twin_params(const DualKernelParams& per_slot);
TwinParams allocation_positions_twin_params(const DualKernelParams& p);

std::string params_text(const TwinParams& p);  // "N=20 SMB=5 ..."

}  // namespace mpgpu
