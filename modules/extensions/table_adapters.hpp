#pragma once
// Request/response adapters of the tables that use the generic TablePins view. Each names its
// operations; `index` selects an entry, `a` and `b` carry operands; d0/d1 are the response.
#include "extensions/active_queue.hpp"
#include "extensions/dual_kernel_tables.hpp"
#include "extensions/replay_queue.hpp"
#include "extensions/table_pins.hpp"

namespace mpgpu {

// 0 read(context): d0 occupied, d1 launch; 1 put(context, a = launch); 2 take(context): d1 launch.
struct CommandBuffersAdapter {
  CommandBuffers core;
  explicit CommandBuffersAdapter(const ExtensionParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 read(i): d0 size, d1 i-th oldest KSRT index; 1 push(a); 2 remove(a).
struct ActiveQueueAdapter {
  ActiveQueue core;
  explicit ActiveQueueAdapter(const ExtensionParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 size; 1 issue(warp = index, pc = a, seq = b); 2 commit(warp = index, seq = b);
// 3 replay(warp = index): d0 instructions to replay, d1 the first one's PC (program order).
struct ReplayQueueAdapter {
  ReplayQueue core;
  explicit ReplayQueueAdapter(const ReplayQueueParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 read(tb): d0 entries used, d1 share; 1 partition(a = resident TBs); 2 allocate(tb, a = store);
// 3 release(tb, a = store).
struct OperandLogAdapter {
  OperandLog core;
  explicit OperandLogAdapter(const OperandLogParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 read(slot): d0 executed instructions, d1 issue cycle | flush << 63; 1 start(slot, a = cycle,
// b = idempotent); 2 executed(slot, a = instructions); 3 lost_idempotence(slot).
struct RunningTbStatusAdapter {
  RunningTbStatus core;
  explicit RunningTbStatusAdapter(const DualKernelParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 read(position): d0 allocated, d1 TB slot; 1 allocate(position, a = slot); 2 release(position);
// 3 set_kernel(a = pid, b = kernel id): d0 pid, d1 kernel id.
struct PreemptingStatusAdapter {
  PreemptingAllocationStatus core;
  explicit PreemptingStatusAdapter(const DualKernelParams& p) : core(p) {}
  PinResponse apply(const PinRequest& r);
};

// 0 read(k): d0 register offset, d1 shared-memory offset; 1 configure(a = TB registers,
// b = TB shared memory): d0 positions. Sized for `registers` and `shared_mem` of the SM.
struct AllocationPositionsAdapter {
  DualKernelParams p;
  uint32_t registers, shared_mem;
  std::vector<AllocationPosition> positions;
  AllocationPositionsAdapter(const DualKernelParams& params, uint32_t regs, uint32_t shm)
      : p(params), registers(regs), shared_mem(shm) {}
  PinResponse apply(const PinRequest& r);
};

using CommandBuffersPins = TablePins<CommandBuffersAdapter>;
using ActiveQueuePins = TablePins<ActiveQueueAdapter>;
using ReplayQueuePins = TablePins<ReplayQueueAdapter>;
using OperandLogPins = TablePins<OperandLogAdapter>;
using RunningTbStatusPins = TablePins<RunningTbStatusAdapter>;
using PreemptingStatusPins = TablePins<PreemptingStatusAdapter>;
using AllocationPositionsPins = TablePins<AllocationPositionsAdapter>;

}  // namespace mpgpu
