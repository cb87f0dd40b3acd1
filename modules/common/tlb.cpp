#include "common/tlb.hpp"

namespace mpgpu {

Tlb::Tlb(const TlbParams& p) : p_(p), sets_(p.sets() ? p.sets() : 1), set_count_(sets_), entries_(size_t(sets_) * p.ways) {}

Tlb::Lookup Tlb::lookup(uint32_t context, uint64_t vpn, uint64_t at) {
  ++stats_.accesses;
  const uint64_t key = key_of(context, vpn);
  Entry* set = set_of(key);
  for (uint32_t w = 0; w < p_.ways; ++w) {
    Entry& e = set[w];
    if (e.key != key) continue;
    e.last_use = ++stamp_;
    if (e.ready <= at) {
      ++stats_.hits;
      return {Outcome::hit, at + p_.latency, e.frame};
    }
    ++stats_.merged;  // being translated: the MSHR merges this request
    return {Outcome::merged, e.ready, e.frame};
  }
  ++stats_.misses;
  return {Outcome::miss, at + p_.latency, 0};
}

uint64_t Tlb::mshr_free_at(uint64_t at) {
  mshr_release_.release_until(at);
  if (mshr_release_.size() < p_.mshrs) return at;
  ++stats_.mshr_full_waits;
  return mshr_release_.earliest();
}

void Tlb::fill(uint32_t context, uint64_t vpn, uint64_t frame, uint64_t at, uint64_t ready) {
  mshr_release_.release_until(at);
  mshr_release_.add(ready);
  const uint64_t key = key_of(context, vpn);
  // Victim: the entry itself (refilled), an invalid one, else the LRU entry whose translation is
  // done; a set full of pending translations cannot take it.
  Entry* set = set_of(key);
  Entry* victim = nullptr;
  for (uint32_t w = 0; w < p_.ways; ++w) {
    Entry& e = set[w];
    if (e.key == key || e.key == ~uint64_t{0}) {
      victim = &e;
      break;
    }
    if (e.ready <= at && (!victim || e.last_use < victim->last_use)) victim = &e;
  }
  if (victim) *victim = {key, frame, ready, ++stamp_};
}

}  // namespace mpgpu
