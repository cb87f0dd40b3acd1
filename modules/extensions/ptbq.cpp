#include "extensions/ptbq.hpp"

namespace mpgpu {

FieldLayout Ptbq::layout(const ExtensionParams& p) {
  return {{"tb", p.tb_id_bits}, {"save_pointer", p.save_pointer_bits}};
}

Ptbq::Ptbq(const ExtensionParams& p)
    : layout_(layout(p)), capacity_(p.num_sms * p.max_tbs_per_sm),
      queues_(p.num_sms, boost::circular_buffer<PtbqEntry>(capacity_)) {}

void Ptbq::push(uint32_t k, const PtbqEntry& e) {
  auto& q = queues_.at(k);
  if (q.full()) throw SimError("PTBQ " + std::to_string(k) + " full");
  checked(e.tb, field_bits(layout_, "tb"), "PTBQ", "tb");
  checked(e.save_pointer, field_bits(layout_, "save_pointer"), "PTBQ", "save_pointer");
  q.push_back(e);
  notify(1, k, &e);
}

std::optional<PtbqEntry> Ptbq::pop(uint32_t k) {
  auto& q = queues_.at(k);
  if (q.empty()) return std::nullopt;
  PtbqEntry e = q.front();
  q.pop_front();
  notify(2, k, nullptr);
  return e;
}

}  // namespace mpgpu
