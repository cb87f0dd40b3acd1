#pragma once
// Host memory a run used, for stats.json's host section and the sweep runner.
namespace mpgpu {

// Peak resident memory in MiB of this process's own image (VmHWM: since its exec, unlike
// getrusage's maxrss, which keeps the high-water mark of the process it was forked from) and of
// the simulations it forked and waited for. 0 where /proc is not available.
double peak_rss_mib();

// Runs the program again, once, with glibc's malloc advising its heap for transparent huge
// pages (the tunable glibc.malloc.hugetlb=1, read only when a process starts). Hundreds of SMs
// keep tens of MiB of state hot, spread over thousands of 4 KiB pages: their address
// translations miss the host's TLBs (a 320-SM memory-bound run: 2-4% faster with huge pages, 20 SMs unchanged).
// Returns only when it does not run again: already done (MPGPU_HEAP_HUGE_PAGES is set; set it
// to 0 to opt out), or the exec failed. Call it first thing in main().
void exec_with_huge_page_heap(char** argv);
// Whether this process's malloc advises its heap for huge pages (glibc.malloc.hugetlb=1 among
// the GLIBC_TUNABLES it started with): stats.json's host.heap_huge_pages.
bool heap_huge_pages();

}  // namespace mpgpu
