#include "extensions/active_queue.hpp"

#include <algorithm>

#include "extensions/ksrt.hpp"

namespace mpgpu {

void ActiveQueue::push(uint32_t k) {
  if (full()) throw SimError("active queue full");
  order_.push_back(static_cast<uint32_t>(checked(k, idx_bits_, "active_queue", "ksrt_index")));
  ++changes_;
  if (observer_) observer_(1, k);
}

void ActiveQueue::remove(uint32_t k) {
  auto it = std::find(order_.begin(), order_.end(), k);
  if (it == order_.end()) throw SimError("active queue: KSRT index " + std::to_string(k) + " not active");
  order_.erase(it);
  ++changes_;
  if (observer_) observer_(2, k);
}

FieldLayout CommandBuffers::layout(const ExtensionParams& p) {
  // A launch command carries what the KSR is set up from, plus a valid bit.
  FieldLayout l;
  for (const auto& f : Ksrt::layout(p))
    if (f.name == "grid_tbs" || f.name == "threads_per_tb" || f.name == "registers_per_tb" ||
        f.name == "shared_mem_per_tb" || f.name == "param_pointer" || f.name == "priority")
      l.push_back(f);
  l.push_back({"valid", 1});
  return l;
}

void CommandBuffers::put(uint32_t context, uint32_t launch_id) {
  if (occupied(context)) throw SimError("command buffer of context " + std::to_string(context) + " occupied");
  slots_.at(context) = launch_id;
  if (observer_) observer_(1, context, launch_id);
}

uint32_t CommandBuffers::take(uint32_t context) {
  const uint32_t l = slots_.at(context);
  if (l == kEmpty) throw SimError("command buffer of context " + std::to_string(context) + " empty");
  slots_.at(context) = kEmpty;
  if (observer_) observer_(2, context, l);
  return l;
}

}  // namespace mpgpu
