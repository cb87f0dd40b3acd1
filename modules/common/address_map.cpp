#include "common/address_map.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mpgpu {

uint32_t AddressMap::xor_bits(uint64_t addr, const std::vector<std::vector<int>>& eqs) {
  uint32_t out = 0;
  for (size_t i = 0; i < eqs.size(); ++i) {
    uint32_t bit = 0;
    for (int b : eqs[i]) bit ^= static_cast<uint32_t>((addr >> b) & 1u);
    out |= bit << i;
  }
  return out;
}

void AddressMap::build_xor_tables() {
  if (p_.kind != AddressMapParams::Kind::xor_hash) return;
  const std::vector<std::vector<int>>* fields[] = {&p_.partition_bits, &p_.set_bits, &p_.bank_bits};
  // flips[b]: the output bits address bit b flips (a bit listed twice in one equation cancels,
  // as in the XOR); a byte's entry XORs those of its set bits.
  std::array<uint64_t, 64> flips{};
  int top = -1;
  for (int f = 0; f < 3; ++f) {
    if (fields[f]->size() > size_t(kXorField))
      throw std::invalid_argument("address map: more than " + std::to_string(kXorField) + " XOR equations for one field");
    for (size_t i = 0; i < fields[f]->size(); ++i)
      for (int b : (*fields[f])[i]) {
        flips[size_t(b)] ^= uint64_t{1} << (f * kXorField + int(i));
        top = std::max(top, b);
      }
  }
  xor_bytes_.assign(size_t(top / 8 + 1), {});
  for (size_t k = 0; k < xor_bytes_.size(); ++k)
    for (uint32_t v = 0; v < 256; ++v)
      for (size_t j = 0; j < 8; ++j)
        if (v >> j & 1) xor_bytes_[k][v] ^= flips[8 * k + j];
}

DecodedAddress AddressMap::decode_uncached(uint64_t a) const {
  DecodedAddress d{};
  d.line = line_.div(a);
  if (p_.kind == AddressMapParams::Kind::xor_hash) {
    const uint64_t x = xor_outputs(a), field = (uint64_t{1} << kXorField) - 1;
    d.partition = uint32_t(partitions_.mod(x & field));
    d.set = uint32_t(sets_.mod(x >> kXorField & field));
    d.bank = uint32_t(banks_.mod(x >> 2 * kXorField & field));
    d.row = xor_row_.div(a);
    return d;
  }
  const uint64_t chunk = interleave_.div(a);
  d.partition = static_cast<uint32_t>(partitions_.mod(chunk));
  // Address within the partition: the partition's chunks packed together.
  const uint64_t local = partitions_.div(chunk) * p_.interleave_bytes + interleave_.mod(a);
  d.set = static_cast<uint32_t>(sets_.mod(line_.div(local)));
  d.bank = static_cast<uint32_t>(banks_.mod(row_bytes_.div(local)));
  d.row = local_row_.div(local);
  return d;
}

}  // namespace mpgpu
