#pragma once
// What the DRAM timing cores take (requests) and emit (commands), and an independent checker
// that replays a command log against every timing rule: the tests hold both cores to it.
#include <cstdint>
#include <string>
#include <vector>

#include "dram/dram_timing.hpp"

namespace mpgpu {

struct DramRequest {
  uint64_t arrival = 0;  // cycle the request reaches the command scheduler
  uint32_t bank = 0;
  uint64_t row = 0;
  bool is_write = false;
  uint32_t bytes = 32;
};

enum class DramCommandKind { activate, precharge, read, write };

struct DramCommand {
  uint64_t cycle;
  DramCommandKind kind;
  uint32_t bank;
  uint64_t row;      // row opened (ACT) or accessed (RD/WR); the closed row for PRE
  uint32_t request;  // index of the request it serves
};

// How a request found its bank: open row = hit; no row open = miss; another row open = conflict.
enum class RowOutcome { hit, miss, conflict };

// Replays `commands` (any order; sorted by cycle here) and returns the first violation of:
// one command per cycle; ACT only on a closed bank, tRP after PRE, tRC after the bank's last ACT,
// tRRD after another bank's ACT; RD/WR only to the open row, tRCD after ACT, tCCD after any
// column command, no two bursts on the data bus at once; PRE only on an open bank, tRAS after
// ACT, read/write-to-precharge after the bank's column commands. Empty string = legal.
std::string check_dram_protocol(const DramParams& p, std::vector<DramCommand> commands);

}  // namespace mpgpu
