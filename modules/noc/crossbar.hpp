#pragma once
// Crossbar between SMs (and the fill unit) and the memory partitions: a request network and a
// reply network, each with a fixed traversal latency. A packet holds its source's output port
// and its destination's input port for its flits (flits_per_cycle per port), booked on occupancy
// calendars: first come, first served at every port.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <vector>

#include "common/address_map.hpp"
#include "common/busy_intervals.hpp"
#include "common/clock.hpp"
#include "common/divisor.hpp"

namespace mpgpu {

struct CrossbarParams {
  uint32_t latency_cycles = 8;  // one traversal, per direction
  uint32_t flit_bytes = 32;
  uint32_t flits_per_cycle = 1;  // per port
};

class Crossbar : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Crossbar> mem_in;      // from SMs, fill unit
  tlm_utils::multi_passthrough_initiator_socket<Crossbar> mem_out;  // to L2 slices, by partition

  Crossbar(sc_core::sc_module_name name, const CrossbarParams& p, ClockDomain clock,
           const AddressMap& map);

  uint64_t requests() const { return requests_; }
  // Time a partition's request input / reply output port was busy.
  sc_core::sc_time busy(uint32_t partition) const { return tick_.cycles(double(req_busy_.at(partition))); }
  sc_core::sc_time reply_busy(uint32_t partition) const { return tick_.cycles(double(reply_busy_.at(partition))); }
  uint32_t ports() const { return static_cast<uint32_t>(req_ports_.size()); }

 private:
  void b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void end_of_elaboration() override;
  // Books the packet on both ports in the first slot they share (`memo`: what the pair's earlier
  // searches learnt); returns its arrival time.
  sc_core::sc_time traverse(BusyIntervals& out, BusyIntervals& in, uint64_t& busy, BusyIntervals::JointMemo& memo,
                            uint32_t bytes, const sc_core::sc_time& at);

  // Ticks a port's forget point may lag now (64 ring words): memory stays bounded by the span
  // of its bookings ahead plus this.
  static constexpr uint64_t kForgetStep = 4096;
  CrossbarParams p_;
  Divisor flit_bytes_;  // a packet's flits: no division per hop when a power of two
  ClockDomain clock_;
  const AddressMap& map_;
  // Ports in ticks of 1/flits_per_cycle cycles: one flit per tick.
  ClockDomain tick_;
  std::vector<BusyIntervals> req_ports_, reply_ports_;     // per partition: input, output
  std::vector<BusyIntervals> inject_ports_, eject_ports_;  // per initiator (SM, fill unit)
  std::vector<uint64_t> req_busy_, reply_busy_;            // ticks booked, per partition
  std::vector<BusyIntervals::JointMemo> req_memo_, reply_memo_;  // per (initiator, partition)
  uint64_t requests_ = 0;
  sc_core::sc_time floor_at_ = sc_core::SC_ZERO_TIME;  // the time floor_ (in ticks) was taken at
  sc_core::sc_time latency_;  // latency_cycles as a time, converted once
  uint64_t floor_ = 0;
};

}  // namespace mpgpu
