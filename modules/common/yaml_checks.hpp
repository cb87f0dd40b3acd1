#pragma once
// Checks on YAML text that yaml-cpp's node tree cannot make, run on the parser's events before
// the tree is built (so aliases are not expanded): a key given twice in one map (the tree keeps
// both, and readers would see only the first), nesting depth, and the size the document stands
// for once aliases are expanded (a 4 KB "billion laughs" file stands for 10^9 nodes). Also
// integers read as YAML 1.2 spells them.
#include <cstdint>
#include <string>

namespace mpgpu {

// Bounds on a configuration document: the bundled ones are under 10 levels and 10^4 nodes.
constexpr uint64_t kMaxYamlDepth = 64;
constexpr uint64_t kMaxYamlNodes = 200000;

// Throws ConfigError "name:line:col: ..." for the first map that names a key twice, the first
// collection nested deeper than kMaxYamlDepth, or the node at which the expanded document passes
// kMaxYamlNodes.
void check_yaml_document(const std::string& text, const std::string& name);

// A YAML 1.2 (core schema) integer: [-+]?[0-9]+ in decimal (a leading zero does not make it
// octal), 0x... hexadecimal, 0o... octal. False if `s` is not one or does not fit in 64 bits.
bool parse_yaml_int(const std::string& s, long long& value);

}  // namespace mpgpu
