#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "host/host.hpp"

#include <cmath>

#include "common/clock.hpp"
#include "common/payload.hpp"
#include "common/rng.hpp"

namespace mpgpu {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;

Host::Host(sc_core::sc_module_name name, const HostParams& p, const WorkloadDesc& w,
           std::vector<uint32_t> selected, ClockDomain core_clock, Timeline* timeline)
    : sc_module(name), launch_out("launch_out"), done_in("done_in"), p_(p), w_(w),
      clock_(core_clock), timeline_(timeline), queues_(p.hardware_queues) {
  done_in.register_b_transport(this, &Host::done_b_transport);
  for (uint32_t i : selected) procs_.push_back({i, {}, {}});
  // Streams take hardware queues in workload order (Hyper-Q), wrapping when queues run out; the
  // dispatcher inspects queues in index order, so simultaneous arrivals keep workload order.
  uint32_t q = 0;
  for (auto& p : procs_)
    for (size_t s = 0; s < w.processes[p.index].streams.size(); ++s) p.hw_queues.push_back(q++ % p_.hardware_queues);
  for (uint32_t s = 0; s < procs_.size(); ++s)
    process_threads_.push_back(sc_core::sc_spawn(sc_bind(&Host::process_thread, this, s),
                                                 ("process_" + std::to_string(s)).c_str()));
  SC_THREAD(dispatcher);
  if (timeline_ && timeline_->enabled()) {
    timeline_->name_group(Timeline::kProcessesPid, "Processes");
    timeline_->name_group(Timeline::kKernelsPid, "Kernels");
    timeline_->name_group(Timeline::kHostLinkPid, "Host link");
    for (uint32_t s = 0; s < procs_.size(); ++s) {
      timeline_->name_track(Timeline::kProcessesPid, s, w.processes[procs_[s].index].name);
      timeline_->name_track(Timeline::kKernelsPid, s, w.processes[procs_[s].index].name);
    }
  }
}

uint64_t Host::planned_tbs(const WorkloadDesc& w, const std::vector<uint32_t>& selected) {
  uint64_t tbs = 0;
  for (uint32_t i : selected)
    for (const auto& s : w.processes[i].streams)
      for (const auto& c : s.commands)
        if (c.kind == Command::Kind::launch) tbs += uint64_t{w.kernels[c.kernel].grid} * w.processes[i].repeat;
  return tbs;
}

bool Host::all_done() const {
  for (const auto& p : procs_)
    if (p.runs.size() < w_.processes[p.index].repeat) return false;
  return true;
}

void Host::process_thread(uint32_t slot) {
  ProcessRecord& rec = procs_[slot];
  const ProcessDesc& pd = w_.processes[rec.index];
  if (wakeups) wakeups->after(sc_time(pd.arrival_ns, SC_NS));
  wait(sc_time(pd.arrival_ns, SC_NS));
  const std::vector<uint32_t>& hwq = rec.hw_queues;
  for (uint32_t rep = 0;; ++rep) {
    if ((!w_.replay_until_all_done || !pd.replays) && rep >= pd.repeat) break;
    const double start = to_ns(sc_core::sc_time_stamp());
    std::vector<sc_core::sc_process_handle> streams;
    for (uint32_t s = 0; s < pd.streams.size(); ++s)
      streams.push_back(sc_core::sc_spawn(sc_bind(&Host::stream_thread, this, slot, s, rep, hwq[s])));
    for (auto& h : streams)
      if (!h.terminated()) wait(h.terminated_event());
    const double end = to_ns(sc_core::sc_time_stamp());
    rec.runs.push_back({start, end});
    if (timeline_) timeline_->span(Timeline::kProcessesPid, slot, pd.name + " run " + std::to_string(rep), "process", start, end);
    if (w_.replay_until_all_done && all_done()) {
      replay_stop_ = true;
      // In-flight runs of other processes are not counted. Killing unwinds their threads so
      // nothing suspended outlives the simulation.
      for (auto& h : process_threads_)
        if (h != sc_core::sc_get_current_process_handle() && !h.terminated())
          h.kill(sc_core::SC_INCLUDE_DESCENDANTS);
      sc_core::sc_stop();
      return;
    }
  }
  // The last process is done: stop here, so a run bounded by max_sim_time_us ends (and reports
  // its end) now rather than at the bound.
  if (all_done()) sc_core::sc_stop();
}

void Host::stream_thread(uint32_t slot, uint32_t stream, uint32_t rep, uint32_t hwq) {
  const ProcessDesc& pd = w_.processes[procs_[slot].index];
  const auto& cmds = pd.streams[stream].commands;
  for (uint32_t c = 0; c < cmds.size(); ++c) {
    Pending pend;
    pend.cmd = &cmds[c];
    pend.process = slot;
    if (cmds[c].kind == Command::Kind::launch) {
      launches_.emplace_back();
      KernelLaunch& k = launches_.back();
      // Stable across runs, so isolated and shared runs draw the same TB times.
      k.uid = hash3(procs_[slot].index, (uint64_t{rep} << 16) | stream, c);
      k.kernel = &w_.kernels[cmds[c].kernel];
      k.process = slot;
      k.process_index = procs_[slot].index;
      k.context = slot;
      k.page_table_base = slot < page_table_bases.size() ? page_table_bases[slot] : 0;
      k.priority = pd.priority;
      k.seed = w_.seed;
      k.submit_ns = to_ns(sc_core::sc_time_stamp());
      pend.launch = &k;
    }
    queues_[hwq].q.push_back(&pend);
    dispatch_ev_.notify(SC_ZERO_TIME);
    wait(pend.done);
    queues_[hwq].busy = false;
    dispatch_ev_.notify(SC_ZERO_TIME);
    if (pend.launch && timeline_)
      timeline_->span(Timeline::kKernelsPid, slot, pend.launch->kernel->name, "kernel",
                      pend.launch->start_ns, pend.launch->end_ns,
                      "{\"launch\":" + std::to_string(pend.launch->id) + "}");
  }
}

void Host::dispatcher() {
  for (;;) {
    wait(dispatch_ev_);
    if (replay_stop_) return;  // queued commands belong to killed stream threads
    for (auto& hq : queues_) {
      if (hq.busy || hq.q.empty()) continue;
      Pending* pend = hq.q.front();
      hq.q.pop_front();
      hq.busy = true;
      if (pend->launch) {
        pend->launch->id = next_launch_id_++;  // launch ids in command-processor issue order
        gpu_ctrl_ext ext;
        ext.command = CtrlCommand::launch_kernel;
        ext.kernel = pend->launch->id;
        ext.info = pend->launch;
        sc_time delay = clock_.cycles(p_.kernel_launch_cycles);
        pend->launch->host_cookie = pend;
        send_ctrl(launch_out, 0, ext, delay);
      } else {
        // Data-transfer engine: FCFS over the link, whole bursts.
        const auto& cmd = *pend->cmd;
        const double bursts = std::ceil(double(cmd.bytes) / p_.link.burst_bytes);
        const sc_time busy(bursts * p_.link.burst_bytes / p_.link.bandwidth_gbps(), SC_NS);
        const sc_time now = sc_core::sc_time_stamp();
        const sc_time start = link_.book(now, busy);
        const sc_time end = start + busy + sc_time(p_.link.latency_ns, SC_NS);
        copies_.push_back({pend->process, cmd.bytes, to_ns(start), to_ns(end)});
        // The copied range becomes resident (and, with copies_fill_l2, its lines sit in the L2).
        if (cmd.direction == Command::Direction::h2d && cmd.addr && on_copy_to_device)
          on_copy_to_device(pend->process, cmd.addr, cmd.bytes);
        if (timeline_)
          timeline_->span(Timeline::kHostLinkPid, 0, std::to_string(cmd.bytes) + " B copy", "copy",
                          to_ns(start), to_ns(end));
        if (wakeups) wakeups->after(end - now);
        pend->done.notify(end - now);
      }
    }
  }
}

void Host::done_b_transport(tlm::tlm_generic_payload& gp, sc_time&) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  if (!ext || ext->command != CtrlCommand::kernel_done) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (replay_stop_) return;  // its stream thread was killed at the replay stop
  auto* k = const_cast<KernelLaunch*>(static_cast<const KernelLaunch*>(ext->info));
  static_cast<Pending*>(k->host_cookie)->done.notify(SC_ZERO_TIME);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace mpgpu
