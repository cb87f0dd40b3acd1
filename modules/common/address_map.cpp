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
  d.line = a / p_.line_bytes;
  if (p_.kind == AddressMapParams::Kind::xor_hash) {
    d.partition = parity_bits(a, partition_masks_) % p_.partitions;
    d.set = parity_bits(a, set_masks_) % p_.l2_sets;
    d.bank = parity_bits(a, bank_masks_) % p_.banks;
    d.row = a / (static_cast<uint64_t>(p_.row_bytes) * p_.banks * p_.partitions);
    return d;
  }
  const uint64_t chunk = a / p_.interleave_bytes;
  d.partition = static_cast<uint32_t>(chunk % p_.partitions);
  // Address within the partition: the partition's chunks packed together.
  const uint64_t local = (chunk / p_.partitions) * p_.interleave_bytes + a % p_.interleave_bytes;
  d.set = static_cast<uint32_t>((local / p_.line_bytes) % p_.l2_sets);
  d.bank = static_cast<uint32_t>((local / p_.row_bytes) % p_.banks);
  d.row = local / (static_cast<uint64_t>(p_.row_bytes) * p_.banks);
  return d;
}

}  // namespace mpgpu
