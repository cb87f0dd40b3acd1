#include "platform/table_shadow.hpp"

namespace mpgpu {

using sc_core::SC_ZERO_TIME;

TableShadow::TableShadow(sc_core::sc_module_name name, Impl impl) : sc_module(name), impl_(impl) { SC_THREAD(run); }

void TableShadow::replay(std::function<void()> drive, std::function<std::string()> check) {
  pending_.push_back({std::move(drive), std::move(check)});
  work_.notify(SC_ZERO_TIME);
}

// One clock cycle in delta time: rising edge, let the registered outputs settle, falling edge.
void TableShadow::edge() {
  clk_.write(true);
  wait(SC_ZERO_TIME);
  wait(SC_ZERO_TIME);
  clk_.write(false);
  wait(SC_ZERO_TIME);
}

void TableShadow::run() {
  rst_.write(true);
  wait(SC_ZERO_TIME);
  edge();
  rst_.write(false);
  for (;;) {
    if (pending_.empty()) wait(work_);
    while (!pending_.empty()) {
      const Update u = std::move(pending_.front());
      pending_.pop_front();
      req_valid_.write(true);
      u.drive();
      wait(SC_ZERO_TIME);
      edge();
      ++checked_;
      if (std::string diff = u.check(); !diff.empty() && first_mismatch_.empty()) first_mismatch_ = std::move(diff);
      req_valid_.write(false);
    }
  }
}

}  // namespace mpgpu
