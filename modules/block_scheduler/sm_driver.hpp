#pragma once
// The SM driver with the scheduling framework of SPEC 2: command buffers, active queue, KSRT,
// SMST and PTBQ, a policy that assigns idle SMs and reserves running ones, and the preemption
// mechanism (context switch or draining). Plain C++: the shell feeds it events and carries out
// what it asks through a DriverPort.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "extensions/active_queue.hpp"
#include "extensions/ksrt.hpp"
#include "extensions/ptbq.hpp"
#include "extensions/smst.hpp"

namespace mpgpu {

// flush (SPEC 4): the SM drops the TBs still idempotent; the others take the fallback the
// block scheduler was set up with (draining or a context switch). chimera: the block
// scheduler's preemption processor picks a technique per TB of the SM. dual_kernel: it frees only
// the allocation positions the preempting kernel needs; the SM runs both kernels meanwhile.
enum class Mechanism { context_switch, draining, flush, chimera, dual_kernel };

struct DriverKernel {
  uint32_t launch_id = 0;
  uint32_t context = 0;
  uint32_t priority = 0;
  uint64_t grid = 0;
  uint32_t tbs_per_sm = 1;  // occupancy on an empty SM
  uint32_t threads = 0, registers = 0, shared_mem = 0;
  uint32_t process = 0;
};

class DriverPort {
 public:
  virtual ~DriverPort() = default;
  // Place TB `tb` of a launch on an SM (restore: a preempted TB to bring back). False: no room.
  virtual bool dispatch(uint32_t sm, uint32_t launch_id, uint64_t tb, const PtbqEntry* restore) = 0;
  // Context switch: the SM saves its resident TBs and later reports them through preempted().
  virtual void save_context(uint32_t sm) = 0;
  // Flushing: the SM drops what it can, saves or keeps the rest, and reports through preempted().
  virtual void flush(uint32_t sm) = 0;
  // Chimera, dual-kernel: the preemption processor plans the SM's preemption for kernel
  // `next_launch` (dual-kernel: `needed` positions); true when the SM will report what left it.
  virtual bool plan_preemption(uint32_t sm, uint32_t next_launch, uint32_t needed) { return false; }
  // Chimera's choice among equally ranked victim SMs: (meets the latency constraint, its
  // overhead if so else its latency); smaller is better.
  virtual std::pair<bool, double> preemption_cost(uint32_t sm) { return {true, 0.0}; }
  // Dual-kernel: the preempting kernel finished while the SM still runs the other one.
  virtual void dual_ended(uint32_t sm) {}
  virtual void preemption_requested(uint32_t sm, Mechanism m) {}
  virtual void preemption_completed(uint32_t sm) {}
  virtual void decision_made() {}  // one policy assignment or reservation
};

class SmDriver;

// A scheduling policy: decides which kernel idle SMs get and which running SMs to reserve.
class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string name() const = 0;
  virtual void decide(SmDriver& d) = 0;
  // May an SM running KSRT entry k be given another TB of it now?
  virtual bool may_issue(const SmDriver& d, uint32_t k) const { return true; }
  virtual void admitted(SmDriver& d, uint32_t k) {}
  virtual void retired(SmDriver& d, uint32_t k) {}
};

struct SavedTb {
  uint32_t launch_id;
  PtbqEntry entry;
};

struct DriverStats {
  uint64_t decisions = 0;  // policy assignments/reservations (each a serial walk of the tables)
  uint64_t preemptions = 0;
  uint64_t tbs_saved = 0, tbs_restored = 0;
};

class SmDriver {
 public:
  SmDriver(const ExtensionParams& p, Mechanism m, std::unique_ptr<Policy> policy);

  // Events from the shell.
  void launch(const DriverKernel& k);
  // Returns true when this TB completed its kernel.
  bool tb_finished(uint32_t sm, uint32_t launch_id);
  void preempted(uint32_t sm, const std::vector<SavedTb>& saved);
  // Block switching (SPEC 3): the SM switched a faulted TB out (it stays the SM's, in the SMST)
  // and has room for another; has_tb_for: the SM's kernel has a TB to give it.
  void room_freed(uint32_t sm) { full_.at(sm) = false; }
  bool has_tb_for(uint32_t sm) const;
  // Carry out pending work: admissions, policy decisions, TB issue. Returns decisions made.
  uint64_t step(DriverPort& port);

  // For policies.
  const Ksrt& ksrt() const { return ksrt_; }
  const Smst& smst() const { return smst_; }
  const Ptbq& ptbq() const { return ptbq_; }
  // Its owner sees every update of the tables (and makes it on their links, extensions/table_link.hpp).
  void observe_tables(Smst::Observer smst, Ksrt::Observer ksrt, Ptbq::Observer ptbq, CommandBuffers::Observer cmd,
                      ActiveQueue::Observer active) {
    smst_.set_observer(std::move(smst));
    ksrt_.set_observer(std::move(ksrt));
    ptbq_.set_observer(std::move(ptbq));
    cmd_bufs_.set_observer(std::move(cmd));
    active_.set_observer(std::move(active));
  }
  const CommandBuffers& command_buffers() const { return cmd_bufs_; }
  const ActiveQueue& active() const { return active_; }
  const DriverKernel& kernel(uint32_t k) const { return kernels_.at(k); }
  uint32_t num_sms() const { return smst_.entries(); }
  uint64_t issuable(uint32_t k) const;        // TBs in its PTBQ plus TBs never issued
  uint32_t owned_sms(uint32_t k) const;       // running it, or reserved for it
  uint32_t reserved_for(uint32_t k) const;
  bool wants_sm(uint32_t k) const;            // has TBs its SMs (incl. reserved ones) will not absorb
  uint32_t owner(uint32_t sm) const;          // KSRT index owning the SM (running or next)
  void assign(uint32_t sm, uint32_t k);       // idle SM -> running k
  void reserve(uint32_t sm, uint32_t k);      // running SM -> reserved for k (starts preemption)
  void set_tokens(uint32_t k, int32_t t) { ksrt_.set_tokens(k, t); }
  Mechanism mechanism() const { return mech_; }
  // For policies, while deciding: the cost of preempting a running SM (see DriverPort).
  std::pair<bool, double> preemption_cost(uint32_t sm) const { return port_->preemption_cost(sm); }
  const DriverStats& stats() const { return stats_; }
  const Policy& policy() const { return *policy_; }
  size_t waiting_launches() const;

 private:
  void admit();
  // Issues TBs to the SM while it takes them; a full one (most, after a TB ends) costs no call.
  void issue_to(uint32_t sm) {
    if (!full_[sm]) issue_tbs(sm);
  }
  void issue_tbs(uint32_t sm);  // issue_to on an SM not full
  void complete_reservation(uint32_t sm);
  void retire(uint32_t k);
  bool settle();  // SMs that finished or completed preemption; true if anything changed

  ExtensionParams p_;
  Mechanism mech_;
  std::unique_ptr<Policy> policy_;
  Ksrt ksrt_;
  Smst smst_;
  Ptbq ptbq_;
  ActiveQueue active_;
  CommandBuffers cmd_bufs_;
  std::vector<std::deque<DriverKernel>> hw_waiting_;  // per context, behind its command buffer
  std::vector<DriverKernel> kernels_;                 // by KSRT index
  std::vector<DriverKernel> buffered_;                // by context: the command buffer's launch
  std::vector<bool> saving_;      // per SM: context save in flight
  std::vector<bool> full_;        // per SM: refused a TB since its last TB left
  std::vector<uint32_t> preempting_tbs_;  // per SM, dual-kernel: the preempting kernel's TBs there (the SMST counts the running one's)
  std::vector<uint32_t> dual_ended_;      // SMs whose preempting kernel retired, to tell the port
  DriverPort* port_ = nullptr;
  bool in_decide_ = false;
  size_t pending_ = 0;  // launches not yet in the KSRT  // assignments and reservations made by the policy count as decisions
  DriverStats stats_;
};

// chimera and dual_kernel preempt by priority like ppq_exclusive (their mechanism does the rest).
std::unique_ptr<Policy> make_policy(const std::string& name, const std::vector<int32_t>& dss_budgets = {});

}  // namespace mpgpu
