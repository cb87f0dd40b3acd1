#pragma once
// Cycle-by-cycle DRAM command scheduler of one channel: the exact reference the loosely-timed
// DramChannel is checked against, and what a batch of requests known in advance would see.
//
// Requests enter a queue of `queue_capacity` entries in arrival order (a full queue holds the
// rest back) and leave it when their last column command issues. Each cycle at most one command
// (ACT, PRE, RD, WR) issues, obeying the same timings as DramChannel (dram_commands.hpp lists
// them; a burst may use any free stretch of the data bus, as in DramChannel). Choice, in age
// (arrival) order:
//   fr_fcfs: the oldest request whose column command is ready on an open row (first-ready);
//            else the oldest request whose ACT or PRE is ready. A bank is not precharged while
//            a queued request still hits its open row, so a hit waiting for tCCD or the data
//            bus is not robbed of its row. No starvation cap.
//   fcfs:    only the oldest request of each bank may issue; among banks, the oldest ready.
// Open-page policy: a row stays open until a request for another row needs the bank.
#include <cstdint>
#include <vector>

#include "dram/dram_commands.hpp"
#include "dram/dram_timing.hpp"

namespace mpgpu {

enum class DramSchedulePolicy { fr_fcfs, fcfs };

class FrFcfsScheduler {
 public:
  FrFcfsScheduler(const DramParams& p, uint32_t queue_capacity,
                  DramSchedulePolicy policy = DramSchedulePolicy::fr_fcfs);

  // Completion cycle (after the last data beat) of each request, in the order given.
  std::vector<uint64_t> run(const std::vector<DramRequest>& requests);

  // Of the last run: the commands issued, and how each request found its bank when it was
  // served (hit: no ACT of its own; miss: first ACT of a never-opened bank; else conflict).
  const std::vector<DramCommand>& commands() const { return commands_; }
  const std::vector<RowOutcome>& outcomes() const { return outcomes_; }
  uint64_t row_hits() const { return count(RowOutcome::hit); }
  uint64_t row_misses() const { return count(RowOutcome::miss); }
  uint64_t row_conflicts() const { return count(RowOutcome::conflict); }

 private:
  uint64_t count(RowOutcome o) const;

  DramParams p_;
  uint32_t capacity_;
  DramSchedulePolicy policy_;
  std::vector<DramCommand> commands_;
  std::vector<RowOutcome> outcomes_;
};

}  // namespace mpgpu
