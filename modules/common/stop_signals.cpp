#include "common/stop_signals.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace mpgpu {

namespace {
volatile std::sig_atomic_t g_signal = 0;
int g_pipe[2] = {-1, -1};  // self-pipe: the handler writes, poll() wakes
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

void on_signal(int sig) {
  if (!g_signal) g_signal = sig;
  const char c = 1;
  [[maybe_unused]] const ssize_t n = write(g_pipe[1], &c, 1);  // async-signal-safe
}
}  // namespace

Stopped::Stopped(int sig)
    : std::runtime_error(std::string("stopped by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")"),
      signal(sig) {}

void install_stop_signals() {
  if (g_pipe[0] >= 0) return;
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : kSignals) sigaction(s, &sa, nullptr);
}

int stop_signal() { return g_signal; }

int stop_fd() { return g_pipe[0]; }

void throw_if_stopped() {
  if (g_signal) throw Stopped(g_signal);
}

void child_follows_parent(int parent_pid) {
  for (int s : kSignals) std::signal(s, SIG_DFL);
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // the parent killed with SIGKILL leaves no orphan simulating
  if (getppid() != parent_pid) _exit(1);  // it died before prctl took effect
}

}  // namespace mpgpu
