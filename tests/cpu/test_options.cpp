// Option parsing and validation, in process: every bad input is a UsageError
// (exit code 2 in a stage) naming the flag.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "matchers.hpp"
#include "base/errors.hpp"
#include "cli/options.hpp"
#include "param_names.hpp"

namespace csg {
namespace cpu_options {

// What `cli` refuses `args` with, or "" when it accepts them.
std::string refusal_of(StageCli& cli, const std::vector<std::string>& args) {
  try {
    cli.parse(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

std::optional<CommonOptions> parse(const std::vector<std::string>& args) {
  StageCli cli("test_stage", "test");
  return cli.parse(args);
}

// The common values one parse should give, field by field.
struct CommonValues {
  int batches, m, n, k, warmup, repeats;
  std::uint64_t seed;
  HostMemory host_memory;
};

void expect_common_values(const CommonOptions& options, const CommonValues& expected) {
  EXPECT_EQ(options.work.batches, expected.batches);
  EXPECT_EQ(options.work.shape.m, expected.m);
  EXPECT_EQ(options.work.shape.n, expected.n);
  EXPECT_EQ(options.work.shape.k, expected.k);
  EXPECT_EQ(options.plan.warmup, expected.warmup);
  EXPECT_EQ(options.plan.repeats, expected.repeats);
  EXPECT_EQ(options.seed, expected.seed);
  EXPECT_EQ(options.host_memory, expected.host_memory);
}

TEST(Options, DefaultsAreTheArticles) {
  const auto options = parse({});
  ASSERT_TRUE(options.has_value());
  expect_common_values(*options, {.batches = 100, .m = 1024, .n = 1024, .k = 512, .warmup = 2, .repeats = 10,
                                  .seed = 1u, .host_memory = HostMemory::pageable});
  EXPECT_TRUE(options->json_path.empty());
}

TEST(Options, ParsesEveryCommonFlagInBothSpellings) {
  const auto options = parse({"--batches", "7", "--m=33", "--n", "17", "--k=65", "--warmup", "0", "--repeats=3",
                              "--seed", "99", "--host-memory", "pinned"});
  ASSERT_TRUE(options.has_value());
  expect_common_values(*options, {.batches = 7, .m = 33, .n = 17, .k = 65, .warmup = 0, .repeats = 3, .seed = 99u,
                                  .host_memory = HostMemory::pinned});
}

TEST(Options, HelpReturnsNothingAndShowsDoubleDashOneLetterFlags) {
  StageCli cli("test_stage", "test");
  EXPECT_FALSE(cli.parse({"--help"}).has_value());
  const std::string help = cli.help();
  for (const char* flag : {"--batches", "--m N", "--n N", "--k N", "--warmup", "--repeats", "--seed", "--json",
                           "--host-memory", "Exit codes"}) {
    EXPECT_NE(help.find(flag), std::string::npos) << flag << " missing from:\n" << help;
  }
}

// Columns of a line of UTF-8 text: its characters (no wide ones in --help).
std::size_t columns(const std::string& line) {
  std::size_t count = 0;
  for (const char c : line) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return count;
}

TEST(Options, HelpFitsOneHundredColumnsAndListsEveryExitCode) {
  // A description and an option's help far longer than a line: both wrapped.
  StageCli cli("test_stage",
               "A stage whose description runs on and on, " + std::string(30, 'x') +
                   " well past the hundredth column of a terminal, so that the help must wrap it at a space "
                   "before that column.\nA second paragraph stays a line of its own.");
  cli.add_text("sizes", "Sizes to measure: " + std::string(120, 's') + " and some words after it to wrap", "1K",
               "LIST");
  const std::string help = cli.help();
  std::size_t begin = 0;
  while (begin < help.size()) {
    const std::size_t end = std::min(help.find('\n', begin), help.size());
    const std::string line = help.substr(begin, end - begin);
    // A single word longer than the line can't be broken; every other line fits.
    if (line.find(std::string(120, 's')) == std::string::npos) {
      EXPECT_LE(columns(line), 100U) << line;
    }
    begin = end + 1;
  }
  EXPECT_NE(help.find("\nA second paragraph stays a line of its own."), std::string::npos) << help;
  const std::size_t codes = help.find("Exit codes:");
  ASSERT_NE(codes, std::string::npos) << help;
  for (const char* code : {" 0 ", " 1 ", " 2 ", " 77 ", " 130", " 143 "}) {
    EXPECT_NE(help.find(code, codes), std::string::npos) << code << " missing from:\n" << help.substr(codes);
  }
}

TEST(Options, StageSpecificOptions) {
  StageCli cli("test_stage", "test");
  cli.add_int("streams", "pool size", 8, 1, 1024);
  cli.add_choice("order", "issue order", "depth-first", {"depth-first", "breadth-first"});
  cli.add_flag("skip-join", "leave out the join");
  ASSERT_TRUE(cli.parse({"--streams", "3", "--order", "breadth-first", "--skip-join"}).has_value());
  EXPECT_EQ(cli.get_int("streams"), 3);
  EXPECT_EQ(cli.get_string("order"), "breadth-first");
  EXPECT_TRUE(cli.get_flag("skip-join"));
  EXPECT_THROW(cli.parse({"--streams", "0"}), UsageError);
  EXPECT_THROW(cli.parse({"--order", "random"}), UsageError);
}

struct BadInput {
  std::vector<std::string> args;
  std::string must_mention;
};

// Shows the arguments in test names and failure messages.
void PrintTo(const BadInput& bad, std::ostream* out) { *out << ::testing::PrintToString(bad.args); }

class OptionsRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(OptionsRejects, WithAUsageErrorNamingTheProblem) {
  const BadInput& bad = GetParam();
  try {
    parse(bad.args);
    FAIL() << "accepted bad input";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(bad.must_mention), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, OptionsRejects,
    ::testing::Values(BadInput{{"--unknown"}, "unknown"},                       // unknown flag
                      BadInput{{"--batches"}, "batches"},                       // missing value
                      BadInput{{"--m"}, "--m needs a value"},                   // missing value, one-letter flag
                      BadInput{{"--m="}, "--m needs a value"},                  //
                      BadInput{{"--m", "abc"}, "--m takes an integer"},         // non-numeric
                      BadInput{{"--n", "12x"}, "--n takes an integer"},         // partly numeric
                      BadInput{{"--k", "1.5"}, "--k takes an integer"},         //
                      BadInput{{"--k", ""}, "--k needs a value"},               //
                      BadInput{{"--batches", "0"}, "--batches takes an integer in [1, "},   // zero
                      BadInput{{"--m", "-3"}, "--m takes an integer in [1, "},              // negative
                      BadInput{{"--batches=-1"}, "--batches takes an integer in [1, "},     //
                      BadInput{{"--repeats", "0"}, "--repeats takes an integer in [1, "},   // no timed run
                      BadInput{{"--warmup", "-1"}, "--warmup"},                             //
                      BadInput{{"--n", "2147483648"}, "--n takes an integer in [1, 2147483647]"},  // past int
                      BadInput{{"--seed", "99999999999999999999"}, "--seed"},               // past 64 bits
                      BadInput{{"--m", "2000000", "--n", "2000000000", "--k", "2000000000", "--batches",
                                "2000000000"},
                               "overflow 64 bits"},                                       // bytes overflow
                      BadInput{{"--m", "3000000"}, "--m takes at most"},                  // beyond the grid
                      BadInput{{"--host-memory", "registered"}, "pageable|pinned"},      // not for this stage
                      BadInput{{"--json", "/nonexistent-dir/out.json"}, "does not exist"},  // unwritable path
                      BadInput{{"--json", "/"}, "is a directory"},                        //
                      BadInput{{"--json="}, "--json"},                                    //
                      BadInput{{"stray"}, "unexpected argument 'stray'"},
                      BadInput{{"--kernel", "foo"}, "--kernel takes one of naive|tiled|cublas"},
                      BadInput{{"--kernel", "tiled", "--tf32"}, "--tf32 needs --kernel cublas"},  //
                      BadInput{{"--tf32"}, "--tf32 needs --kernel cublas"},                      // naive is the default
                      BadInput{{"--kernel", "tiled", "--m", "4194305"}, "--m takes at most 4194240 rows"},
                      // A switch given a value, named with what was typed.
                      BadInput{{"--kernel", "cublas", "--tf32=yes"}, "--tf32 is a switch and takes no value, got '--tf32=yes'"},
                      BadInput{{"--help=no"}, "--help is a switch and takes no value"},
                      // An unknown option with a value, and one with a single dash.
                      BadInput{{"--no-such=3"}, "unknown option '--no-such'"},
                      BadInput{{"-x"}, "unknown option '-x'"},
                      // "--" ends the options; what follows is reported as typed, not as the parser rewrote it.
                      BadInput{{"--", "--m", "64"}, "unexpected arguments after '--': '--m 64'"},
                      BadInput{{"--batches", "3", "--"}, "unexpected argument '--'"},
                      // A value the user typed is echoed with its control characters escaped.
                      BadInput{{"--kernel", "ti\nled"}, "got 'ti\\nled'"},
                      BadInput{{"--json", "/nonexistent\n-dir/out.json"}, "'/nonexistent\\n-dir/out.json'"},
                      // A value of 5,000 digits is cut in the message, which stays one short line.
                      BadInput{{"--batches", std::string(5000, '9')}, "...(5000 characters)"},
                      // A file name longer than the file system takes: refused here, not at the end of the run.
                      BadInput{{"--json", "/tmp/" + std::string(300, 'a') + ".json"}, "305 bytes long, longer than the"}),
    [](const ::testing::TestParamInfo<BadInput>& param_info) {
      return testing::words_name(param_info.index, param_info.param.args);
    });

TEST(Options, HelpWinsOverEveryOtherArgumentGoodOrBad) {
  StageCli cli("test_stage", "test");
  EXPECT_FALSE(cli.parse({"--bogus", "--help"}).has_value());
  EXPECT_FALSE(cli.parse({"--batches", "0", "-h"}).has_value());
  EXPECT_FALSE(cli.parse({"stray", "--help", "--m"}).has_value());
}

TEST(Options, AnOutputGivenNoFileNameIsRefusedAndAMissingTextValueSaysWhatItTakes) {
  StageCli cli("test_stage", "test");
  cli.add_output("trace", "Write a trace");
  cli.add_text("kernel-kind", "A kernel: tiled|cublas", "tiled", "KIND", "one of tiled|cublas");
  cli.add_text("counts", "Counts", "1,2", "LIST");
  EXPECT_THAT(refusal_of(cli, {"--trace", ""}), HasSubstr("--trace needs a file name"));
  EXPECT_THAT(refusal_of(cli, {"--kernel-kind"}), HasSubstr("--kernel-kind needs a value: one of tiled|cublas"));
  EXPECT_THAT(refusal_of(cli, {"--counts"}), HasSubstr("--counts needs a value: a comma-separated list"));
  EXPECT_TRUE(cli.parse({"--trace", "/tmp/ok.json"}).has_value());
}

TEST(Options, ARunNotTimedInRoundsNeitherOffersNorTakesWarmupAndRepeats) {
  CommonDefaults untimed;
  untimed.rounds = false;
  StageCli cli("test_stage sub", "test", untimed);
  EXPECT_THAT(cli.help(), ::testing::Not(HasSubstr("--warmup")));
  EXPECT_THAT(cli.help(), ::testing::Not(HasSubstr("--repeats")));
  EXPECT_THAT(refusal_of(cli, {"--repeats", "3"}), HasSubstr("unknown option '--repeats'"));
  const std::optional<CommonOptions> options = cli.parse({"--batches", "3"});
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->plan.warmup, RepeatPlan{}.warmup) << "the plan keeps its defaults";
}

TEST(Options, KernelChoiceDefaultsToTheArticlesNaiveKernel) {
  const auto defaults = parse({});
  ASSERT_TRUE(defaults.has_value());
  EXPECT_EQ(defaults->gemm.kernel, GemmKernel::naive);
  EXPECT_FALSE(defaults->gemm.tf32);
  const auto tiled = parse({"--kernel", "tiled"});
  ASSERT_TRUE(tiled.has_value());
  EXPECT_EQ(tiled->gemm.kernel, GemmKernel::tiled);
  const auto tf32 = parse({"--kernel=cublas", "--tf32"});
  ASSERT_TRUE(tf32.has_value());
  EXPECT_EQ(tf32->gemm.kernel, GemmKernel::cublas);
  EXPECT_TRUE(tf32->gemm.tf32);
  EXPECT_EQ(gemm_name(tf32->gemm), "cublas+tf32");
  // Each kernel's grid sets its own row limit; cuBLAS has none of its own.
  EXPECT_TRUE(parse({"--kernel", "tiled", "--m", "3000000"}).has_value());
  EXPECT_TRUE(parse({"--kernel", "cublas", "--m", "5000000"}).has_value());
  EXPECT_EQ(max_gemm_rows(GemmKernel::naive), 65535LL * 32);
  // Exactly at each kernel's limit is allowed; one row more is refused, before any CUDA call.
  EXPECT_TRUE(parse({"--m", "2097120"}).has_value());
  EXPECT_THROW(parse({"--m", "2097121"}), UsageError);
  EXPECT_TRUE(parse({"--kernel", "tiled", "--m", "4194240"}).has_value());
  EXPECT_THROW(parse({"--kernel", "tiled", "--m", "4194241"}), UsageError);
  EXPECT_EQ(max_gemm_rows(GemmKernel::tiled), 65535LL * 64);
  EXPECT_EQ(max_gemm_rows(GemmKernel::cublas), 0);
}

// What parsing `args` with `defaults` refuses, or "" when it accepts them.
std::string refusal(const CommonDefaults& defaults, const std::vector<std::string>& args) {
  StageCli cli("test_stage sub", "test", defaults);
  try {
    cli.parse(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(Options, TheShapeIsCheckedAgainstTheKernelTheRunStartsFrom) {
  // 3,000,000 rows: more than the naive kernel's grid covers (2,097,120), fewer than the tiled one's (4,194,240).
  const CommonDefaults lesson{.kernel_choice = false};
  EXPECT_NE(refusal(lesson, {"--m", "3000000"}).find("--m takes at most 2097120 rows with --kernel naive"),
            std::string::npos);
  const CommonDefaults cublas_only{.kernel_choice = false, .kernel = GemmKernel::cublas};
  EXPECT_EQ(refusal(cublas_only, {"--m", "3000000"}), "");
  EXPECT_EQ(StageCli("test_stage sub", "test", cublas_only).parse({})->gemm.kernel, GemmKernel::cublas);

  // A laboratory's kernels without the lesson's: --kernel tiled|cublas, from tiled.
  const CommonDefaults faster{.kernel = GemmKernel::tiled, .kernel_choices = {GemmKernel::tiled, GemmKernel::cublas}};
  StageCli cli("test_stage sub", "test", faster);
  EXPECT_NE(cli.help().find("tiled|cublas"), std::string::npos) << cli.help();
  EXPECT_EQ(cli.help().find("naive"), std::string::npos) << cli.help();
  EXPECT_EQ(cli.parse({})->gemm.kernel, GemmKernel::tiled);
  EXPECT_EQ(refusal(faster, {"--kernel", "cublas", "--m", "3000000"}), "");
  EXPECT_EQ(refusal(faster, {"--m", "3000000"}), "");
  EXPECT_NE(refusal(faster, {"--m", "5000000"}).find("--m takes at most 4194240 rows with --kernel tiled"),
            std::string::npos);
  EXPECT_EQ(refusal(faster, {"--kernel", "naive"}), "--kernel takes one of tiled|cublas, got 'naive'");
  EXPECT_NE(refusal(faster, {"--kernel", "tiled", "--tf32"}).find("--tf32 needs --kernel cublas"), std::string::npos);
}

TEST(Options, AStageWithoutTheGemmWorkloadHasNoKernelOption) {
  StageCli cli("test_stage", "test", CommonDefaults{.gemm_workload = false});
  EXPECT_EQ(cli.help().find("--kernel"), std::string::npos);
  EXPECT_THROW(cli.parse({"--kernel", "tiled"}), UsageError);
}

TEST(Options, ParseIntIsStrict) {
  EXPECT_EQ(parse_int("x", "42", 1, 100), 42);
  EXPECT_THROW(parse_int("x", " 42", 1, 100), UsageError);
  EXPECT_THROW(parse_int("x", "42 ", 1, 100), UsageError);
  EXPECT_THROW(parse_int("x", "+42", 1, 100), UsageError);
  EXPECT_THROW(parse_int("x", "0x10", 1, 100), UsageError);
  EXPECT_THROW(parse_int("x", "101", 1, 100), UsageError);
}

TEST(Options, HostMemoryNamesRoundTrip) {
  for (HostMemory kind : {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                          HostMemory::write_combined}) {
    EXPECT_EQ(parse_host_memory(to_string(kind)), kind);
  }
  EXPECT_FALSE(parse_host_memory("locked").has_value());
}

}  // namespace cpu_options
}  // namespace csg

namespace csg {
namespace cpu_options {

TEST(Options, ParseIntListIsStrict) {
  EXPECT_EQ(parse_int_list("streams-sweep", "1,2,4,8", 1, 32), (std::vector<long long>{1, 2, 4, 8}));
  EXPECT_EQ(parse_int_list("streams-sweep", "3", 1, 32), (std::vector<long long>{3}));
  for (const char* bad : {"", ",", "1,,2", "1,", ",1", "1, 2", "1,x", "0,1", "1,33", "2;4"}) {
    EXPECT_THROW(parse_int_list("streams-sweep", bad, 1, 32), UsageError) << "'" << bad << "'";
  }
  try {
    parse_int_list("streams-sweep", "1,,2", 1, 32);
    FAIL() << "no exception";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--streams-sweep"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("empty item"), std::string::npos) << error.what();
  }
}

TEST(Options, TextOptionsKeepTheirDefaultOrTheGivenText) {
  StageCli cli("test", "test");
  cli.add_text("streams-sweep", "pool sizes", "1,2,4", "LIST");
  ASSERT_TRUE(cli.parse(std::vector<std::string>{}));
  EXPECT_EQ(cli.get_string("streams-sweep"), "1,2,4");
  ASSERT_TRUE(cli.parse(std::vector<std::string>{"--streams-sweep", "8,16"}));
  EXPECT_EQ(cli.get_string("streams-sweep"), "8,16");
}

}  // namespace cpu_options
}  // namespace csg

namespace csg {
namespace cpu_options {

TEST(Options, AnOptionGivenTwiceOrAValueThatIsAFlagIsRefused) {
  StageCli cli("test", "test");
  cli.add_text("sizes", "sizes", "", "LIST");
  EXPECT_THROW(cli.parse(std::vector<std::string>{"--batches", "3", "--batches", "4"}), UsageError);
  EXPECT_THROW(cli.parse(std::vector<std::string>{"--sizes", "4K", "--sizes", "8K"}), UsageError);
  EXPECT_THROW(cli.parse(std::vector<std::string>{"--sizes", "--json", "out.json"}), UsageError);
  ASSERT_TRUE(cli.parse(std::vector<std::string>{}));
  EXPECT_EQ(cli.get_string("sizes"), "");  // an empty default stays empty, and is not "given"
  EXPECT_FALSE(cli.given("sizes"));
  ASSERT_TRUE(cli.parse(std::vector<std::string>{"--sizes", "4K"}));
  EXPECT_TRUE(cli.given("sizes"));
  EXPECT_FALSE(cli.given("repeats"));
}

TEST(Options, HostMemoryListForAStageThatMeasuresSeveralKinds) {
  CommonDefaults defaults;
  defaults.host_memory_choices = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered};
  defaults.host_memory_list = true;
  StageCli cli("test", "test", defaults);
  auto options = cli.parse(std::vector<std::string>{});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->host_memories,
            (std::vector<HostMemory>{HostMemory::pageable, HostMemory::pinned, HostMemory::registered}));
  options = cli.parse(std::vector<std::string>{"--host-memory", "registered,pageable"});
  ASSERT_TRUE(options);
  EXPECT_EQ(options->host_memories, (std::vector<HostMemory>{HostMemory::pageable, HostMemory::registered}));
  EXPECT_EQ(options->host_memory, HostMemory::pageable);
  for (const char* bad : {"", "pinned,", "pinned,pinned", "write-combined", "nowhere"}) {
    EXPECT_THROW(cli.parse(std::vector<std::string>{"--host-memory", bad}), UsageError) << bad;
  }
}

}  // namespace cpu_options
}  // namespace csg
