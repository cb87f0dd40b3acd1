#pragma once
// Physical address -> memory partition (L2 slice + memory controller), L2 set, DRAM bank and row.
// Two kinds: plain interleaving of fixed-size chunks over the partitions, and XOR hashing of
// address bits (the reverse-engineered GTX 1080 equations of SPEC 6).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/divisor.hpp"

namespace mpgpu {

struct AddressMapParams {
  enum class Kind { interleave, xor_hash } kind = Kind::interleave;
  uint32_t partitions = 1;         // L2 slices = memory controllers
  uint32_t interleave_bytes = 256; // chunk mapped to one partition before moving to the next
  uint32_t line_bytes = 128;
  uint32_t l2_sets = 64;           // per slice
  uint32_t banks = 16;             // per partition
  uint32_t row_bytes = 2048;       // DRAM row (page) per bank
  // xor_hash: each output bit is the XOR of the listed physical-address bits.
  std::vector<std::vector<int>> partition_bits;  // log2(partitions) equations
  std::vector<std::vector<int>> set_bits;        // log2(l2_sets) equations (within a slice)
  std::vector<std::vector<int>> bank_bits;       // log2(banks) equations (within a partition)
};

struct DecodedAddress {
  uint32_t partition;
  uint32_t set;
  uint32_t bank;
  uint64_t row;
  uint64_t line;  // address / line size, the tag-array key
};

class AddressMap {
 public:
  AddressMap() = default;
  explicit AddressMap(AddressMapParams p) : p_(std::move(p)) {
    build_xor_tables();
    line_ = Divisor(p_.line_bytes), partitions_ = Divisor(p_.partitions), sets_ = Divisor(p_.l2_sets);
    banks_ = Divisor(p_.banks), interleave_ = Divisor(p_.interleave_bytes), row_bytes_ = Divisor(p_.row_bytes);
    xor_row_ = Divisor(uint64_t{p_.row_bytes} * p_.banks * p_.partitions);
    local_row_ = Divisor(uint64_t{p_.row_bytes} * p_.banks);
  }
  // The crossbar and then the L2 slice decode each request's address in turn: the last answer
  // is kept.
  DecodedAddress decode(uint64_t paddr) const {
    if (paddr != memo_addr_ || !memo_valid_) memo_ = decode_uncached(paddr), memo_addr_ = paddr, memo_valid_ = true;
    return memo_;
  }
  const AddressMapParams& params() const { return p_; }
  static uint32_t xor_bits(uint64_t addr, const std::vector<std::vector<int>>& eqs);

 private:
  // The XOR hash is linear over GF(2): the outputs of an address are the XOR of those of its
  // bytes. xor_bytes_[k][v]: the partition, set and bank bits (fields of kXorField bits from
  // bit 0, 21, 42) of byte k holding v; bytes above the highest bit any equation names are
  // left out. A lookup per byte (5 for the GTX 1080's equations, 2 KB a table) instead of a
  // parity per equation on every request.
  static constexpr int kXorField = 21;  // log2 of 2M partitions, sets or banks
  void build_xor_tables();
  uint64_t xor_outputs(uint64_t a) const {
    uint64_t out = 0;
    for (size_t k = 0; k < xor_bytes_.size(); ++k, a >>= 8) out ^= xor_bytes_[k][a & 255];
    return out;
  }
  DecodedAddress decode_uncached(uint64_t paddr) const;
  AddressMapParams p_;
  Divisor line_, partitions_, sets_, banks_, interleave_, row_bytes_, xor_row_, local_row_;
  std::vector<std::array<uint64_t, 256>> xor_bytes_;
  mutable uint64_t memo_addr_ = 0;
  mutable bool memo_valid_ = false;
  mutable DecodedAddress memo_{};
};

}  // namespace mpgpu
