#include "block_scheduler/block_scheduler.hpp"

#include "common/error.hpp"
#include "sm/occupancy.hpp"

namespace mpgpu {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

BlockScheduler::BlockScheduler(sc_core::sc_module_name name, const BlockSchedulerParams& p,
                               const SmParams& sm, ClockDomain clock, uint64_t total_tbs, bool show_progress)
    : sc_module(name), launch_in("launch_in"), host_out("host_out"), sm_out("sm_out"),
      sm_in("sm_in"), p_(p), sm_(sm), clock_(clock), policy_(sm.count), total_tbs_(total_tbs),
      refused_(sm.count, kNone), progress_("simulating", show_progress) {
  launch_in.register_b_transport(this, &BlockScheduler::launch_b_transport);
  sm_in.register_b_transport(this, &BlockScheduler::sm_b_transport);
  SC_THREAD(run);
}

void BlockScheduler::launch_b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  if (!ext || ext->command != CtrlCommand::launch_kernel) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  auto* launch = const_cast<KernelLaunch*>(static_cast<const KernelLaunch*>(ext->info));
  const sc_time at = sc_core::sc_time_stamp() + delay;
  launch->arrive_ns = to_ns(at);
  arrivals_.emplace(at, launch);
  wake_.notify(delay);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void BlockScheduler::sm_b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (!ext || ext->command != CtrlCommand::tb_finished) {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const auto* c = static_cast<const TbCompletion*>(ext->info);
  KernelLaunch* k = c->launch;
  refused_[c->sm] = kNone;
  ++tbs_done_;
  progress_.tick(to_ns(sc_core::sc_time_stamp()) / 1e3, tbs_done_, total_tbs_);
  if (++k->tbs_done == k->kernel->grid) {
    k->end_ns = to_ns(c->end);
    active_.erase(k->id);
    gpu_ctrl_ext done;
    done.command = CtrlCommand::kernel_done;
    done.kernel = k->id;
    done.info = k;
    sc_time d = SC_ZERO_TIME;
    send_ctrl(host_out, 0, done, d);
  }
  dirty_ = true;
  wake_.notify(SC_ZERO_TIME);
}

bool BlockScheduler::try_dispatch(uint32_t sm, uint32_t launch_id, uint32_t tb, sc_time& offset) {
  // An SM that refused this launch stays full for it until one of its TBs finishes.
  if (refused_[sm] == launch_id) return false;
  KernelLaunch* k = active_.at(launch_id);
  const KernelDesc& kd = *k->kernel;
  TbDispatch d{k, tb, {kd.threads_per_tb, kd.registers_per_tb, kd.shared_mem_per_tb},
               shared_mem_config_for(sm_, kd.shared_mem_per_tb)};
  gpu_ctrl_ext ext;
  ext.command = CtrlCommand::dispatch_tb;
  ext.sm = sm;
  ext.kernel = launch_id;
  ext.tb = tb;
  ext.info = &d;
  sc_time delay = offset;
  ext = send_ctrl(sm_out, static_cast<int>(sm), ext, delay);
  if (!ext.accepted) {
    refused_[sm] = launch_id;
    return false;
  }
  if (k->start_ns < 0) k->start_ns = to_ns(sc_core::sc_time_stamp() + offset);
  offset += clock_.cycles(p_.tb_dispatch_cycles);
  ++tbs_issued_;
  return true;
}

void BlockScheduler::run() {
  for (;;) {
    const sc_time now = sc_core::sc_time_stamp();
    while (!arrivals_.empty() && arrivals_.begin()->first <= now) {
      KernelLaunch* k = arrivals_.begin()->second;
      arrivals_.erase(arrivals_.begin());
      active_[k->id] = k;
      policy_.arrive(k->id, k->kernel->grid);
    }
    dirty_ = false;
    sc_time offset = SC_ZERO_TIME;
    policy_.schedule([&](uint32_t sm, uint32_t id, uint32_t tb) { return try_dispatch(sm, id, tb, offset); });
    if (offset > SC_ZERO_TIME) {  // the driver is busy issuing for this long
      wait(offset);
      continue;
    }
    if (dirty_) continue;
    if (!arrivals_.empty())
      wait(arrivals_.begin()->first - now, wake_);
    else
      wait(wake_);
  }
}

}  // namespace mpgpu
