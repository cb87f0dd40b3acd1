#pragma once
// `mpgpu twins`: the Verilog parameter sets the given platforms need for each extension twin, as
// the CMake lines of rtl/twin_params.cmake (the build verilates each twin once per set).
#include <string>
#include <vector>

namespace mpgpu {

int cmd_twins(const std::vector<std::string>& platforms);

}  // namespace mpgpu
