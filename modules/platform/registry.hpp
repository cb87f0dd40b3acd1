#pragma once
// Module factory: platform YAML names each block's `kind`; elaboration creates it from here.
// A new model of a block registers a creator under a new kind, deriving from the role's class.
#include <systemc>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace mpgpu {

enum class ModuleRole { host, block_scheduler, sm, crossbar, l2, dram, fill_unit };

struct ElabContext;  // defined in gpu.hpp

class ModuleRegistry {
 public:
  using Creator = std::function<sc_core::sc_module*(const std::string& name, uint32_t index, ElabContext&)>;
  void add(ModuleRole role, const std::string& kind, Creator c);
  sc_core::sc_module* create(ModuleRole role, const std::string& kind, const std::string& name,
                             uint32_t index, ElabContext& ctx) const;
  // Registered kinds; the first is the default.
  std::vector<std::string> kinds(ModuleRole role) const;

 private:
  std::map<ModuleRole, std::vector<std::pair<std::string, Creator>>> creators_;
};

// The registry with the built-in kinds.
ModuleRegistry& registry();

}  // namespace mpgpu
