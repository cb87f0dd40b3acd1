#pragma once
// A long text kept as pieces of at most about 1 MiB. A std::string grown to tens of MB copies
// itself each time it doubles, briefly holding the text twice, and handing it on copies it again;
// pieces grow without either, move whole and are written out one after another.
#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace mpgpu {

class TextPieces {
 public:
  static constexpr size_t kPieceBytes = size_t(1) << 20;

  void append(std::string_view s) {
    size_ += s.size();
    while (!s.empty()) {
      if (pieces_.empty() || pieces_.back().size() >= kPieceBytes) pieces_.emplace_back();
      std::string& last = pieces_.back();
      const size_t n = std::min(s.size(), kPieceBytes - last.size());
      last.append(s.data(), n);
      s.remove_prefix(n);
    }
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::vector<std::string>& pieces() const { return pieces_; }
  // The whole text in one string (tests and short texts).
  std::string str() const {
    std::string out;
    out.reserve(size_);
    for (const std::string& p : pieces_) out += p;
    return out;
  }
  void clear() {
    pieces_.clear();
    size_ = 0;
  }
  friend std::ostream& operator<<(std::ostream& os, const TextPieces& t) {
    for (const std::string& p : t.pieces_) os.write(p.data(), std::streamsize(p.size()));
    return os;
  }

 private:
  std::vector<std::string> pieces_;
  size_t size_ = 0;
};

}  // namespace mpgpu
