#pragma once
// `mpgpu report`: per-kernel occupancy and context-storage figures for a platform.
#include <nlohmann/json.hpp>

#include "platform/platform_config.hpp"
#include "workload/workload.hpp"

namespace mpgpu {

nlohmann::json kernel_report(const PlatformConfig& cfg, const WorkloadDesc& w);
void print_kernel_table(const nlohmann::json& report);

// The run's summary table (processes and metrics) on stdout.
void print_summary(const nlohmann::json& stats, size_t kernels);  // kernels: launch records in the run

}  // namespace mpgpu
