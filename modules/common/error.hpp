#pragma once
// Error kinds the command line maps to exit codes: bad input -> 2, internal -> 1.
#include <stdexcept>
#include <string>

namespace mpgpu {

// Bad user input (YAML, flags, traces). The message already names file:line:col and key.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The model reached an impossible state (deadlock, broken invariant).
struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace mpgpu
