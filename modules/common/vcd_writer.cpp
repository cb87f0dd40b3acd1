#include "common/vcd_writer.hpp"

#include <algorithm>
#include <fstream>

#include "common/error.hpp"

namespace mpgpu {

namespace {
// VCD identifiers: printable characters '!'..'~' in base 94.
std::string vcd_id(uint32_t n) {
  std::string s;
  do {
    s += static_cast<char>('!' + n % 94);
    n /= 94;
  } while (n);
  return s;
}

std::string vcd_value(uint64_t v, uint32_t bits) {
  if (bits == 1) return v ? "1" : "0";
  std::string s = "b";
  bool lead = true;
  for (int b = static_cast<int>(bits) - 1; b >= 0; --b) {
    const bool one = v >> b & 1;
    if (one) lead = false;
    if (!lead || b == 0) s += one ? '1' : '0';
  }
  return s + " ";
}
}  // namespace

uint32_t VcdWriter::add_scope(const std::string& scope, const std::vector<std::pair<std::string, uint32_t>>& vars) {
  const uint32_t first = vars_;
  std::vector<Var> vs;
  for (const auto& [name, bits] : vars) vs.push_back({name, bits});
  vars_ += static_cast<uint32_t>(vs.size());
  scopes_.emplace_back(scope, std::move(vs));
  return first;
}

void VcdWriter::write(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw SimError("cannot write the VCD file " + path);
  out << "$timescale 1 ps $end\n";
  std::vector<uint32_t> bits;
  uint32_t id = 0;
  for (const auto& [scope, vars] : scopes_) {
    out << "$scope module " << scope << " $end\n";
    for (const Var& v : vars) {
      out << "$var wire " << v.bits << " " << vcd_id(id++) << " " << v.name << " $end\n";
      bits.push_back(v.bits);
    }
    out << "$upscope $end\n";
  }
  out << "$enddefinitions $end\n";
  std::vector<Sample> s = samples_;
  std::stable_sort(s.begin(), s.end(), [](const Sample& a, const Sample& b) { return a.time < b.time; });
  std::vector<uint64_t> last(vars_, 0);
  std::vector<bool> seen(vars_, false);
  uint64_t now = ~uint64_t{0};
  for (const Sample& x : s) {
    if (seen[x.var] && last[x.var] == x.value) continue;
    if (x.time != now) out << "#" << (now = x.time) << "\n";
    out << vcd_value(x.value, bits[x.var]) << vcd_id(x.var) << "\n";
    seen[x.var] = true;
    last[x.var] = x.value;
  }
}

}  // namespace mpgpu
