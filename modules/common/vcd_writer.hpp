#pragma once
// A value-change dump of the pins the model evaluates itself (the extension tables' pin views and
// Verilog twins, clocked by their owners in the owners' local time). Samples may arrive out of
// time order (an owner runs ahead of simulated time by its offset); the file is sorted on write.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mpgpu {

class VcdWriter {
 public:
  // Declares a scope's variables (name, bits); returns the id of the first one (the others follow).
  uint32_t add_scope(const std::string& scope, const std::vector<std::pair<std::string, uint32_t>>& vars);
  void sample(uint64_t time_ps, uint32_t var, uint64_t value) { samples_.push_back({time_ps, var, value}); }
  // Writes the dump (timescale 1 ps): each variable's changes in time order.
  void write(const std::string& path) const;
  bool empty() const { return scopes_.empty(); }

 private:
  struct Var {
    std::string name;
    uint32_t bits;
  };
  struct Sample {
    uint64_t time;
    uint32_t var;
    uint64_t value;
  };
  std::vector<std::pair<std::string, std::vector<Var>>> scopes_;
  uint32_t vars_ = 0;
  std::vector<Sample> samples_;
};

}  // namespace mpgpu
