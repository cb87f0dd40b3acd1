#include "dram/dram_commands.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace mpgpu {

namespace {
const char* name(DramCommandKind k) {
  switch (k) {
    case DramCommandKind::activate: return "ACT";
    case DramCommandKind::precharge: return "PRE";
    case DramCommandKind::read: return "RD";
    case DramCommandKind::write: return "WR";
  }
  return "?";
}

struct BankReplay {
  bool open = false;
  uint64_t row = 0;
  std::optional<uint64_t> act, pre, pre_ready;  // pre_ready: from the column commands
};
}  // namespace

std::string check_dram_protocol(const DramParams& p, std::vector<DramCommand> cmds) {
  std::stable_sort(cmds.begin(), cmds.end(), [](const auto& a, const auto& b) { return a.cycle < b.cycle; });
  const DramTiming& t = p.timing;
  const uint64_t burst = p.burst_cycles();
  std::vector<BankReplay> banks(p.banks);
  std::optional<uint64_t> last_column;
  std::vector<std::pair<uint64_t, uint64_t>> data;  // bursts on the data bus [start, end)
  auto fail = [](const DramCommand& c, const std::string& why) {
    return std::string(name(c.kind)) + " bank " + std::to_string(c.bank) + " at cycle " + std::to_string(c.cycle) +
           " (request " + std::to_string(c.request) + "): " + why;
  };
  for (size_t i = 0; i < cmds.size(); ++i) {
    const DramCommand& c = cmds[i];
    if (i > 0 && cmds[i - 1].cycle == c.cycle) return fail(c, "second command in the same cycle");
    if (c.bank >= banks.size()) return fail(c, "no such bank");
    BankReplay& b = banks[c.bank];
    switch (c.kind) {
      case DramCommandKind::activate:
        if (b.open) return fail(c, "bank already open");
        if (b.pre && c.cycle < *b.pre + t.RP) return fail(c, "tRP");
        if (b.act && c.cycle < *b.act + t.RC) return fail(c, "tRC");
        for (size_t o = 0; o < banks.size(); ++o)
          if (o != c.bank && banks[o].act && c.cycle < *banks[o].act + t.RRD) return fail(c, "tRRD");
        b.open = true;
        b.row = c.row;
        b.act = c.cycle;
        b.pre_ready = c.cycle + t.RAS;
        break;
      case DramCommandKind::precharge:
        if (!b.open) return fail(c, "bank not open");
        if (c.cycle < *b.pre_ready) return fail(c, "tRAS or read/write-to-precharge");
        b.open = false;
        b.pre = c.cycle;
        break;
      case DramCommandKind::read:
      case DramCommandKind::write: {
        const bool wr = c.kind == DramCommandKind::write;
        if (!b.open || b.row != c.row) return fail(c, "row not open");
        if (c.cycle < *b.act + t.RCD) return fail(c, "tRCD");
        if (last_column && c.cycle < *last_column + t.CCD) return fail(c, "tCCD");
        last_column = c.cycle;
        b.pre_ready = std::max(*b.pre_ready, c.cycle + (wr ? p.write_to_precharge() : p.read_to_precharge()));
        const uint64_t start = c.cycle + (wr ? t.WL : t.CL);
        data.emplace_back(start, start + burst);
        break;
      }
    }
  }
  std::sort(data.begin(), data.end());
  for (size_t i = 1; i < data.size(); ++i)
    if (data[i].first < data[i - 1].second)
      return "data bus: burst at cycle " + std::to_string(data[i].first) + " overlaps the one ending at " +
             std::to_string(data[i - 1].second);
  return "";
}

}  // namespace mpgpu
