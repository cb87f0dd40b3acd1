#pragma once
// How an owner block (block scheduler, its preemption processor) reaches one of its extension
// tables, whatever `extensions.<name>.impl` selects:
// - core: the C++ core alone; an access takes `latency_cycles` (configured);
// - pins: the C++ core behind its pins (PinView), latency_cycles deep;
// - verilog: the verilated Verilog twin; its latency is whatever the RTL takes.
// With pins or verilog the owner drives the request for one cycle and clocks the table, at the
// owner's clock, until resp_valid: the cycles counted are the access's latency, which the owner
// charges to its own time. The core keeps the state the owner's logic reads; the owner compares
// every response with it (lock-step co-simulation), so a twin that differs stops the run.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/error.hpp"
#include "common/vcd_writer.hpp"
#include "extensions/clocked_table.hpp"

namespace mpgpu {

enum class ExtensionImpl { core, pins, verilog };
inline const char* impl_name(ExtensionImpl i) {
  return i == ExtensionImpl::core ? "core" : i == ExtensionImpl::pins ? "pins" : "verilog";
}

template <class Bus>
class TableLink {
 public:
  static constexpr uint32_t kMaxCycles = 1u << 20;  // no response by then: the RTL is stuck

  TableLink(std::string name, ExtensionImpl impl, uint32_t latency, std::unique_ptr<ClockedTable<Bus>> table)
      : name_(std::move(name)), impl_(impl), latency_(latency), table_(std::move(table)) {
    if (table_) table_->reset(bus_);
  }
  const std::string& name() const { return name_; }
  ExtensionImpl impl() const { return impl_; }
  // One access: `req`'s inputs for one cycle, then edges until the response. Returns the cycles it
  // took (core: the configured latency); the response is then in pins(). `at_ps`: the owner's
  // local time of the request (for the VCD).
  uint32_t access(const Bus& req, uint64_t at_ps) {
    ++accesses_;
    if (!table_) {
      cycles_ += latency_;
      return latency_;
    }
    Bus in = req;
    in.take_outputs(bus_);  // the outputs still hold the last response
    bus_ = in;
    bus_.req_valid = 1;
    uint32_t n = 0;
    do {
      if (n == kMaxCycles)
        throw SimError(name_ + " (" + impl_name(impl_) + "): no resp_valid within " + std::to_string(kMaxCycles) +
                       " cycles of a request");
      dump(at_ps + uint64_t{n} * period_ps_);
      table_->edge(bus_);
      bus_.req_valid = 0;
      ++n;
    } while (!bus_.resp_valid);
    dump(at_ps + uint64_t{n} * period_ps_);
    cycles_ += n;
    return n;
  }
  // Reset held over one edge (the owner clears the table): no access, no cycles charged.
  void reset() {
    if (table_) table_->reset(bus_);
  }
  const Bus& pins() const { return bus_; }
  uint64_t accesses() const { return accesses_; }
  uint64_t cycles() const { return cycles_; }
  // Dumps the pins to `w` from now on (owner's clock period for the edges' times).
  void trace(VcdWriter& w, uint64_t period_ps) {
    if (!table_) return;
    std::vector<std::pair<std::string, uint32_t>> vars;
    bus_.visit([&](const char* n, uint32_t bits, uint64_t) { vars.emplace_back(n, bits); });
    vcd_ = &w;
    first_var_ = w.add_scope(name_, vars);
    period_ps_ = period_ps;
  }

 private:
  void dump(uint64_t t) {
    if (!vcd_) return;
    uint32_t v = first_var_;
    bus_.visit([&](const char*, uint32_t, uint64_t value) { vcd_->sample(t, v++, value); });
  }
  std::string name_;
  ExtensionImpl impl_;
  uint32_t latency_;
  std::unique_ptr<ClockedTable<Bus>> table_;
  Bus bus_;
  uint64_t accesses_ = 0, cycles_ = 0;
  VcdWriter* vcd_ = nullptr;
  uint32_t first_var_ = 0;
  uint64_t period_ps_ = 1000;
};

// Lock-step check of a pins or verilog link against the core after an access: throws SimError
// naming the table, the implementation, the update `what`, the time and every differing output.
// `what`: a string, or a callable giving one, called only on a difference (hot owners format
// nothing per access).
template <class Bus, class What>
void check_response(const TableLink<Bus>& link, const Bus& expected, const What& what, uint64_t at_ps) {
  if (link.impl() == ExtensionImpl::core) return;
  const std::string diff = output_differences(link.pins(), expected);
  if (diff.empty()) return;
  std::string update;
  if constexpr (std::is_invocable_v<const What&>) update = what();
  else update = what;
  throw SimError(link.name() + " (" + impl_name(link.impl()) + ") differs from the C++ core after " + update + " at " +
                 std::to_string(at_ps) + " ps: " + diff);
}

}  // namespace mpgpu
