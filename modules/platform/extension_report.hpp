#pragma once
// Storage and latency of every hardware extension of SPEC, sized for an elaborated platform.
#include <nlohmann/json.hpp>

#include "extensions/sharing_counters.hpp"
#include "platform/platform_config.hpp"

namespace mpgpu {

nlohmann::json extension_report(const PlatformConfig& cfg);
void print_extension_table(const nlohmann::json& report);

// SPEC 5's per-SM sharing hardware on this platform, for a profiling window (the report sizes the
// default window; a run sizes the workload's).
SharingHwParams sharing_hw_params(const PlatformConfig& c, uint64_t window_cycles = kDefaultProfilingWindowCycles);

}  // namespace mpgpu
