// The documentation that ships in the repository: the generated key reference is current, the
// schema recorder reports what the readers ask for, and README and docs/ link only to files that
// exist in the repository.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>

#include "test_util.hpp"

using namespace mpgpu::test;

// docs/platform-reference.md equals what `mpgpu schema` generates now, and every key has a note.
TEST(Docs, PlatformReferenceIsUpToDate) {
  const auto r = run_command("MPGPU=" + std::string(MPGPU_BINARY) + " bash " + source_path("scripts/gen_reference.sh") + " --check");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The recorder reports keys as the readers check them: type, default, range, required.
TEST(Docs, SchemaReportsWhatTheReadersCheck) {
  const auto r = run_mpgpu("schema --platform " + source_path("platforms/gtx1080.yaml"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("| `sm.count` | integer | required | [1, 1024] |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| `sm.warp_size` | integer | 32 | [1, 64] |"), std::string::npos);
  EXPECT_NE(r.output.find("| `address_map.kind` | one of interleave, xor | required | - |"), std::string::npos);
  EXPECT_NE(r.output.find("| `sm.pipeline.units.<name>.latency` | integer | (varies) |"), std::string::npos);  // per unit
  EXPECT_EQ(r.output.find("`kernels"), std::string::npos);  // no workload loaded: no workload keys
  // --check with no notes: every key lacks one.
  const auto c = run_mpgpu("schema --check --platform " + source_path("platforms/gtx1080.yaml"));
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.output.find("platform key 'sm.count' has no note"), std::string::npos);
}

// Relative links of README.md and docs/*.md name files of the repository.
TEST(Docs, LinksStayInsideTheRepository) {
  const std::filesystem::path root = source_path("");
  std::vector<std::filesystem::path> docs{root / "README.md"};
  for (const auto& e : std::filesystem::directory_iterator(root / "docs"))
    if (e.path().extension() == ".md") docs.push_back(e.path());
  ASSERT_GE(docs.size(), 4u) << "README.md and docs/architecture.md, mechanisms.md, platform-reference.md";
  const std::regex link(R"(\]\(([^)#\s]+)(#[^)]*)?\))");
  for (const auto& d : docs) {
    const std::string text = read_file(d);
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (target.rfind("http", 0) == 0) continue;
      const auto p = std::filesystem::weakly_canonical(d.parent_path() / target);
      EXPECT_TRUE(std::filesystem::exists(p)) << d << " links to missing " << target;
      EXPECT_EQ(p.string().rfind(std::filesystem::weakly_canonical(root).string(), 0), 0u) << d << " links outside: " << target;
    }
  }
}
