#pragma once
// Physical address -> memory partition (L2 slice + memory controller), L2 set, DRAM bank and row.
// Two kinds: plain interleaving of fixed-size chunks over the partitions, and XOR hashing of
// address bits (the reverse-engineered GTX 1080 equations of SPEC 6).
#include <cstddef>
#include <cstdint>
#include <vector>

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
    partition_masks_ = masks(p_.partition_bits);
    set_masks_ = masks(p_.set_bits);
    bank_masks_ = masks(p_.bank_bits);
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
  // Each XOR equation as a mask of address bits: its output is the parity of addr & mask.
  static std::vector<uint64_t> masks(const std::vector<std::vector<int>>& eqs) {
    std::vector<uint64_t> m;
    for (const auto& eq : eqs) {
      uint64_t x = 0;
      for (int b : eq) x ^= uint64_t{1} << b;  // a bit listed twice cancels, as in the XOR
      m.push_back(x);
    }
    return m;
  }
  static uint32_t parity_bits(uint64_t addr, const std::vector<uint64_t>& masks) {
    uint32_t out = 0;
    for (size_t i = 0; i < masks.size(); ++i) out |= uint32_t(__builtin_parityll(addr & masks[i])) << i;
    return out;
  }
  DecodedAddress decode_uncached(uint64_t paddr) const;
  AddressMapParams p_;
  std::vector<uint64_t> partition_masks_, set_masks_, bank_masks_;
  mutable uint64_t memo_addr_ = 0;
  mutable bool memo_valid_ = false;
  mutable DecodedAddress memo_{};
};

}  // namespace mpgpu
