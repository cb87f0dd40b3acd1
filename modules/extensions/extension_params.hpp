#pragma once
// Platform parameters the scheduling-framework tables are sized from (SPEC 2).
#include <cstdint>

namespace mpgpu {

struct ExtensionParams {
  uint32_t num_sms = 13;
  uint32_t max_tbs_per_sm = 16;      // T_max
  uint32_t max_contexts = 8;         // command buffers: one per context
  uint32_t registers_per_sm = 65536;
  uint32_t shared_mem_per_sm = 49152;  // bytes, largest carve-out
  uint32_t max_threads_per_tb = 1024;
  uint32_t tb_id_bits = 32;          // TB index within a grid
  uint32_t pointer_bits = 49;        // virtual address of kernel parameters
  uint32_t save_pointer_bits = 32;   // offset into the kernel's context-save area
  uint32_t priority_levels = 16;
};

}  // namespace mpgpu
