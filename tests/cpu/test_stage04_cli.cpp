// Stage 04's own options, through the binary as a user runs it: bad values
// exit 2 with one line naming the flag, before any CUDA call (so also on a
// machine without a GPU), and write no file.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/errors.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

#ifdef CSG_STAGE04_BINARY

namespace csg {
namespace {

struct BadCase {
  std::vector<std::string> args;
  std::string must_mention;
};

TEST(Stage04Cli, BadOptionsExit2WithOneClearLine) {
  const std::vector<BadCase> cases = {
      {{"--streams", "0"}, "--streams takes an integer in [1, 1024]"},
      {{"--streams", "abc"}, "--streams takes an integer"},
      {{"--streams", "1025"}, "--streams takes an integer in [1, 1024]"},
      {{"--device-buffers", "foo"}, "--device-buffers takes one of slots|per-batch"},
      {{"--dot", "/nonexistent-dir/graph.dot"}, "does not exist"},
      {{"--dot", "{dir}"}, "is a directory"},
      {{"--tiny-count", "0"}, "--tiny-count takes an integer"},
      {{"--tiny-size", "x"}, "--tiny-size takes an integer"},
      {{"--skip-join", "--streams", "1"}, "--skip-join needs --streams 2 or more"},
  };
  for (const BadCase& bad : cases) {
    testing::TempDir dir;
    std::vector<std::string> argv{CSG_STAGE04_BINARY};
    for (const std::string& arg : bad.args) argv.push_back(arg == "{dir}" ? dir.path() : arg);
    argv.insert(argv.end(), {"--json", dir.file("out.json")});
    const testing::ProcessResult run = testing::run_process(argv);
    const std::string label = ::testing::PrintToString(bad.args);
    EXPECT_TRUE(testing::refused_as_usage(run, bad.must_mention, dir)) << label;
  }
}

TEST(Stage04Cli, BadOptionsAreRefusedBeforeLookingForAGpu) {
  // With every GPU hidden, a bad option still gives 2 (usage), not 77 (no device).
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE04_BINARY, "--streams", "0"}, {"CUDA_VISIBLE_DEVICES="});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
}

TEST(Stage04Cli, HelpListsTheStageOptions) {
  const testing::ProcessResult run = testing::run_process({CSG_STAGE04_BINARY, "--help"});
  EXPECT_EQ(run.exit_code, kExitOk);
  for (const char* flag : {"--streams", "--device-buffers", "--dot", "--skip-join", "--tiny-count", "--tiny-size"}) {
    EXPECT_NE(run.out.find(flag), std::string::npos) << "--help lacks " << flag;
  }
  // Pinned host memory is this stage's default, as in the article's graph listing.
  EXPECT_NE(run.out.find("(default: pinned)"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace csg

#endif  // CSG_STAGE04_BINARY
