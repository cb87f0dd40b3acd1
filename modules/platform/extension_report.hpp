#pragma once
// Storage and latency of every hardware extension of SPEC, sized for an elaborated platform.
#include <nlohmann/json.hpp>

#include "platform/platform_config.hpp"

namespace mpgpu {

nlohmann::json extension_report(const PlatformConfig& cfg);
void print_extension_table(const nlohmann::json& report);

}  // namespace mpgpu
