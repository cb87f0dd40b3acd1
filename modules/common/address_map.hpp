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
  explicit AddressMap(AddressMapParams p) : p_(std::move(p)) {}
  DecodedAddress decode(uint64_t paddr) const;
  const AddressMapParams& params() const { return p_; }
  static uint32_t xor_bits(uint64_t addr, const std::vector<std::vector<int>>& eqs);

 private:
  AddressMapParams p_;
};

}  // namespace mpgpu
