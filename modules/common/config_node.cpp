#include "common/config_node.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/config_schema.hpp"
#include "common/error.hpp"
#include "common/input_file.hpp"
#include "common/yaml_checks.hpp"

namespace mpgpu {

namespace {
std::string join(const std::string& base, const std::string& key) {
  return base.empty() ? key : base + "." + key;
}
std::string quoted(const YAML::Node& n) {
  if (n.IsScalar()) return "\"" + n.Scalar() + "\"";
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  return "nothing";
}
std::string list(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
}  // namespace

std::shared_ptr<ConfigDoc> ConfigDoc::load(const std::string& file) {
  check_input_file(file);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file + ": cannot open file");
  // Read in chunks up to one past the bound, so that a pipe that never ends cannot hold the reader.
  constexpr size_t kMaxBytes = size_t{16} << 20;
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxBytes && in.read(chunk, sizeof chunk).gcount() > 0)
    text.append(chunk, static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxBytes) throw ConfigError(file + ": cannot open file (larger than 16 MiB: a configuration is never this large)");
  return parse(text, file);
}

std::shared_ptr<ConfigDoc> ConfigDoc::parse(const std::string& text, const std::string& name) {
  auto doc = std::make_shared<ConfigDoc>();
  doc->file = name;
  try {
    check_yaml_document(text, name);  // first: bounds the tree Load builds
    doc->root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  }
  if (!doc->root.IsMap()) throw ConfigError(name + ":1:1: expected a YAML map at top level");
  return doc;
}

void ConfigDoc::override_key(const std::string& path, const std::string& value, const std::string& shown_path) {
  const std::string origin = "--set " + (shown_path.empty() ? path : shown_path) + "=" + value;
  YAML::Node v;
  try {
    v = YAML::Load(value);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(origin + ": value is not valid YAML: " + e.msg);
  }
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) {
    if (p.empty()) throw ConfigError(origin + ": empty component in key path");
    parts.push_back(p);
  }
  // yaml-cpp nodes are handles: walking with copies still edits the tree in place.
  YAML::Node cur = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node next = cur[parts[i]];
    if (next.IsDefined() && !next.IsMap())
      throw ConfigError(origin + ": '" + parts[i] + "' is not a map in " + file);
    if (!next.IsDefined()) cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
    cur.reset(cur[parts[i]]);
  }
  cur[parts.back()] = v;
  overrides[path] = origin;
}

ConfigNode::ConfigNode(std::shared_ptr<ConfigDoc> doc, YAML::Node node, std::string path)
    : doc_(std::move(doc)), node_(std::move(node)), path_(std::move(path)) {}

// What `mpgpu schema` learns from the readers. Callers that would build strings for it check
// ConfigSchema::active first: ordinary runs record nothing and format nothing.
void ConfigNode::schema(const std::string& type, const std::string& def, const std::string& range) const {
  if (ConfigSchema::active && !pattern_.empty()) ConfigSchema::active->record(pattern_, type, def, range);
}
void ConfigNode::schema_key(const std::string& key, const std::string& type, const std::string& def,
                            const std::string& range) const {
  if (ConfigSchema::active) ConfigSchema::active->record(join(pattern_, key), type, def, range);
}

ConfigNode ConfigNode::root(const std::shared_ptr<ConfigDoc>& doc) {
  return ConfigNode(doc, doc->root, "");
}

std::string ConfigNode::where() const {
  for (std::string p = path_;;) {
    auto it = doc_->overrides.find(p);
    if (it != doc_->overrides.end()) return it->second;
    auto dot = p.find_last_of('.');
    if (p.empty() || dot == std::string::npos) break;
    p = p.substr(0, dot);
  }
  const YAML::Mark m = node_.Mark();
  if (m.line < 0) return doc_->file;
  return doc_->file + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

void ConfigNode::fail(const std::string& what) const {
  throw ConfigError(where() + ": " + (path_.empty() ? "(top level)" : path_) + ": " + what);
}

void ConfigNode::warn(const std::string& what) const {
  doc_->warnings.push_back(where() + ": " + (path_.empty() ? "(top level)" : path_) + ": " + what);
}

void ConfigNode::expect_map() const {
  schema("map");
  if (!node_.IsMap()) fail("expected a map, got " + quoted(node_));
}
void ConfigNode::expect_sequence() const {
  schema("list");
  if (!node_.IsSequence()) fail("expected a list, got " + quoted(node_));
}

bool ConfigNode::has(const std::string& key) const {
  return node_.IsMap() && node_[key].IsDefined() && !node_[key].IsNull();
}

ConfigNode ConfigNode::child(const std::string& key, YAML::Node n) const {
  doc_->used[path_].insert(key);
  ConfigNode c(doc_, std::move(n), join(path_, key));
  c.pattern_ = join(pattern_, key);
  return c;
}

ConfigNode ConfigNode::req(const std::string& key) const {
  expect_map();
  if (ConfigSchema::active) ConfigSchema::active->presence(join(pattern_, key), true);
  if (!has(key)) fail("missing required key '" + key + "'");
  return child(key, node_[key]);
}

std::optional<ConfigNode> ConfigNode::opt(const std::string& key) const {
  expect_map();
  if (ConfigSchema::active) ConfigSchema::active->presence(join(pattern_, key), false);
  if (!has(key)) {
    doc_->used[path_].insert(key);
    return std::nullopt;
  }
  return child(key, node_[key]);
}

int64_t ConfigNode::as_int(int64_t lo, int64_t hi) const {
  if (ConfigSchema::active) schema("integer", "", ConfigSchema::int_range(lo, hi));
  const std::string range = " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!node_.IsScalar()) fail("expected an integer" + range + ", got " + quoted(node_));
  const std::string& s = node_.Scalar();
  long long v = 0;
  if (!parse_yaml_int(s, v)) fail("expected an integer" + range + ", got " + quoted(node_));
  if (v < lo || v > hi) fail("value " + s + " out of range: expected an integer" + range);
  return v;
}

double ConfigNode::as_num(double lo, double hi) const {
  if (ConfigSchema::active) schema("number", "", ConfigSchema::num_range(lo, hi));
  std::ostringstream range;
  range << " in [" << lo << ", " << hi << "]";
  if (!node_.IsScalar()) fail("expected a number" + range.str() + ", got " + quoted(node_));
  const std::string& s = node_.Scalar();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v))
    fail("expected a number" + range.str() + ", got " + quoted(node_));
  if (v < lo || v > hi) fail("value " + s + " out of range: expected a number" + range.str());
  return v;
}

bool ConfigNode::as_bool() const {
  schema("bool");
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  fail("expected true or false, got " + quoted(node_));
}

std::string ConfigNode::as_str() const {
  schema("string");
  if (!node_.IsScalar()) fail("expected a string, got " + quoted(node_));
  return node_.Scalar();
}

std::string ConfigNode::as_enum(const std::vector<std::string>& allowed) const {
  if (ConfigSchema::active) schema("one of " + list(allowed));
  if (!node_.IsScalar()) fail("expected a string, got " + quoted(node_));
  std::string s = node_.Scalar();
  for (const auto& a : allowed)
    if (a == s) return s;
  fail("unknown value " + quoted(node_) + ": expected one of " + list(allowed));
}

int64_t ConfigNode::req_int(const std::string& key, int64_t lo, int64_t hi) const {
  return req(key).as_int(lo, hi);
}
int64_t ConfigNode::opt_int(const std::string& key, int64_t def, int64_t lo, int64_t hi) const {
  if (ConfigSchema::active) schema_key(key, "integer", std::to_string(def), ConfigSchema::int_range(lo, hi));
  auto n = opt(key);
  return n ? n->as_int(lo, hi) : def;
}
double ConfigNode::req_num(const std::string& key, double lo, double hi) const {
  return req(key).as_num(lo, hi);
}
double ConfigNode::opt_num(const std::string& key, double def, double lo, double hi) const {
  if (ConfigSchema::active) schema_key(key, "number", ConfigSchema::number(def), ConfigSchema::num_range(lo, hi));
  auto n = opt(key);
  return n ? n->as_num(lo, hi) : def;
}
bool ConfigNode::opt_bool(const std::string& key, bool def) const {
  if (ConfigSchema::active) schema_key(key, "bool", def ? "true" : "false");
  auto n = opt(key);
  return n ? n->as_bool() : def;
}
std::string ConfigNode::req_str(const std::string& key) const { return req(key).as_str(); }
std::string ConfigNode::opt_str(const std::string& key, const std::string& def) const {
  if (ConfigSchema::active) schema_key(key, "string", def.empty() ? "\"\"" : def);
  auto n = opt(key);
  return n ? n->as_str() : def;
}
std::string ConfigNode::req_enum(const std::string& key,
                                 const std::vector<std::string>& allowed) const {
  return req(key).as_enum(allowed);
}
std::string ConfigNode::opt_enum(const std::string& key, const std::string& def,
                                 const std::vector<std::string>& allowed) const {
  if (ConfigSchema::active) schema_key(key, "one of " + list(allowed), def);
  auto n = opt(key);
  return n ? n->as_enum(allowed) : def;
}

std::vector<ConfigNode> ConfigNode::items() const {
  expect_sequence();
  std::vector<ConfigNode> out;
  for (size_t i = 0; i < node_.size(); ++i) {
    out.emplace_back(doc_, node_[i], path_ + "[" + std::to_string(i) + "]");
    out.back().pattern_ = pattern_ + "[]";
  }
  return out;
}

std::vector<std::pair<std::string, ConfigNode>> ConfigNode::entries() const {
  expect_map();
  std::vector<std::pair<std::string, ConfigNode>> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.Scalar();
    out.emplace_back(key, child(key, it->second));
    out.back().second.pattern_ = join(pattern_, "<name>");
  }
  return out;
}

void ConfigNode::finish() const {
  expect_map();
  const auto& used = doc_->used[path_];
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (!used.count(key)) {
      std::vector<std::string> known(used.begin(), used.end());
      ConfigNode(doc_, it->first, join(path_, key))
          .fail("unknown key '" + key + "'; known keys here: " + list(known));
    }
  }
}

nlohmann::json yaml_to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json j = nlohmann::json::object();
      for (auto it = n.begin(); it != n.end(); ++it) j[it->first.Scalar()] = yaml_to_json(it->second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& x : n) j.push_back(yaml_to_json(x));
      return j;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      char* end = nullptr;
      long long i = 0;
      if (parse_yaml_int(s, i)) return i;
      double d = std::strtod(s.c_str(), &end);
      if (!s.empty() && *end == '\0') return d;
      if (s == "true") return true;
      if (s == "false") return false;
      return s;
    }
    default:
      return nullptr;
  }
}

std::pair<std::string, std::string> split_override(const std::string& arg) {
  auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + arg + ": expected key.path=value");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

}  // namespace mpgpu
