#pragma once
// PTBQ (SPEC 2) pins and pin view: the C++ core behind the pins of its Verilog twin rtl/ptbq.v.
// The response is the addressed queue's head and size after the operation.
#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"
#include "extensions/ptbq.hpp"

namespace mpgpu {

#define MPGPU_PTBQ_IN(X) X(req_op, 2) X(req_q, 8) X(req_tb, 32) X(req_ptr, 32)
#define MPGPU_PTBQ_OUT(X) X(resp_empty, 1) X(resp_tb, 32) X(resp_ptr, 32) X(resp_size, 16)
MPGPU_PIN_BUS(PtbqBus, MPGPU_PTBQ_IN, MPGPU_PTBQ_OUT)

struct PtbqPinLogic {
  enum Op : unsigned { kFront = 0, kPush = 1, kPop = 2, kClear = 3 };
  Ptbq core;
  explicit PtbqPinLogic(const ExtensionParams& p) : core(p) {}
  void apply(PtbqBus& b);
  static void reset_outputs(PtbqBus& b) {
    b = PtbqBus{};
    b.resp_empty = 1;
  }
  // The response a correct table gives for queue q as the core now holds it.
  static void respond(const Ptbq& core, uint32_t q, PtbqBus& b);
};
using PtbqPinView = PinView<PtbqBus, PtbqPinLogic>;

}  // namespace mpgpu
