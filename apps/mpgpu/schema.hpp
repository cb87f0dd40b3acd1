#pragma once
// `mpgpu schema`: the reference of every platform and workload key, as the readers ask for them
// (common/config_schema.hpp), merged with a notes file giving each key's unit and meaning.
#include <string>
#include <vector>

namespace mpgpu {

struct SchemaArgs {
  std::vector<std::string> platforms, workloads;  // files whose loading shows the keys
  std::vector<std::string> sets;                   // platform overrides (show keys no bundled file sets)
  std::string notes;                               // YAML: key pattern -> {unit, meaning}
  bool check = false;                              // exit 1 when a key has no note or a note no key
};

// Prints Markdown on stdout; problems on stderr. Returns the exit code.
int cmd_schema(const SchemaArgs& a);

}  // namespace mpgpu
