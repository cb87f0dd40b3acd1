#include "twins.hpp"

#include <filesystem>
#include <iostream>
#include <set>

#include "platform/platform_config.hpp"
#include "platform/table_links.hpp"

namespace mpgpu {

int cmd_twins(const std::vector<std::string>& platforms) {
  std::set<std::pair<std::string, std::string>> lines;  // (table, params): sorted, each once
  std::set<std::string> names;
  for (const std::string& f : platforms) {
    const PlatformConfig c = load_platform(f, {});
    names.insert(std::filesystem::path(f).stem().string());
    for (const char* table : kLinkedTables) lines.insert({table, params_text(twin_params_of(c, table))});
    // SPEC 3 explores operand logs of 8, 16 and 32 KB: a twin of each size on every platform.
    for (const char* bytes : {"8192", "16384", "32768"}) {
      const PlatformConfig v = load_platform(f, {{"extensions.operand_log_bytes", bytes}});
      lines.insert({"operand_log", params_text(twin_params_of(v, "operand_log"))});
    }
  }
  std::string list;
  for (const auto& n : names) list += " " + n;
  std::cout << "# Written by `mpgpu twins --platform platforms/*.yaml` (scripts/gen_twin_params.sh): the\n"
               "# parameters of each extension twin the bundled platforms need. Platforms:" << list << "\n";
  for (const auto& [table, params] : lines) std::cout << "mpgpu_twin(" << table << " " << params << ")\n";
  return 0;
}

}  // namespace mpgpu
