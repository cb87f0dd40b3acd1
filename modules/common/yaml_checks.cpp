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

// Follows the event stream: in each open map, every other node is a key.
class DuplicateKeyFinder : public YAML::EventHandler {
 public:
  explicit DuplicateKeyFinder(std::string name) : name_(std::move(name)) {}
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m, nullptr); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string& v) override { node(m, &v); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m, nullptr);
    frames_.push_back({false});
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m, nullptr);
    frames_.push_back({true});
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool map;
    bool at_key = true;
    std::map<std::string, YAML::Mark> keys;
  };
  static std::string at(const YAML::Mark& m) { return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1); }
  // A node starts; `scalar`: its text when it is a plain scalar (a key we can compare).
  void node(const YAML::Mark& m, const std::string* scalar) {
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
};

}  // namespace

void check_duplicate_keys(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DuplicateKeyFinder finder(name);
  while (parser.HandleNextDocument(finder)) {
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
