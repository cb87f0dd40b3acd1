#pragma once
// The verilated Verilog twins built into this binary (CMakeLists.txt, rtl/twin_params.cmake), looked
// up by table, RTL module and parameters. A twin is a ClockedTable behind the same pins as the
// table's pin view, so its owner reaches it through the same TableLink.
#include <memory>
#include <string>
#include <vector>

#include "extensions/allocation_positions_pins.hpp"
#include "extensions/ksrt_pins.hpp"
#include "extensions/preempting_status_pins.hpp"
#include "extensions/ptbq_pins.hpp"
#include "extensions/queue_pins.hpp"
#include "extensions/replay_queue_pins.hpp"
#include "extensions/running_tb_status_pins.hpp"
#include "extensions/smst_pins.hpp"
#include "extensions/victim_sets_pins.hpp"
#include "twins/twin_params.hpp"

namespace mpgpu {

struct TwinBuild {
  std::string table, module, params;  // params: params_text()
};
const std::vector<TwinBuild>& twin_builds();
// Is `module` built for `table` with `params`? (for configuration checks, before any run)
bool twin_built(const std::string& table, const std::string& module, const TwinParams& params);
// The builds of `table` in a message: "smst (N=16 ...), smst_serial_search (...)".
std::string twin_builds_text(const std::string& table);

// A fresh instance of RTL `module` built for `table` (its bus: SmstBus for "smst", ...) with
// `params`; throws SimError naming the builds there are when that one is not in the binary.
template <class Bus>
std::unique_ptr<ClockedTable<Bus>> make_twin(const std::string& table, const std::string& module, const TwinParams& params);

}  // namespace mpgpu
