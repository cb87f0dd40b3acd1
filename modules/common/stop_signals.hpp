#pragma once
// SIGTERM, SIGINT and SIGHUP (what a batch system or a terminal sends) stop a run cleanly: the
// handler only records the signal and wakes whoever polls `stop_fd()`; the run loop then stops
// its simulation children and unwinds with `Stopped`, and the command line removes the partial
// outputs and exits 128 + signal.
#include <stdexcept>
#include <string>

namespace mpgpu {

struct Stopped : std::runtime_error {
  int signal;
  explicit Stopped(int sig);
};

// Installs the handlers (once; later calls do nothing).
void install_stop_signals();
// The signal received, 0 if none.
int stop_signal();
// Readable once a signal has arrived (-1 before install_stop_signals).
int stop_fd();
// Throws Stopped if a signal has arrived.
void throw_if_stopped();
// In a forked simulation child (`parent_pid`: getpid() before the fork): default handlers again,
// and die with the parent.
void child_follows_parent(int parent_pid);

}  // namespace mpgpu
