// Every stage binary, run as a user would: bad input gives one line on stderr
// naming the flag, exit code 2 and no output file, before any CUDA call (so
// the same on a machine without a GPU); no device gives exit code 77.
#include <gtest/gtest.h>

#include "base/errors.hpp"
#include "run_process.hpp"
#include "stage_binaries.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace {

using testing::BadCase;
using testing::stage_binaries;

std::string stage_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// Inputs every stage must refuse. `{json}` is replaced by a path in a temp
// dir, so a test can check that no file appeared.
const std::vector<BadCase>& common_bad_cases() {
  static const std::vector<BadCase> cases = {
      {{"--no-such-flag", "--json", "{json}"}, "no-such-flag"},
      {{"--json", "{json}", "--batches"}, "--batches needs a value: an integer in [1, "},
      {{"--batches", "--m", "5", "--json", "{json}"}, "--batches needs a value: an integer in [1, "},
      {{"--json", "{json}", "--seed"}, "--seed needs a value"},
      {{"--json"}, "--json needs a value: a file name"},
      {{"--no-such-flag"}, "unknown option '--no-such-flag'"},
      {{"--m", "abc", "--json", "{json}"}, "--m takes an integer"},
      {{"--m", "12x", "--json", "{json}"}, "--m takes an integer"},
      {{"--n", "0", "--json", "{json}"}, "--n takes an integer in [1, "},
      {{"--k", "-5", "--json", "{json}"}, "--k takes an integer in [1, "},
      {{"--batches", "0", "--json", "{json}"}, "--batches takes an integer in [1, "},
      {{"--batches", "4294967296", "--json", "{json}"}, "--batches takes an integer in [1, 2147483647]"},
      {{"--repeats", "0", "--json", "{json}"}, "--repeats"},
      {{"--m", "4000000000", "--k", "4000000000", "--json", "{json}"}, "takes an integer in [1, 2147483647]"},
      {{"--m", "2000000", "--n", "2000000000", "--k", "2000000000", "--batches", "2000000000", "--json", "{json}"},
       "overflow 64 bits"},
      {{"--json", "/nonexistent-dir/out.json"}, "does not exist"},
      {{"--host-memory", "nowhere", "--json", "{json}"}, "--host-memory takes one of"},
  };
  return cases;
}

TEST(StageCli, EveryStageIsBuiltAndListed) { EXPECT_FALSE(stage_binaries().empty()); }

TEST(StageCli, BadInputExits2WithOneLineAndNoFile) {
  for (const std::string& binary : stage_binaries()) {
    for (const BadCase& bad : common_bad_cases()) {
      testing::TempDir dir;
      const testing::ProcessResult run = testing::run_process(testing::command_line(binary, bad.args, dir));
      const std::string label = stage_name(binary) + " " + ::testing::PrintToString(bad.args);
      EXPECT_TRUE(testing::refused_as_usage(run, bad.must_mention, dir)) << label;
      // One style: the flag as typed, plain quotes (no typographic ones from the parser).
      EXPECT_EQ(run.err.find("\xE2\x80"), std::string::npos) << label << ": " << run.err;
    }
  }
}

TEST(StageCli, GemmStagesRefuseABadKernelChoiceBeforeAnyCudaCall) {
  // Stage 02 runs no GEMM and has no --kernel; 01, 03 and 04 do.
  int gemm_stages = 0;
  for (const std::string& binary : stage_binaries()) {
    const testing::ProcessResult help = testing::run_process({binary, "--help"});
    if (help.out.find("--kernel KIND") == std::string::npos) continue;  // 02 has --kernel-ms, not --kernel
    ++gemm_stages;
    EXPECT_NE(help.out.find("--tf32"), std::string::npos) << stage_name(binary);
    for (const BadCase& bad : std::vector<BadCase>{{{"--kernel", "foo", "--json", "{json}"}, "--kernel takes one of"},
                                                   {{"--kernel", "naive", "--tf32", "--json", "{json}"},
                                                    "--tf32 needs --kernel cublas"}}) {
      testing::TempDir dir;
      EXPECT_TRUE(testing::refused_as_usage(testing::run_process(testing::command_line(binary, bad.args, dir)),
                                            bad.must_mention, dir))
          << stage_name(binary) << " " << ::testing::PrintToString(bad.args);
    }
  }
  EXPECT_GE(gemm_stages, 3);
}

TEST(StageCli, HelpExits0AndListsTheCommonFlags) {
  for (const std::string& binary : stage_binaries()) {
    const testing::ProcessResult run = testing::run_process({binary, "--help"});
    EXPECT_EQ(run.exit_code, kExitOk) << binary;
    for (const char* flag : {"--batches", "--m N", "--n N", "--k N", "--warmup", "--repeats", "--seed", "--json",
                             "--host-memory"}) {
      EXPECT_NE(run.out.find(flag), std::string::npos) << stage_name(binary) << " --help lacks " << flag;
    }
  }
}

TEST(StageCli, NoVisibleDeviceExits77WithOneLine) {
  // CUDA_VISIBLE_DEVICES="" hides every GPU, so this holds on any machine.
  for (const std::string& binary : stage_binaries()) {
    testing::TempDir dir;
    const testing::ProcessResult run =
        testing::run_process({binary, "--batches", "2", "--m", "8", "--n", "8", "--k", "8", "--json",
                              dir.file("out.json")},
                             {"CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(run.exit_code, kExitNoDevice) << stage_name(binary) << "\nstderr: " << run.err;
    EXPECT_NE(run.err.find("no CUDA device found"), std::string::npos) << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_TRUE(dir.entries().empty());
  }
}

}  // namespace
}  // namespace csg
