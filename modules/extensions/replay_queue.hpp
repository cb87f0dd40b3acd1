#pragma once
// Replay queue (SPEC 3): global memory instructions enter at issue and leave at commit; on a fault
// the warp's fetched-but-not-issued instructions join them. Part of the context; replayed first,
// in program order, on restore. Holds no data: an entry names the warp and the instruction.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "extensions/field.hpp"

namespace mpgpu {

struct ReplayQueueParams {
  uint32_t entries = 128;   // per SM
  uint32_t max_warps = 64;  // per SM
  uint32_t pc_bits = 32;
};

// An entry leaves at commit. A timed model that knows the commit cycle at issue files it with the
// entry (`leave`) and retires entries as time passes; kUntilCommit waits for commit().
constexpr uint64_t kUntilCommit = ~uint64_t{0};

struct ReplayEntry {
  uint32_t warp = 0;
  uint64_t pc = 0;
  uint64_t seq = 0;  // model-side program order within the warp (the PC order in hardware)
  uint64_t leave = kUntilCommit;
  uint32_t slot = 0;  // the entry's place in the table (the lowest free one at issue): commit's handle
};

class ReplayQueue {
 public:
  explicit ReplayQueue(const ReplayQueueParams& p)
      : p_(p), layout_(layout(p)), warp_bits_(field_bits(layout_, "warp")), pc_bits_(field_bits(layout_, "pc")) {}
  static FieldLayout layout(const ReplayQueueParams& p) {
    return {{"warp", bits_for(p.max_warps)}, {"pc", p.pc_bits}, {"valid", 1}};
  }
  bool full() const { return q_.size() >= p_.entries; }
  size_t size() const { return q_.size(); }
  bool issue(const ReplayEntry& e);                 // false when full: issue stalls
  uint32_t last_slot() const { return last_slot_; }  // the slot the last issue took
  bool commit(uint32_t warp, uint64_t seq);         // leaves the queue; false if not present
  bool commit_slot(uint32_t slot);                  // the same by slot (the hardware's handle)
  void check_warp(uint32_t warp) const;             // throws SimError when wider than its field
  // The instructions of one warp to replay, in program order (restore or fault replay).
  std::vector<ReplayEntry> replay_order(uint32_t warp) const;
  // Timed use: entries whose commit cycle has passed leave; a replayed instruction learns its
  // commit cycle only when it is replayed.
  void retire(uint64_t now);
  bool set_leave(uint32_t warp, uint64_t seq, uint64_t leave);
  uint64_t next_leave() const;  // the earliest commit among the entries (kUntilCommit: none known)
  // A context switch takes the warp's entries with its context (program order); they leave the SM.
  std::vector<ReplayEntry> take_warp(uint32_t warp);

  // Every update, for a link to the table's pins (table_link.hpp): issue and commit of entry e
  // (retire() commits one by one), take of e.warp's `taken` entries.
  enum Op : unsigned { kIssue = 0, kCommit = 1, kTake = 2 };
  using Observer = std::function<void(unsigned op, const ReplayEntry& e, uint32_t taken)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  void leave(const ReplayEntry& e);  // frees its slot, tells the observer
  ReplayQueueParams p_;
  FieldLayout layout_;
  uint32_t warp_bits_, pc_bits_;  // looked up once: checked at every issue
  std::deque<ReplayEntry> q_;
  std::vector<uint64_t> busy_;  // slot occupancy bitmap
  uint32_t last_slot_ = 0;
  Observer observer_;
  uint64_t earliest_ = kUntilCommit;  // no entry leaves before: retire() is free until then
};

// Operand log (SPEC 3): source operands of in-flight global memory instructions, so sources can
// be released at operand read. A load takes one entry (its addresses), a store two (data and
// addresses); an entry holds one 8 B value per thread of a warp. The log is split evenly among
// the resident TBs and is part of the context.
struct OperandLogParams {
  uint32_t bytes = 8192;     // per SM
  uint32_t max_tbs = 16;     // TB slots per SM: the TBs it is split among
  uint32_t warp_size = 32;
  uint32_t value_bytes = 8;  // one address or data value per thread
  uint32_t max_warps = 64;
  uint32_t entry_bytes() const { return warp_size * value_bytes; }
  uint32_t entries() const { return bytes / entry_bytes(); }
  // Each TB's entries when the log is split evenly among `resident_tbs` TBs.
  uint32_t share(uint32_t resident_tbs) const { return resident_tbs ? entries() / resident_tbs : 0; }
};

class OperandLog {
 public:
  explicit OperandLog(const OperandLogParams& p) : p_(p) {}
  const OperandLogParams& params() const { return p_; }
  static FieldLayout layout(const OperandLogParams& p) {
    return {{"values", p.warp_size * p.value_bytes * 8}, {"warp", bits_for(p.max_warps)}, {"valid", 1}};
  }
  // Repartition among `resident_tbs` TBs (on TB arrival or departure, when the log is empty for
  // the TBs concerned): each gets entries / resident_tbs.
  void partition(uint32_t resident_tbs);
  uint32_t share() const { return share_; }
  // Entries for one instruction of TB `tb_slot`: 1 for a load, 2 for a store. False: the
  // instruction waits (its TB's share is used up).
  bool allocate(uint32_t tb_slot, bool store);
  void release(uint32_t tb_slot, bool store);  // after its last TLB check
  uint32_t used(uint32_t tb_slot) const { return tb_slot < used_.size() ? used_[tb_slot] : 0; }

  // Timed use: the entries of one instruction (warp, seq) are held until `release` (its last TLB
  // check, known at issue; kUntilCommit for a faulted one until its replay sets it).
  bool hold(uint32_t tb_slot, bool store, uint32_t warp, uint64_t seq, uint64_t release);
  void retire(uint64_t now);
  bool set_release(uint32_t warp, uint64_t seq, uint64_t release);
  uint64_t next_release(uint32_t tb_slot) const;  // kUntilCommit: none known
  // A TB leaves the SM (finished or switched out): its entries go with it; returns how many.
  uint32_t take_tb(uint32_t tb_slot);

  // Every update, for a link to the log's pins (table_link.hpp): partition among `arg` TBs,
  // allocate / release of `n` entries of TB `arg` (retire() releases hold by hold), take of TB
  // `arg`, which held `n`.
  enum Op : unsigned { kPartition = 0, kAllocate = 1, kRelease = 2, kTake = 3 };
  using Observer = std::function<void(unsigned op, uint32_t arg, uint32_t n)>;
  void set_observer(Observer o) { observer_ = std::move(o); }

 private:
  struct Hold {
    uint32_t tb, warp, entries;
    uint64_t seq, release;
  };
  OperandLogParams p_;
  uint32_t share_ = 0;
  std::vector<uint32_t> used_;
  std::vector<Hold> holds_;
  uint64_t earliest_ = kUntilCommit;  // no hold is released before
  std::vector<uint64_t> tb_earliest_;  // the same per TB slot (next_release without a scan)
  Observer observer_;
};

}  // namespace mpgpu
