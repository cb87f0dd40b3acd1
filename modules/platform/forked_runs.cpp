// The simulations of one run in forked children (SystemC elaborates once per OS process), at most
// `jobs` at a time. The parent only waits: on its children's result pipes, on the stop signals
// and on the host-time limit, so that a signal or the limit stops every child before anything
// that looks like a result is written.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/stop_signals.hpp"
#include "platform/result_frames.hpp"
#include "platform/simulation.hpp"

namespace mpgpu {

using nlohmann::json;

namespace {

struct Child {
  pid_t pid;
  int fd;          // read end of the child's result pipe
  size_t request;  // index into the requests
  ResultFrames out;
};

std::string label(const WorkloadDesc& w, const SimRequest& r) {
  if (r.isolated) return "the isolated run of process '" + w.processes.at(r.processes.at(0)).name + "'";
  return "the multiprogrammed run";
}

void kill_all(std::vector<Child>& running) {
  for (const Child& c : running) kill(c.pid, SIGKILL);
  for (const Child& c : running) {
    close(c.fd);
    waitpid(c.pid, nullptr, 0);
  }
  running.clear();
}

// Runs in the child: one simulation, its lists and its result (or error) as frames on `fd`, then _exit.
[[noreturn]] void run_child(const PlatformConfig& cfg, const WorkloadDesc& w, const SimRequest& req_in, int fd) {
  json r;
  try {
    SimRequest req = req_in;
    req.list_sink = [fd](ListKind kind, std::string_view text) { write_frame(fd, char(kind), text); };
    r = simulate_here(cfg, w, req);
  } catch (const ConfigError& e) {
    r = {{"error", e.what()}, {"kind", "config"}};
  } catch (const std::exception& e) {
    r = {{"error", e.what()}, {"kind", "sim"}};
  }
  write_frame(fd, kResultFrame, r.dump());
  close(fd);
  std::fflush(stdout);
  _exit(0);
}

}  // namespace

std::vector<json> simulate_forked(const PlatformConfig& cfg, const WorkloadDesc& w, const std::vector<SimRequest>& reqs,
                                  unsigned jobs, double max_host_seconds, std::vector<ListTexts>* list_texts) {
  if (list_texts) list_texts->assign(reqs.size(), ListTexts{});
  std::fflush(stdout);
  std::fflush(stderr);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(max_host_seconds > 0 ? max_host_seconds : 0));
  std::vector<json> results(reqs.size());
  std::vector<Child> running;
  std::string first_error;
  bool config_error = false;

  // A child's pipe reached its end: its result, or the first error of the run.
  auto finish = [&](Child& c) {
    close(c.fd);
    int status = 0;
    waitpid(c.pid, &status, 0);
    ResultFrames& out = c.out;
    json r = out.complete && !out.bad ? json::parse(out.result, nullptr, false) : json(json::value_t::discarded);
    if (WIFEXITED(status) && !r.is_discarded() && !r.contains("error")) {
      if (r.contains("_kernel_records")) {
        if (list_texts) {
          (*list_texts)[c.request].kernels = std::move(out.kernels);
        } else {
          r["kernels"] = json::parse(out.kernels.str(), nullptr, false);
          r.erase("_kernel_records");
          if (r["kernels"].is_discarded()) r = json(json::value_t::discarded);
        }
      }
      if (!out.preemptions.empty() && !r.is_discarded()) {
        if (list_texts) {
          (*list_texts)[c.request].preemptions = std::move(out.preemptions);
        } else {
          r["scheduling"]["preemption_list"] = json::parse(out.preemptions.str(), nullptr, false);
          if (r["scheduling"]["preemption_list"].is_discarded()) r = json(json::value_t::discarded);
        }
      }
    }
    if (!WIFEXITED(status) || r.is_discarded()) {
      if (first_error.empty())
        first_error = fmt::format("{} crashed ({})", label(w, reqs[c.request]),
                                  WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "bad output");
    } else if (r.contains("error")) {
      if (first_error.empty()) {
        first_error = r["error"].get<std::string>();
        config_error = r["kind"] == "config";
      }
    } else {
      results[c.request] = std::move(r);
    }
  };

  const pid_t parent = getpid();
  size_t next = 0;
  while (true) {
    // No new simulation after an error: the run has failed already.
    while (next < reqs.size() && running.size() < std::max(1u, jobs) && first_error.empty()) {
      int fds[2];
      if (pipe(fds) != 0) throw SimError("pipe() failed");
      const pid_t pid = fork();
      if (pid < 0) throw SimError("fork() failed");
      if (pid == 0) {
        child_follows_parent(parent);
        close(fds[0]);
        run_child(cfg, w, reqs[next], fds[1]);
      }
      close(fds[1]);
      running.push_back({pid, fds[0], next++, {}});
    }
    if (running.empty()) break;
    std::vector<pollfd> polled;
    for (const Child& c : running) polled.push_back({c.fd, POLLIN, 0});
    if (stop_fd() >= 0) polled.push_back({stop_fd(), POLLIN, 0});
    int timeout_ms = -1;
    if (max_host_seconds > 0)
      timeout_ms = int(std::max<int64_t>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count() + 1));
    const int ready = poll(polled.data(), polled.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) throw SimError("poll() failed");
    if (stop_signal()) {
      kill_all(running);
      throw Stopped(stop_signal());
    }
    if (max_host_seconds > 0 && Clock::now() >= deadline) {
      std::string stuck;
      for (const Child& c : running) stuck += (stuck.empty() ? "" : ", ") + label(w, reqs[c.request]);
      const size_t done = next - running.size();
      kill_all(running);
      throw SimError(fmt::format("host time limit: --max-host-seconds {:g} reached; stopped {} ({} of {} simulations "
                                 "had finished)",
                                 max_host_seconds, stuck, done, reqs.size()));
    }
    for (size_t i = running.size(); i-- > 0;) {
      if (!(polled[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      const ssize_t n = read(running[i].fd, buf, sizeof buf);
      if (n > 0) {
        running[i].out.feed(std::string_view(buf, size_t(n)));
      } else if (n == 0 || errno != EINTR) {
        finish(running[i]);
        running.erase(running.begin() + i);
      }
    }
  }
  if (!first_error.empty()) {
    if (config_error) throw ConfigError(first_error);
    throw SimError(first_error);
  }
  return results;
}

}  // namespace mpgpu
