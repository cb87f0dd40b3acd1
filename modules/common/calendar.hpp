#pragma once
// Occupancy calendar of a shared resource (a port, a bus, a bank): a request arriving at `at`
// starts when the resource is free and holds it for `busy`. Queuing delay and bandwidth limits
// follow from this alone, without per-cycle simulation.
#include <systemc>

namespace mpgpu {

class OccupancyCalendar {
 public:
  // Returns the start time of the request and books the resource.
  sc_core::sc_time book(const sc_core::sc_time& at, const sc_core::sc_time& busy) {
    sc_core::sc_time start = at > free_at_ ? at : free_at_;
    free_at_ = start + busy;
    busy_total_ += busy;
    return start;
  }
  const sc_core::sc_time& free_at() const { return free_at_; }
  const sc_core::sc_time& busy_total() const { return busy_total_; }

 private:
  sc_core::sc_time free_at_ = sc_core::SC_ZERO_TIME;
  sc_core::sc_time busy_total_ = sc_core::SC_ZERO_TIME;
};

}  // namespace mpgpu
