#include "common/address_map.hpp"

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

DecodedAddress AddressMap::decode_uncached(uint64_t a) const {
  DecodedAddress d{};
  d.line = line_.div(a);
  if (p_.kind == AddressMapParams::Kind::xor_hash) {
    d.partition = uint32_t(partitions_.mod(parity_bits(a, partition_masks_)));
    d.set = uint32_t(sets_.mod(parity_bits(a, set_masks_)));
    d.bank = uint32_t(banks_.mod(parity_bits(a, bank_masks_)));
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
