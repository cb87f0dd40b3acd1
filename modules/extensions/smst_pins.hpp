#pragma once
// SMST (SPEC 2) pins and pin view: the C++ core behind the pins of its Verilog twin rtl/smst.v.
// The response is the addressed entry after the operation and the first idle SM.
#include "extensions/clocked_table.hpp"
#include "extensions/pin_bus.hpp"
#include "extensions/smst.hpp"

namespace mpgpu {

#define MPGPU_SMST_IN(X) X(req_op, 3) X(req_sm, 8) X(req_arg, 8)
#define MPGPU_SMST_OUT(X) \
  X(resp_state, 2) X(resp_running, 8) X(resp_next, 8) X(resp_tbs, 8) X(resp_has_idle, 1) X(resp_idle, 8)
MPGPU_PIN_BUS(SmstBus, MPGPU_SMST_IN, MPGPU_SMST_OUT)

struct SmstPinLogic {
  enum Op : unsigned { kRead = 0, kSetRunning = 1, kReserve = 2, kSetIdle = 3, kTbStarted = 4, kTbLeft = 5 };
  Smst core;
  explicit SmstPinLogic(const ExtensionParams& p) : core(p) {}
  void apply(SmstBus& b);
  static void reset_outputs(SmstBus& b) { b = SmstBus{}; }
  // The response a correct table gives to the update (op, sm, arg) the core just made.
  static SmstBus expected(const Smst& core, unsigned op, uint32_t sm, uint32_t arg);
};
using SmstPinView = PinView<SmstBus, SmstPinLogic>;

}  // namespace mpgpu
