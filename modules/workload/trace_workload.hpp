#pragma once
// Accel-Sim traces as workloads: a kernelslist.g becomes one process whose stream replays the
// list's copies and kernel launches in order; a single .traceg becomes one kernel.
#include <memory>
#include <string>

#include "workload/workload.hpp"

namespace mpgpu {

KernelDesc kernel_from_trace(const std::string& traceg, const std::string& name, const std::string& source);
KernelDesc kernel_from_trace(std::shared_ptr<const TraceKernel> trace, const std::string& name, const std::string& source);
WorkloadDesc workload_from_trace(const std::string& kernelslist);

}  // namespace mpgpu
