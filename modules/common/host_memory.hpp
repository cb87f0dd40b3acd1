#pragma once
// Host memory a run used, for stats.json's host section and the sweep runner.
namespace mpgpu {

// Peak resident memory in MiB of this process's own image (VmHWM: since its exec, unlike
// getrusage's maxrss, which keeps the high-water mark of the process it was forked from) and of
// the simulations it forked and waited for. 0 where /proc is not available.
double peak_rss_mib();

}  // namespace mpgpu
