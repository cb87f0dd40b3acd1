// The SM's running-TB status over its link (extensions/table_link.hpp): updates are made on the
// pins too and compared with the core; reads for a status report count their cycles.
#include <fmt/format.h>

#include "sm/sm.hpp"

namespace mpgpu {

namespace {
uint64_t now_ps() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5); }
}  // namespace

void Sm::link_status(std::unique_ptr<TableLink<RunningTbStatusBus>> link) {
  status_link_ = std::move(link);
  if (!status_link_) return;
  tb_status_.set_observer([this](unsigned op, uint32_t slot, uint64_t value, bool idempotent) {
    status_access(op, slot, value, idempotent);
  });
}

uint32_t Sm::status_access(unsigned op, uint32_t slot, uint64_t value, bool idempotent) {
  const uint64_t at = now_ps();
  const uint32_t cycles = status_link_->access(RunningTbStatusPinLogic::request(op, slot, value, idempotent), at);
  RunningTbStatusBus want;
  RunningTbStatusPinLogic::respond(tb_status_, slot, want);
  check_response(*status_link_, want, [&] {
    return op == RunningTbStatus::kRead ? fmt::format("a read of slot {}", slot)
                                        : fmt::format("op {} on slot {} (value {})", op, slot, value);
  }, at);
  return cycles;
}

uint64_t Sm::read_status(uint32_t slot) {
  return status_link_ ? status_access(RunningTbStatus::kRead, slot, 0, false) - 1 : 0;
}

}  // namespace mpgpu
