// Every command of the suite, run as a user would: each stage binary (its
// lesson) and each subcommand its --help lists. Bad input gives one line on
// stderr naming the flag and the value, exit code 2 and no output file,
// before any CUDA call (so the same on a machine without a GPU); no device
// gives exit code 77; --help exits 0, lists every exit code and fits 100
// columns. Each case runs against every command that has the options it uses.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/errors.hpp"
#include "param_names.hpp"
#include "run_process.hpp"
#include "stage_binaries.hpp"
#include "stage_commands.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace cpu_stage_cli {

using testing::BadCase;
using testing::StageCommand;
using testing::stage_binaries;

// Inputs every command must refuse. `{json}` is replaced by a path in a temp
// dir, and `{dir}` by that dir, so a test can check that no file appeared.
const std::vector<BadCase>& common_bad_cases() {
  static const std::vector<BadCase> cases = {
      {{"--no-such-flag", "--json", "{json}"}, "no-such-flag"},
      {{"--json", "{json}", "--batches"}, "--batches needs a value: an integer in [1, "},
      {{"--batches", "--m", "5", "--json", "{json}"}, "--batches needs a value: an integer in [1, "},
      {{"--json", "{json}", "--seed"}, "--seed needs a value"},
      {{"--json"}, "--json needs a value: a file name"},
      {{"--no-such-flag"}, "unknown option '--no-such-flag'"},
      {{"--no-such-flag=3", "--json", "{json}"}, "unknown option '--no-such-flag'"},
      {{"-x", "--json", "{json}"}, "unknown option '-x'"},
      {{"--json", "{json}", "stray"}, "unexpected argument 'stray'"},
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
      // A file name longer than the file system takes: refused at the start, not at the end of the run.
      {{"--json", "{dir}/" + std::string(300, 'a') + ".json"}, "--json '"},
      {{"--json", "{dir}/" + std::string(300, 'a') + ".json"}, "305 bytes long, longer than the"},
      // Text the user typed is echoed with its control characters escaped: still one line.
      {{"--json", "{dir}/a\nb/out.json"}, "a\\nb/out.json"},
      {{"--m", "1\n2", "--json", "{json}"}, "got '1\\n2'"},
      // "--" ends the options; what follows is reported as the user typed it.
      {{"--json", "{json}", "--", "--m", "64"}, "unexpected arguments after '--': '--m 64'"},
      // A switch given a value names the switch and what was typed.
      {{"--help=yes"}, "--help is a switch and takes no value, got '--help=yes'"},
      {{"--tf32=yes", "--json", "{json}"}, "--tf32 is a switch and takes no value, got '--tf32=yes'"},
  };
  return cases;
}

// Whether `command` has every option `bad` uses.
bool applies(const StageCommand& command, const BadCase& bad) {
  const std::vector<std::string> used = testing::options_used(bad.args);
  return std::all_of(used.begin(), used.end(), [&](const std::string& name) { return command.has(name); });
}

std::string shown(const std::vector<std::string>& args) { return ::testing::PrintToString(args); }

// One instance per stage binary: its lesson and every subcommand of its laboratory.
class EveryCommand : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { commands = testing::stage_commands(GetParam()); }
  std::vector<StageCommand> commands;
};

std::string stage_name(const ::testing::TestParamInfo<std::string>& info) { return testing::stage_name(info.param); }

TEST(StageCli, EveryStageIsBuiltAndListed) { EXPECT_GE(stage_binaries().size(), 4U); }

TEST_P(EveryCommand, RefusesBadInputWithOneLineAndNoFile) {
  int runs = 0;
  for (const StageCommand& command : commands) {
    ASSERT_EQ(command.help_exit_code, kExitOk) << command.label() << " --help";
    int command_runs = 0;
    for (const BadCase& bad : common_bad_cases()) {
      if (!applies(command, bad)) continue;
      ++command_runs;
      testing::TempDir dir;
      const testing::ProcessResult run = testing::run_process(command.argv(testing::in_dir(bad.args, dir)));
      const std::string label = command.label() + " " + shown(bad.args);
      EXPECT_TRUE(testing::refused_as_usage(run, bad.must_mention, dir)) << label;
      // One style: plain quotes (no typographic ones from the parser).
      EXPECT_EQ(run.err.find("\xE2\x80"), std::string::npos) << label << ": " << run.err;
    }
    // Every command takes --json and --help, so at least their cases ran.
    EXPECT_GE(command_runs, 8) << command.label() << " has too few of the common options:\n" << command.help;
    runs += command_runs;
  }
  EXPECT_GT(runs, 0);
}

TEST_P(EveryCommand, RefusesABadKernelBeforeAnyCudaCall) {
  for (const StageCommand& command : commands) {
    if (!command.has("kernel") || command.help.find("--kernel KIND") == std::string::npos) continue;
    EXPECT_TRUE(command.has("tf32")) << command.label();
    for (const BadCase& bad : std::vector<BadCase>{{{"--kernel", "foo", "--json", "{json}"}, "--kernel takes one of"},
                                                   {{"--kernel", "naive", "--tf32", "--json", "{json}"},
                                                    "--tf32 needs --kernel cublas"}}) {
      testing::TempDir dir;
      EXPECT_TRUE(testing::refused_as_usage(testing::run_process(command.argv(testing::in_dir(bad.args, dir))),
                                            bad.must_mention, dir))
          << command.label() << " " << shown(bad.args);
    }
  }
}

TEST_P(EveryCommand, HelpListsEveryExitCodeIn100Columns) {
  for (const StageCommand& command : commands) {
    EXPECT_EQ(command.help_exit_code, kExitOk) << command.label();
    const std::size_t codes = command.help.find("Exit codes:");
    ASSERT_NE(codes, std::string::npos) << command.label() << " --help:\n" << command.help;
    for (const char* code : {" 0 ", " 1 ", " 2 ", " 77 ", " 130", " 143 "}) {
      EXPECT_NE(command.help.find(code, codes), std::string::npos) << command.label() << " --help lacks " << code;
    }
    std::size_t begin = 0;
    while (begin < command.help.size()) {
      const std::size_t end = std::min(command.help.find('\n', begin), command.help.size());
      const std::string line = command.help.substr(begin, end - begin);
      const auto columns = static_cast<std::size_t>(std::count_if(
          line.begin(), line.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
      EXPECT_LE(columns, 100U) << command.label() << " --help, a line of " << columns << " columns:\n" << line;
      begin = end + 1;
    }
    EXPECT_TRUE(command.has("help") && command.has("json")) << command.label() << " --help:\n" << command.help;
  }
}

TEST_P(EveryCommand, WithoutADeviceExits77WithOneLine) {
  // CUDA_VISIBLE_DEVICES="" hides every GPU, so this holds on any machine.
  for (const StageCommand& command : commands) {
    testing::TempDir dir;
    std::vector<std::string> args;
    for (const char* size : {"batches", "m", "n", "k"}) {
      if (command.has(size)) args.insert(args.end(), {std::string("--") + size, size[0] == 'b' ? "2" : "8"});
    }
    args.insert(args.end(), {"--json", dir.file("out.json")});
    const testing::ProcessResult run = testing::run_process(command.argv(args), {"CUDA_VISIBLE_DEVICES="});
    EXPECT_EQ(run.exit_code, kExitNoDevice) << command.label() << "\nstderr: " << run.err;
    EXPECT_NE(run.err.find("no CUDA device found"), std::string::npos) << command.label() << ": " << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << command.label() << ": " << run.err;
    EXPECT_TRUE(dir.entries().empty()) << command.label();
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, EveryCommand, ::testing::ValuesIn(stage_binaries()), stage_name);

TEST(StageCli, TheLessonsOfTheGemmStagesTakeTheArticlesWorkloadFlags) {
  int gemm_stages = 0;
  for (const std::string& binary : stage_binaries()) {
    const StageCommand lesson = testing::stage_commands(binary).front();
    if (!lesson.has("batches")) continue;  // 02 moves bytes, not GEMMs
    ++gemm_stages;
    for (const char* flag : {"--m N", "--n N", "--k N", "--warmup", "--repeats", "--seed", "--json"}) {
      EXPECT_NE(lesson.help.find(flag), std::string::npos) << lesson.label() << " --help lacks " << flag;
    }
  }
  EXPECT_GE(gemm_stages, 3);
}

TEST(StageCli, TheLaboratoryIsReadFromTheHelpThatListsIt) {
  const std::string help =
      "Usage:\n  stage [OPTION...]\n\nThe laboratory, beyond the article (stage SUBCOMMAND --help for its options):\n"
      "  kernels      the pool with each kernel\n  count-sweep  1 to 1,024 streams\n\nExit codes: 0 ...\n";
  EXPECT_EQ(testing::laboratory_of(help), (std::vector<std::string>{"kernels", "count-sweep"}));
  EXPECT_TRUE(testing::laboratory_of("Usage:\n  stage [OPTION...]\n").empty());
  const std::set<std::string> options =
      testing::options_of("  -h, --help           Show this help\n      --m N        Rows (default: 1024)\n"
                          "      --tf32       With --kernel cublas: TF32\n");
  EXPECT_EQ(options, (std::set<std::string>{"help", "m", "tf32"}));
}

}  // namespace cpu_stage_cli
}  // namespace csg
