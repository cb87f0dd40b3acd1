#include "extensions/ksrt.hpp"

namespace mpgpu {

FieldLayout Ksrt::layout(const ExtensionParams& p) {
  return {
      {"grid_tbs", p.tb_id_bits},
      {"threads_per_tb", bits_for(p.max_threads_per_tb + 1)},
      {"registers_per_tb", bits_for(p.registers_per_sm + 1)},
      {"shared_mem_per_tb", bits_for(p.shared_mem_per_sm + 1)},
      {"next_tb", p.tb_id_bits},
      {"tbs_done", p.tb_id_bits},
      {"param_pointer", p.pointer_bits},
      {"context", bits_for(p.max_contexts)},
      {"priority", bits_for(p.priority_levels)},
      {"tokens", bits_for(p.num_sms + 1) + 1},  // signed: a kernel may be in debt by N_SM
      {"valid", 1},
  };
}

Ksrt::Ksrt(const ExtensionParams& p)
    : layout_(layout(p)), next_tb_bits_(field_bits(layout_, "next_tb")), tbs_done_bits_(field_bits(layout_, "tbs_done")),
      tokens_bits_(field_bits(layout_, "tokens")), table_(p.num_sms) {}

void Ksrt::check(const KsrtEntry& e) const {
  const char* t = "KSRT";
  checked(e.grid_tbs, field_bits(layout_, "grid_tbs"), t, "grid_tbs");
  checked(e.threads_per_tb, field_bits(layout_, "threads_per_tb"), t, "threads_per_tb");
  checked(e.registers_per_tb, field_bits(layout_, "registers_per_tb"), t, "registers_per_tb");
  checked(e.shared_mem_per_tb, field_bits(layout_, "shared_mem_per_tb"), t, "shared_mem_per_tb");
  checked(e.next_tb, field_bits(layout_, "next_tb"), t, "next_tb");
  checked(e.tbs_done, field_bits(layout_, "tbs_done"), t, "tbs_done");
  checked(e.param_pointer, field_bits(layout_, "param_pointer"), t, "param_pointer");
  checked(e.context, field_bits(layout_, "context"), t, "context");
  checked(e.priority, field_bits(layout_, "priority"), t, "priority");
  checked_signed(e.tokens, field_bits(layout_, "tokens"), t, "tokens");
}

std::optional<uint32_t> Ksrt::allocate(const KsrtEntry& e) {
  check(e);
  for (uint32_t i = 0; i < table_.size(); ++i)
    if (!table_[i].valid) {
      table_[i] = e;
      table_[i].valid = true;
      notify(1, i);
      return i;
    }
  return std::nullopt;
}

void Ksrt::release(uint32_t idx) {
  table_.at(idx) = KsrtEntry{};
  notify(2, idx);
}

uint32_t Ksrt::occupied() const {
  uint32_t n = 0;
  for (const auto& e : table_) n += e.valid;
  return n;
}

std::optional<uint32_t> Ksrt::find_launch(uint32_t launch_id) const {
  for (uint32_t i = 0; i < table_.size(); ++i)
    if (table_[i].valid && table_[i].launch_id == launch_id) return i;
  return std::nullopt;
}

void Ksrt::issue_next(uint32_t idx) {
  KsrtEntry& e = table_.at(idx);
  e.next_tb = checked(e.next_tb + 1, next_tb_bits_, "KSRT", "next_tb");
  notify(3, idx);
}

void Ksrt::tb_done(uint32_t idx) {
  KsrtEntry& e = table_.at(idx);
  e.tbs_done = checked(e.tbs_done + 1, tbs_done_bits_, "KSRT", "tbs_done");
  notify(4, idx);
}

void Ksrt::set_tokens(uint32_t idx, int32_t tokens) {
  table_.at(idx).tokens =
      static_cast<int32_t>(checked_signed(tokens, tokens_bits_, "KSRT", "tokens"));
  notify(5, idx);
}

}  // namespace mpgpu
