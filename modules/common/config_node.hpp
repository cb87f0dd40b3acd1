#pragma once
// Strict, location-aware reading of YAML: every error names file:line:col, the key path and
// what was expected; keys nobody read are rejected by finish().
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpgpu {

// One loaded YAML document and the --set overrides applied to it.
struct ConfigDoc {
  std::string file;
  YAML::Node root;
  std::map<std::string, std::string> overrides;  // key path -> "--set path=value"
  std::map<std::string, std::set<std::string>> used;  // map path -> keys read so far
  std::vector<std::string> warnings;                   // "file:line:col: key: what", see ConfigNode::warn

  static std::shared_ptr<ConfigDoc> load(const std::string& file);
  static std::shared_ptr<ConfigDoc> parse(const std::string& text, const std::string& name);
  // Replace (or create) the node at a dotted path; the value is parsed as YAML. Messages name the
  // flag with `shown_path` (the path as given on the command line) when it differs.
  void override_key(const std::string& path, const std::string& value, const std::string& shown_path = "");
};

class ConfigNode {
 public:
  ConfigNode(std::shared_ptr<ConfigDoc> doc, YAML::Node node, std::string path);
  static ConfigNode root(const std::shared_ptr<ConfigDoc>& doc);

  const std::string& path() const { return path_; }
  const std::string& file() const { return doc_->file; }
  const YAML::Node& yaml() const { return node_; }
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool has(const std::string& key) const;

  ConfigNode req(const std::string& key) const;
  std::optional<ConfigNode> opt(const std::string& key) const;

  int64_t req_int(const std::string& key, int64_t lo, int64_t hi) const;
  int64_t opt_int(const std::string& key, int64_t def, int64_t lo, int64_t hi) const;
  double req_num(const std::string& key, double lo, double hi) const;
  double opt_num(const std::string& key, double def, double lo, double hi) const;
  bool opt_bool(const std::string& key, bool def) const;
  std::string req_str(const std::string& key) const;
  std::string opt_str(const std::string& key, const std::string& def) const;
  std::string req_enum(const std::string& key, const std::vector<std::string>& allowed) const;
  std::string opt_enum(const std::string& key, const std::string& def,
                       const std::vector<std::string>& allowed) const;

  // This node as a value.
  int64_t as_int(int64_t lo, int64_t hi) const;
  double as_num(double lo, double hi) const;
  bool as_bool() const;
  std::string as_str() const;
  std::string as_enum(const std::vector<std::string>& allowed) const;

  std::vector<ConfigNode> items() const;                             // a sequence
  std::vector<std::pair<std::string, ConfigNode>> entries() const;  // a map, in file order

  // Reject keys of this map that no reader asked for.
  void finish() const;
  void expect_map() const;
  void expect_sequence() const;
  [[noreturn]] void fail(const std::string& what) const;
  // A value that is valid but implausible: recorded in the document's warnings with its location.
  void warn(const std::string& what) const;
  std::string where() const;  // "file:line:col" or "--set a.b=c"

 private:
  ConfigNode child(const std::string& key, YAML::Node n) const;
  void schema(const std::string& type, const std::string& def = "", const std::string& range = "") const;
  void schema_key(const std::string& key, const std::string& type, const std::string& def,
                  const std::string& range = "") const;
  std::shared_ptr<ConfigDoc> doc_;
  YAML::Node node_;
  std::string path_;
  std::string pattern_;  // the path with list indices as [] and user-named entries as <name> (schema)
};

// The document as JSON (scalars typed: int, float, bool, else string), for stats.json.
nlohmann::json yaml_to_json(const YAML::Node& n);

// Parse "a.b.c=value" into (path, value); throws ConfigError when malformed.
std::pair<std::string, std::string> split_override(const std::string& arg);

}  // namespace mpgpu
