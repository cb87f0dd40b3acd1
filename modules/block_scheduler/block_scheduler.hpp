#pragma once
// The SM driver (SPEC 1): takes kernel launches from the command processor, issues their TBs to
// SMs under the selected policy, counts completions and reports finished kernels to the host.
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <map>
#include <unordered_map>

#include "block_scheduler/left_over.hpp"
#include "common/clock.hpp"
#include "common/payload.hpp"
#include "common/progress.hpp"
#include "sm/sm.hpp"
#include "workload/kernel.hpp"

namespace mpgpu {

struct BlockSchedulerParams {
  uint32_t tb_dispatch_cycles = 1;  // the driver issues one TB per this many core cycles
};

class BlockScheduler : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<BlockScheduler> launch_in;  // from the command processor
  tlm_utils::simple_initiator_socket<BlockScheduler> host_out;  // kernel finished
  tlm_utils::multi_passthrough_initiator_socket<BlockScheduler> sm_out;  // dispatch, per SM
  tlm_utils::multi_passthrough_target_socket<BlockScheduler> sm_in;      // TB finished

  BlockScheduler(sc_core::sc_module_name name, const BlockSchedulerParams& p, const SmParams& sm,
                 ClockDomain clock, uint64_t total_tbs, bool show_progress);
  SC_HAS_PROCESS(BlockScheduler);

  uint64_t tbs_done() const { return tbs_done_; }
  uint64_t tbs_issued() const { return tbs_issued_; }
  size_t kernels_waiting() const { return policy_.waiting_kernels() + arrivals_.size(); }

 private:
  void launch_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void sm_b_transport(int port, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void run();
  bool try_dispatch(uint32_t sm, uint32_t launch, uint32_t tb, sc_core::sc_time& offset);

  BlockSchedulerParams p_;
  const SmParams& sm_;
  ClockDomain clock_;
  LeftOverFcfs policy_;
  std::multimap<sc_core::sc_time, KernelLaunch*> arrivals_;
  std::unordered_map<uint32_t, KernelLaunch*> active_;  // launch id -> launch
  static constexpr uint32_t kNone = ~0u;
  std::vector<uint32_t> refused_;  // per SM: the launch it last refused, until a TB of it ends
  sc_core::sc_event wake_;
  bool dirty_ = false;
  uint64_t tbs_done_ = 0, tbs_issued_ = 0, total_tbs_;
  ProgressLine progress_;
};

}  // namespace mpgpu
