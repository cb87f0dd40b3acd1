#include "sm/l1d_cache.hpp"

namespace mpgpu {

L1dCache::L1dCache(const L1dParams& p)
    : p_(p), sets_(p.sets), set_count_(p.sets) {}

L1dCache::Way* L1dCache::find(uint64_t line) {
  if (resident_ == 0) return nullptr;
  for (Way& w : sets_[set_of(line)])
    if (w.line == line) return &w;
  return nullptr;
}

L1dCache::Lookup L1dCache::lookup(uint64_t line, uint64_t at) {
  Way* w = find(line);
  if (!w) {
    ++misses_;
    return {Outcome::miss, at};
  }
  w->last_use = ++stamp_;
  if (w->fill <= at) {
    ++hits_;
    return {Outcome::hit, at};
  }
  ++merged_;  // the line is on its way: the MSHR merges this request
  return {Outcome::merged, w->fill};
}

uint64_t L1dCache::mshr_free_at(uint64_t at) {
  mshr_release_.release_until(at);
  if (mshr_release_.size() < p_.mshrs) return at;
  ++mshr_full_;
  return mshr_release_.earliest();
}

void L1dCache::miss(uint64_t line, uint64_t at, uint64_t fill, bool allocate) {
  mshr_release_.release_until(at);
  mshr_release_.add(fill);
  mshr_busy_ += fill - at;
  if (track_) outstanding_.add(at, fill);
  if (!allocate) return;
  // Victim: an invalid way, else the LRU way whose fill is done; a set full of pending fills
  // cannot take the line (it is fetched without allocating).
  std::vector<Way>& set = sets_[set_of(line)];
  Way* victim = nullptr;
  for (Way& c : set) {
    if (c.line == ~uint64_t{0}) {
      victim = &c;
      break;
    }
    if (c.fill <= at && (!victim || c.last_use < victim->last_use)) victim = &c;
  }
  if ((!victim || victim->line != ~uint64_t{0}) && set.size() < p_.ways) victim = &set.emplace_back();  // a way never used
  if (!victim) return;
  resident_ += victim->line == ~uint64_t{0};
  *victim = {line, fill, ++stamp_};
}

void L1dCache::store(uint64_t line) {
  if (p_.write_policy == L1dParams::WritePolicy::write_through) return;
  if (Way* w = find(line)) *w = Way{}, --resident_;
}

}  // namespace mpgpu
