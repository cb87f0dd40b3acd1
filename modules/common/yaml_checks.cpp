#include "common/yaml_checks.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

#include "common/error.hpp"

namespace mpgpu {

namespace {

// Follows the event stream: in each open map, every other node is a key. Counts the nodes the
// document stands for once every alias is replaced by a copy of its anchor (what readers and the
// stats.json echo of the configuration would walk), without building them.
class DocumentChecker : public YAML::EventHandler {
 public:
  explicit DocumentChecker(std::string name) : name_(std::move(name)) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { leaf(m, nullptr, a, 1); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t a) override {
    leaf(m, nullptr, 0, a < anchor_nodes_.size() ? anchor_nodes_[a] : 1);
  }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a, const std::string& v) override {
    leaf(m, &v, a, 1);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(m, a, false);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(m, a, true);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    bool map;
    YAML::anchor_t anchor;
    uint64_t nodes_before;  // expanded count when the collection opened
    bool at_key = true;
    std::map<std::string, YAML::Mark> keys;
  };
  static std::string at(const YAML::Mark& m) { return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1); }
  void open(const YAML::Mark& m, YAML::anchor_t a, bool map) {
    key_check(m, nullptr);
    if (frames_.size() >= kMaxYamlDepth)
      throw ConfigError(name_ + ":" + at(m) + ": nesting deeper than " + std::to_string(kMaxYamlDepth) +
                        " levels: a configuration is never this deep");
    frames_.push_back({map, a, nodes_, true, {}});
    count(m, 1);
  }
  void close() {
    const Frame& f = frames_.back();
    remember(f.anchor, nodes_ - f.nodes_before);
    frames_.pop_back();
  }
  void leaf(const YAML::Mark& m, const std::string* scalar, YAML::anchor_t a, uint64_t nodes) {
    key_check(m, scalar);
    count(m, nodes);
    remember(a, nodes);
  }
  void remember(YAML::anchor_t a, uint64_t nodes) {
    if (a == 0) return;
    if (anchor_nodes_.size() <= a) anchor_nodes_.resize(a + 1, 1);
    anchor_nodes_[a] = nodes;
  }
  void count(const YAML::Mark& m, uint64_t nodes) {
    nodes_ += nodes;
    if (nodes_ > kMaxYamlNodes)
      throw ConfigError(name_ + ":" + at(m) + ": the document stands for more than " + std::to_string(kMaxYamlNodes) +
                        " nodes once its aliases are expanded (" + std::to_string(nodes_) +
                        " so far): too large to read or to echo into stats.json");
  }
  // A node starts; `scalar`: its text when it is a plain scalar (a key we can compare).
  void key_check(const YAML::Mark& m, const std::string* scalar) {
    if (frames_.empty() || !frames_.back().map) return;
    Frame& f = frames_.back();
    if (f.at_key && scalar) {
      const auto [it, fresh] = f.keys.emplace(*scalar, m);
      if (!fresh)
        throw ConfigError(name_ + ":" + at(m) + ": duplicate key '" + *scalar + "' (first at " + at(it->second) +
                          "): a key may appear once in a map");
    }
    f.at_key = !f.at_key;
  }
  std::string name_;
  std::vector<Frame> frames_;
  std::vector<uint64_t> anchor_nodes_;  // expanded size of each anchored node, by anchor id
  uint64_t nodes_ = 0;
};

}  // namespace

void check_yaml_document(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentChecker checker(name);
  while (parser.HandleNextDocument(checker)) {
  }
}

bool parse_yaml_int(const std::string& s, long long& value) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  int base = 10;
  if (s.size() > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'o')) {
    base = s[i + 1] == 'x' ? 16 : 8;
    i += 2;
  }
  if (i >= s.size()) return false;
  for (size_t k = i; k < s.size(); ++k) {
    const char c = s[k];
    const bool ok = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) : (c >= '0' && c < '0' + base);
    if (!ok) return false;
  }
  errno = 0;
  const unsigned long long mag = std::strtoull(s.c_str() + i, nullptr, base);
  if (errno == ERANGE) return false;
  const bool neg = s[0] == '-';
  if (mag > (neg ? 9223372036854775808ull : 9223372036854775807ull)) return false;
  value = neg ? static_cast<long long>(0 - mag) : static_cast<long long>(mag);
  return true;
}

}  // namespace mpgpu
