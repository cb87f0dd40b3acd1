#pragma once
// Checks on YAML text that yaml-cpp's node tree cannot make: a key given twice in one map (the
// tree keeps both, and readers would see only the first), found from the parser's events so that
// aliases are not expanded; and integers read as YAML 1.2 spells them.
#include <string>

namespace mpgpu {

// Throws ConfigError "name:line:col: duplicate key 'k' (first at line:col)" for the first map
// that names a key twice.
void check_duplicate_keys(const std::string& text, const std::string& name);

// A YAML 1.2 (core schema) integer: [-+]?[0-9]+ in decimal (a leading zero does not make it
// octal), 0x... hexadecimal, 0o... octal. False if `s` is not one or does not fit in 64 bits.
bool parse_yaml_int(const std::string& s, long long& value);

}  // namespace mpgpu
