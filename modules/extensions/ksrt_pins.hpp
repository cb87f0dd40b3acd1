#pragma once
// KSRT (SPEC 2) pins and pin view: the C++ core behind the pins of its Verilog twin rtl/ksrt.v.
// The response is the addressed (or allocated) entry after the operation.
#include "extensions/clocked_table.hpp"
#include "extensions/ksrt.hpp"
#include "extensions/pin_bus.hpp"

namespace mpgpu {

#define MPGPU_KSRT_IN(X)                                                                               \
  X(req_op, 3) X(req_idx, 8) X(req_grid, 32) X(req_threads, 16) X(req_regs, 32) X(req_shm, 32) \
  X(req_param, 64) X(req_context, 8) X(req_priority, 8) X(req_tokens, 16)
#define MPGPU_KSRT_OUT(X)                                                                                    \
  X(resp_idx, 8) X(resp_entry_valid, 1) X(resp_grid, 32) X(resp_threads, 16) X(resp_regs, 32) X(resp_shm, 32) \
  X(resp_next_tb, 32) X(resp_tbs_done, 32) X(resp_param, 64) X(resp_context, 8) X(resp_priority, 8)           \
  X(resp_tokens, 16)
MPGPU_PIN_BUS(KsrtBus, MPGPU_KSRT_IN, MPGPU_KSRT_OUT)

struct KsrtPinLogic {
  enum Op : unsigned { kRead = 0, kAllocate = 1, kRelease = 2, kIssueNext = 3, kTbDone = 4, kSetTokens = 5 };
  Ksrt core;
  explicit KsrtPinLogic(const ExtensionParams& p) : core(p) {}
  void apply(KsrtBus& b);
  static void reset_outputs(KsrtBus& b) { b = KsrtBus{}; }
  // The request that makes update `op` of entry `idx` (allocate: with the entry's fields), and the
  // response a correct table gives after the core made it.
  static KsrtBus request(unsigned op, uint32_t idx, const KsrtEntry& e);
  static void respond(const KsrtEntry& e, uint32_t idx, KsrtBus& b);
};
using KsrtPinView = PinView<KsrtBus, KsrtPinLogic>;

}  // namespace mpgpu
