// Bad input the suite once took or answered badly, each through the built
// stage as a user types it: exit 2 with one line naming the flag (or --help
// winning over everything else), before any CUDA call, so on any machine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "matchers.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace cpu_bad_input {

#if defined(CSG_STAGE01_BINARY) && defined(CSG_STAGE03_BINARY) && defined(CSG_STAGE04_BINARY)

struct BadInput {
  std::string name;  // of the test case
  std::vector<std::string> argv;
  std::string must_mention;
};

class Refused : public ::testing::TestWithParam<BadInput> {};

TEST_P(Refused, ExitTwoWithOneLineNamingTheFlag) {
  testing::TempDir dir;
  const testing::ProcessResult run = testing::run_process(GetParam().argv);
  EXPECT_TRUE(testing::refused_as_usage(run, GetParam().must_mention, dir)) << run.err;
}

const std::string kDigits(5000, '9');

INSTANTIATE_TEST_SUITE_P(
    EveryStage, Refused,
    ::testing::Values(
        // An output flag given no file name is refused as --json's is.
        BadInput{"empty_trace", {CSG_STAGE01_BINARY, "timeline", "--trace", ""}, "--trace needs a file name"},
        BadInput{"empty_dot", {CSG_STAGE04_BINARY, "graph", "--dot", ""}, "--dot needs a file name"},
        // A flag a subcommand does not use is not offered, so it is unknown (and --help does not list it).
        BadInput{"changing_shapes_warmup", {CSG_STAGE04_BINARY, "changing-shapes", "--warmup", "1"},
                 "unknown option '--warmup'"},
        BadInput{"graph_repeats", {CSG_STAGE04_BINARY, "graph", "--repeats", "3"}, "unknown option '--repeats'"},
        BadInput{"skip_join_warmup", {CSG_STAGE04_BINARY, "skip-join", "--warmup", "0"},
                 "unknown option '--warmup'"},
        BadInput{"startup_repeats", {CSG_STAGE04_BINARY, "startup", "--repeats", "2"}, "unknown option '--repeats'"},
        BadInput{"conditional_host_memory", {CSG_STAGE04_BINARY, "conditional", "--host-memory", "pinned"},
                 "unknown option '--host-memory'"},
        // A missing value says what the flag takes.
        BadInput{"kernel_without_value", {CSG_STAGE01_BINARY, "kernels", "--kernel"},
                 "--kernel needs a value: one of tiled|cublas"},
        // A value thousands of characters long is cut in the message.
        BadInput{"five_thousand_digits", {CSG_STAGE01_BINARY, "--batches", kDigits}, "...(5000 characters)"}),
    [](const ::testing::TestParamInfo<BadInput>& param_info) { return param_info.param.name; });

TEST(Refused, AValueThousandsOfCharactersLongLeavesAShortLine) {
  const testing::ProcessResult run = testing::run_process({CSG_STAGE03_BINARY, "--streams", kDigits});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_LT(run.err.size(), 300U) << run.err;
}

struct HelpWins {
  std::string name;
  std::vector<std::string> argv;
};

class HelpFirst : public ::testing::TestWithParam<HelpWins> {};

TEST_P(HelpFirst, HelpIsPrintedWhateverElseWasGiven) {
  const testing::ProcessResult run = testing::run_process(GetParam().argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("Usage:"));
  EXPECT_EQ(run.err, "");
}

INSTANTIATE_TEST_SUITE_P(
    EveryStage, HelpFirst,
    ::testing::Values(HelpWins{"subcommand_bad_flag", {CSG_STAGE03_BINARY, "kernels", "--help", "--bogus"}},
                      HelpWins{"before_a_subcommand", {CSG_STAGE04_BINARY, "--help", "regime-map"}},
                      HelpWins{"after_a_bad_value", {CSG_STAGE01_BINARY, "--batches", "0", "--help"}},
                      HelpWins{"with_list", {CSG_STAGE01_BINARY, "--list", "--help"}}),
    [](const ::testing::TestParamInfo<HelpWins>& param_info) { return param_info.param.name; });

#endif

}  // namespace cpu_bad_input
}  // namespace csg
