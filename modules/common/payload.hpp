#pragma once
// The TLM generic-payload extensions of DESIGN (TLM conventions): one for memory traffic, one
// for control traffic between host, block scheduler and SMs.
#include <tlm>

#include <memory>
#include <vector>

#include <cstdint>

namespace mpgpu {

enum class AccessKind : uint8_t { load, store, atomic, context_save, context_restore, page_walk, fill, instruction };

struct gpu_mem_ext : tlm::tlm_extension<gpu_mem_ext> {
  uint32_t context = 0;
  uint32_t kernel = 0;
  uint32_t sm = 0;
  uint32_t warp = 0;
  uint32_t tb = 0;
  AccessKind kind = AccessKind::load;
  uint64_t vaddr = 0;
  uint64_t page_table_base = 0;  // page walks: the SM's page-table base register (SPEC 2)
  // Set by the fill unit when the translation waited for a fault handler: `fault_at` is when the
  // fault was known (the walk found the page missing); the SM reacts, nothing throws.
  bool page_fault = false;
  sc_core::sc_time fault_at = sc_core::SC_ZERO_TIME;

  tlm_extension_base* clone() const override { return new gpu_mem_ext(*this); }
  void copy_from(const tlm_extension_base& other) override {
    *this = static_cast<const gpu_mem_ext&>(other);
  }
};

// A memory payload an initiator reuses for its requests, with its gpu_mem_ext attached once:
// set_extension and clear_extension are library calls, two per request otherwise. The extension
// is detached before the payload is destroyed (whose destructor would free() it). Each request
// assigns the whole extension, so nothing a target marked on the last one is left over.
struct MemPayload {
  tlm::tlm_generic_payload gp;
  gpu_mem_ext ext;
  MemPayload() { gp.set_extension(&ext); }
  ~MemPayload() { gp.clear_extension(&ext); }
  MemPayload(const MemPayload&) = delete;
  MemPayload& operator=(const MemPayload&) = delete;
};

enum class CtrlCommand : uint8_t {
  launch_kernel,   // host -> block scheduler
  kernel_done,     // block scheduler -> host
  dispatch_tb,     // block scheduler -> SM
  tb_finished,     // SM -> block scheduler
  status_query,    // block scheduler -> SM: read its running-TB status (reply: SmStatusReport)
  save_context,    // block scheduler -> SM: context-switch every resident TB out
  flush_tbs,       // block scheduler -> SM: flush the idempotent TBs, the rest by a fallback (info)
  preempt_tbs,     // block scheduler -> SM: preempt the listed TBs, each by its technique (info)
  preempted,       // SM -> block scheduler: the save finished, here are the saved TBs
  tb_wanted,       // SM -> block scheduler: would it issue this SM a TB now? (reply: accepted)
  room_freed,      // SM -> block scheduler: a TB switched out on a fault left room (block switching)
  set_tb_mix,      // block scheduler -> SM: load the TB-mix register (info: TbMixRegister, SPEC 5)
};

struct gpu_ctrl_ext : tlm::tlm_extension<gpu_ctrl_ext> {
  CtrlCommand command = CtrlCommand::status_query;
  uint32_t sm = 0;
  uint32_t kernel = 0;  // model-wide launch id
  uint32_t tb = 0;
  bool accepted = false;      // dispatch: the SM had the resources
  bool full = false;          // dispatch, accepted: another TB of that launch would be refused now
  const void* info = nullptr; // command-specific record, owned by the sender
  void* reply = nullptr;      // status_query: the record the target fills, owned by the sender

  tlm_extension_base* clone() const override { return new gpu_ctrl_ext(*this); }
  void copy_from(const tlm_extension_base& other) override {
    *this = static_cast<const gpu_ctrl_ext&>(other);
  }
};

// Sends one control command over a socket as a generic payload; the target answers in `ext`,
// which is returned (by reference: a TB-level run sends two per TB, and each copy of the
// extension cost more than the payload's set-up).
template <typename Socket>
const gpu_ctrl_ext& send_ctrl(Socket& socket, int port, gpu_ctrl_ext& ext, sc_core::sc_time& delay) {
  // Payloads are reused (constructing one allocates its extension array), one per nesting level:
  // a TB completion can trigger a kernel-done message and a dispatch inside the call.
  static std::vector<std::unique_ptr<tlm::tlm_generic_payload>> pool;
  static size_t depth = 0;
  if (pool.size() <= depth) pool.push_back(std::make_unique<tlm::tlm_generic_payload>());
  tlm::tlm_generic_payload& gp = *pool[depth];
  struct Nest {
    size_t& d;
    ~Nest() { --d; }
  } nest{++depth};
  gp.set_command(tlm::TLM_IGNORE_COMMAND);
  gp.set_address(0);
  gp.set_data_ptr(nullptr);
  gp.set_data_length(0);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  gp.set_extension(&ext);
  socket[port]->b_transport(gp, delay);
  gp.clear_extension(&ext);
  return ext;
}

}  // namespace mpgpu
