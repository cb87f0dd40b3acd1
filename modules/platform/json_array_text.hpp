#pragma once
// A JSON array printed item by item exactly as nlohmann's dump(2) prints it as the value of a key
// `depth` levels down (depth 1: a key of the document itself). The long stats lists travel from a
// simulation as such text and stats.json splices it in (RunStats): the launch records and the
// preempted TBs, printed as they are made (a fraction of the memory of the tree it would take to
// hold them). With a spill, the text is handed on whenever about a piece (TextPieces) has built
// up, so the whole list is never held at once.
#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/text_pieces.hpp"

namespace mpgpu {

class JsonArrayText {
 public:
  using Spill = std::function<void(std::string_view)>;
  explicit JsonArrayText(int depth, Spill spill = {})
      : item_pad_(2 * size_t(depth + 1), ' '), close_pad_(2 * size_t(depth), ' '), spill_(std::move(spill)) {}

  void add(const nlohmann::json& item) {
    text_.append(empty() ? "[\n" : ",\n");
    ++items_;
    text_.append(item_pad_);
    // The item's own lines move right by the pad; a raw newline only ever separates lines (one
    // inside a string is printed escaped).
    const std::string lines = item.dump(2);
    size_t from = 0;
    for (size_t nl; (nl = lines.find('\n', from)) != std::string::npos; from = nl + 1) {
      text_.append(std::string_view(lines).substr(from, nl + 1 - from));
      text_.append(item_pad_);
    }
    text_.append(std::string_view(lines).substr(from));
    if (spill_ && text_.size() >= TextPieces::kPieceBytes) flush();
  }
  bool empty() const { return items_ == 0; }
  size_t items() const { return items_; }
  // The rest of the array's text (all of it without a spill), closed; the builder is left empty.
  TextPieces take() {
    close();
    TextPieces out = std::move(text_);
    text_.clear();
    return out;
  }
  // The rest, closed, handed to the spill too; the builder is left empty.
  void finish() {
    close();
    flush();
  }

 private:
  void close() {
    text_.append(empty() ? "[]" : "\n" + close_pad_ + "]");
    items_ = 0;
  }
  void flush() {
    for (const std::string& p : text_.pieces()) spill_(p);
    text_.clear();
  }

  std::string item_pad_, close_pad_;
  Spill spill_;
  TextPieces text_;
  size_t items_ = 0;
};

}  // namespace mpgpu
