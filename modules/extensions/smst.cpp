#include "extensions/smst.hpp"

namespace mpgpu {

FieldLayout Smst::layout(const ExtensionParams& p) {
  return {{"running", bits_for(p.num_sms)},
          {"state", 2},
          {"running_tbs", bits_for(p.max_tbs_per_sm + 1)},
          {"next", bits_for(p.num_sms)}};
}

Smst::Smst(const ExtensionParams& p)
    : layout_(layout(p)), running_bits_(field_bits(layout_, "running")),
      running_tbs_bits_(field_bits(layout_, "running_tbs")), next_bits_(field_bits(layout_, "next")),
      table_(p.num_sms), without_tbs_(p.num_sms), idle_(p.num_sms) {
  idle_.set();
}

void Smst::entered(uint32_t sm, const SmstEntry& e) {
  without_tbs_[sm] = e.state != SmState::idle && e.running_tbs == 0;
  idle_[sm] = e.state == SmState::idle;
}

void Smst::set_running(uint32_t sm, uint32_t k) {
  SmstEntry& e = table_.at(sm);
  const auto running = static_cast<uint32_t>(checked(k, running_bits_, "SMST", "running"));
  leave_state(e);
  e.running = running;
  e.state = SmState::running;
  if (running_for_.size() <= running) running_for_.resize(running + 1, 0), running_kernels_.resize(running + 1);
  ++running_for_[running];
  running_kernels_.set(running);
  entered(sm, e);
  notify(1, sm, k);
}

void Smst::reserve(uint32_t sm, uint32_t next) {
  SmstEntry& e = table_.at(sm);
  if (e.state == SmState::idle) throw SimError("SMST: reserving an idle SM " + std::to_string(sm));
  const auto n = static_cast<uint32_t>(checked(next, next_bits_, "SMST", "next"));
  leave_state(e);
  e.next = n;
  e.state = SmState::reserved;
  entered(sm, e);
  if (reserved_for_.size() <= n) reserved_for_.resize(n + 1, 0);
  ++reserved_for_[n];
  notify(2, sm, next);
}

void Smst::set_idle(uint32_t sm) {
  SmstEntry& e = table_.at(sm);
  if (e.running_tbs) throw SimError("SMST: SM " + std::to_string(sm) + " set idle with running TBs");
  leave_state(e);
  e.state = SmState::idle;
  entered(sm, e);
  notify(3, sm, 0);
}

void Smst::tb_started(uint32_t sm) {
  SmstEntry& e = table_.at(sm);
  e.running_tbs = static_cast<uint32_t>(checked(e.running_tbs + 1, running_tbs_bits_, "SMST", "running_tbs"));
  entered(sm, e);
  notify(4, sm, 0);
}

void Smst::tb_left(uint32_t sm) {
  SmstEntry& e = table_.at(sm);
  if (e.running_tbs == 0) throw SimError("SMST: TB left SM " + std::to_string(sm) + " with none running");
  --e.running_tbs;
  entered(sm, e);
  notify(5, sm, 0);
}

int Smst::find_idle() const {
  const size_t i = idle_.find_first();  // the first idle entry in index order
  return i == boost::dynamic_bitset<>::npos ? -1 : static_cast<int>(i);
}

}  // namespace mpgpu
