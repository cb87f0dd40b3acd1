#include "sm/sm.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace mpgpu {

using sc_core::sc_time;

Sm::Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& p, ClockDomain clock,
       Timeline* timeline)
    : sc_module(name), ctrl_in("ctrl_in"), ctrl_out("ctrl_out"), mem_out("mem_out"),
      walk_out("walk_out"), id_(id), p_(p), clock_(clock), timeline_(timeline), res_(p) {
  ctrl_in.register_b_transport(this, &Sm::ctrl_b_transport);
  SC_THREAD(run);
  if (timeline_ && timeline_->enabled()) {
    timeline_->name_group(Timeline::sm_pid(id), fmt::format("SM {}", id));
    for (uint32_t s = 0; s < p.max_tbs; ++s)
      timeline_->name_track(Timeline::sm_pid(id), s, fmt::format("TB slot {}", s));
  }
}

void Sm::ctrl_b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  auto* ext = gp.get_extension<gpu_ctrl_ext>();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  if (!ext || ext->command != CtrlCommand::dispatch_tb) {
    if (!ext) gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const auto* d = static_cast<const TbDispatch*>(ext->info);
  auto alloc = res_.try_allocate(d->resources, d->carve_out);
  ext->accepted = alloc.has_value();
  if (!alloc) return;
  const sc_time start = sc_core::sc_time_stamp() + delay;
  const uint64_t cycles = sample_tb_cycles(d->launch->kernel->tb_time, d->launch->seed, d->launch->uid, d->tb);
  if (resident_.empty()) busy_since_ = start;
  resident_.push({d->launch, d->tb, *alloc, start, start + clock_.cycles(double(cycles))});
  stats_.peak_resident = std::max<uint32_t>(stats_.peak_resident, static_cast<uint32_t>(resident_.size()));
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void Sm::run() {
  for (;;) {
    if (resident_.empty()) {
      wait(wake_);
      continue;
    }
    const sc_time now = sc_core::sc_time_stamp();
    const sc_time next = resident_.top().end;
    if (next > now) {
      wait(next - now, wake_);
      continue;
    }
    // Pop all TBs ending now first, then report: reports may trigger new dispatches.
    std::vector<Resident> done;
    while (!resident_.empty() && resident_.top().end <= now) {
      done.push_back(resident_.top());
      resident_.pop();
      res_.release(done.back().alloc);
    }
    if (resident_.empty()) stats_.busy += now - busy_since_;
    for (const auto& r : done) finish(r);
  }
}

void Sm::finish(const Resident& r) {
  ++stats_.tbs_done;
  if (timeline_ && timeline_->enabled())
    timeline_->span(Timeline::sm_pid(id_), r.alloc.slot,
                    fmt::format("{} tb{}", r.launch->kernel->name, r.tb), "tb",
                    to_ns(r.start), to_ns(r.end),
                    fmt::format(R"({{"launch":{},"process":{}}})", r.launch->id, r.launch->process));
  TbCompletion c{r.launch, r.tb, id_, r.start, r.end};
  gpu_ctrl_ext ext;
  ext.command = CtrlCommand::tb_finished;
  ext.sm = id_;
  ext.kernel = r.launch->id;
  ext.tb = r.tb;
  ext.info = &c;
  sc_time delay = sc_core::SC_ZERO_TIME;
  send_ctrl(ctrl_out, 0, ext, delay);
}

}  // namespace mpgpu
