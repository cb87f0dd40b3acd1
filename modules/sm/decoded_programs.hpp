#pragma once
// Warp programs decoded for the issue stage (sm/warp_cursor.hpp), once per GPU: every SM's warps
// read the same table, so one copy stays in the host's caches instead of one per SM.
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "sm/run_ahead.hpp"
#include "sm/warp_cursor.hpp"

namespace mpgpu {

class DecodedPrograms {
 public:
  // `p` decoded with `instruction_bytes` per instruction; the table lives as long as this object
  // (the kernels it decodes outlive the run).
  const Decoded* get(const WarpProgram& p, uint32_t instruction_bytes) {
    auto [it, fresh] = tables_.try_emplace({&p, instruction_bytes});
    if (fresh) it->second = decode_program(p, instruction_bytes);
    return it->second.data();
  }
  // `p`'s loops as run-ahead reads them (sm/run_ahead.hpp), built once.
  const LoopSpans* spans(const WarpProgram& p) {
    auto [it, fresh] = spans_.try_emplace(&p, nullptr);
    if (fresh) it->second = std::make_unique<LoopSpans>(p);
    return it->second.get();
  }

 private:
  std::map<std::pair<const WarpProgram*, uint32_t>, std::vector<Decoded>> tables_;
  std::map<const WarpProgram*, std::unique_ptr<LoopSpans>> spans_;
};

}  // namespace mpgpu
