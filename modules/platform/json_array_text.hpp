#pragma once
// A JSON array printed item by item exactly as nlohmann's dump(2) prints it as the value of a key
// `depth` levels down (depth 1: a key of the document itself). The long stats lists travel from a
// simulation as such text and stats.json splices it in (RunStats): the launch records, printed
// from their tree, and the preempted TBs, printed as they are made (a fraction of the memory of
// the tree it would take to hold them).
#include <string>

#include <nlohmann/json.hpp>

namespace mpgpu {

class JsonArrayText {
 public:
  explicit JsonArrayText(int depth) : item_pad_(2 * size_t(depth + 1), ' '), close_pad_(2 * size_t(depth), ' ') {}

  void add(const nlohmann::json& item) {
    text_ += empty() ? "[\n" : ",\n";
    ++items_;
    text_ += item_pad_;
    // The item's own lines move right by the pad; a raw newline only ever separates lines (one
    // inside a string is printed escaped).
    const std::string lines = item.dump(2);
    size_t from = 0;
    for (size_t nl; (nl = lines.find('\n', from)) != std::string::npos; from = nl + 1) {
      text_.append(lines, from, nl + 1 - from);
      text_ += item_pad_;
    }
    text_.append(lines, from, std::string::npos);
  }
  bool empty() const { return items_ == 0; }
  size_t items() const { return items_; }
  // The whole array's text; the builder is left empty.
  std::string take() {
    std::string out = empty() ? "[]" : std::move(text_) + "\n" + close_pad_ + "]";
    text_.clear();
    items_ = 0;
    return out;
  }

 private:
  std::string item_pad_, close_pad_;
  std::string text_;
  size_t items_ = 0;
};

}  // namespace mpgpu
