#include "twins/twin_params.hpp"

#include "extensions/active_queue.hpp"
#include "extensions/ksrt.hpp"
#include "extensions/ptbq.hpp"
#include "extensions/smst.hpp"

namespace mpgpu {

TwinParams smst_twin_params(const ExtensionParams& p) {
  const FieldLayout l = Smst::layout(p);
  return {{"N", p.num_sms}, {"SMB", bits_for(p.num_sms)}, {"KB", field_bits(l, "running")},
          {"TBB", field_bits(l, "running_tbs")}};
}

TwinParams ksrt_twin_params(const ExtensionParams& p) {
  const FieldLayout l = Ksrt::layout(p);
  return {{"N", p.num_sms},
          {"GB", field_bits(l, "grid_tbs")},
          {"THB", field_bits(l, "threads_per_tb")},
          {"RB", field_bits(l, "registers_per_tb")},
          {"SB", field_bits(l, "shared_mem_per_tb")},
          {"PB", field_bits(l, "param_pointer")},
          {"CB", field_bits(l, "context")},
          {"PRB", field_bits(l, "priority")},
          {"TKB", field_bits(l, "tokens")}};
}

TwinParams ptbq_twin_params(const ExtensionParams& p) {
  const FieldLayout l = Ptbq::layout(p);
  const uint32_t capacity = p.num_sms * p.max_tbs_per_sm;
  return {{"Q", p.num_sms}, {"C", capacity}, {"CB", bits_for(capacity)}, {"TBB", field_bits(l, "tb")},
          {"PB", field_bits(l, "save_pointer")}};
}

TwinParams victim_sets_twin_params(const DualKernelParams& p) { return {{"K", p.positions}, {"P", p.tb_slots}}; }

TwinParams command_buffers_twin_params(const ExtensionParams& p) { return {{"C", p.max_contexts}}; }

TwinParams active_queue_twin_params(const ExtensionParams& p) {
  return {{"N", p.num_sms}, {"KB", field_bits(ActiveQueue::layout(p), "ksrt_index")}};
}

TwinParams preempting_status_twin_params(const DualKernelParams& p) {
  return {{"K", p.positions}, {"SB", bits_for(p.tb_slots)}, {"PIDB", p.pid_bits}, {"KIDB", p.kernel_id_bits}};
}

TwinParams replay_queue_twin_params(const ReplayQueueParams& p) {
  const FieldLayout l = ReplayQueue::layout(p);
  return {{"E", p.entries}, {"WB", field_bits(l, "warp")}, {"PCB", field_bits(l, "pc")}};
}

TwinParams operand_log_twin_params(const OperandLogParams& p) { return {{"N", p.entries()}, {"T", p.max_tbs}}; }

TwinParams running_tb_status_twin_params(const DualKernelParams& p) {
  return {{"T", p.tb_slots}, {"IB", p.instruction_count_bits}, {"CB", p.cycle_bits}};
}

TwinParams allocation_positions_twin_params(const DualKernelParams& p) { return {{"K", p.positions}, {"OB", p.offset_bits}}; }

std::string params_text(const TwinParams& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s;
}

}  // namespace mpgpu
