#include "twins.hpp"

#include <filesystem>
#include <iostream>
#include <set>

#include "platform/platform_config.hpp"
#include "twins/twin_params.hpp"

namespace mpgpu {

int cmd_twins(const std::vector<std::string>& platforms) {
  std::set<std::pair<std::string, std::string>> lines;  // (table, params): sorted, each once
  std::set<std::string> names;
  for (const std::string& f : platforms) {
    const PlatformConfig c = load_platform(f, {});
    const ExtensionParams e = extension_params(c.sm, c.block_scheduler);
    names.insert(std::filesystem::path(f).stem().string());
    lines.insert({"smst", params_text(smst_twin_params(e))});
    lines.insert({"ksrt", params_text(ksrt_twin_params(e))});
    lines.insert({"ptbq", params_text(ptbq_twin_params(e))});
    lines.insert({"command_buffers", params_text(command_buffers_twin_params(e))});
    lines.insert({"active_queue", params_text(active_queue_twin_params(e))});
    lines.insert({"victim_sets", params_text(victim_sets_twin_params(c.sm.dual_kernel))});
    lines.insert({"preempting_status", params_text(preempting_status_twin_params(c.sm.dual_kernel))});
  }
  std::string list;
  for (const auto& n : names) list += " " + n;
  std::cout << "# Written by `mpgpu twins --platform platforms/*.yaml` (scripts/gen_twin_params.sh): the\n"
               "# parameters of each extension twin the bundled platforms need. Platforms:" << list << "\n";
  for (const auto& [table, params] : lines) std::cout << "mpgpu_twin(" << table << " " << params << ")\n";
  return 0;
}

}  // namespace mpgpu
