// Stage 01 without a GPU: the lesson's report on made-up figures (one
// screen, the verdict, the next step, the JSON with "subcommand": null, a
// failed batch failing the run); its command lines: the lesson takes the
// article's workload and the host memory kind only, the laboratory's kernels
// a faster kernel and its timeline the picture's flags. Bad input exits 2
// with one line naming the flag, before any CUDA call; good input reaches the
// device check (exit 77 with every GPU hidden); each --help lists its own flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "matchers.hpp"
#include "01_serial_baseline/lesson.hpp"
#include "01_serial_baseline/lesson_report.hpp"
#include "01_serial_baseline/report.hpp"
#include "base/errors.hpp"
#include "lesson_argv.hpp"
#include "run_process.hpp"
#include "subcommand_checks.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace cpu_stage01 {

std::optional<lesson01::Options> lesson_options(const std::vector<std::string>& args) {
  return testing::parse_as_called(lesson01::parse_options, lesson01::kStage, args);
}

TEST(Lesson01Options, TheArticlesWorkloadOnPageableMemoryByDefault) {
  const std::optional<lesson01::Options> options = lesson_options({});
  ASSERT_TRUE(options.has_value());
  EXPECT_EQ(options->work.batches, 100);
  EXPECT_EQ(options->work.shape.m, 1024);
  EXPECT_EQ(options->work.shape.n, 1024);
  EXPECT_EQ(options->work.shape.k, 512);
  EXPECT_EQ(options->host_memory, HostMemory::pageable);
  EXPECT_EQ(options->rounds(), 12);
  const std::optional<lesson01::Options> pinned = lesson_options({"--host-memory", "pinned", "--batches", "3"});
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->host_memory, HostMemory::pinned);
  EXPECT_EQ(pinned->work.batches, 3);
}

TEST(Lesson01Options, TakesNoneOfTheLaboratorysFlags) {
  for (const char* flag : {"--kernel", "--tf32", "--timeline", "--timeline-batches", "--trace"}) {
    EXPECT_THROW(lesson_options({flag, "1"}), UsageError) << flag;
  }
}

// ---- the verdict ------------------------------------------------------------------

TEST(Serial01Verdict, AFewPercentUnderTheSumIsStillNothingOverlapped) {
  const Verdict verdict = serial::overlap_verdict(29.0, 30.0);  // 3.3% under the sum: within 10%
  EXPECT_EQ(verdict.id, "serial.overlap");
  EXPECT_EQ(verdict.outcome, "nothing_overlapped");
  EXPECT_THAT(verdict.sentence, HasSubstr("nothing overlapped (within 10% of the sum)"));
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), serial::kOverlapWithin);
  EXPECT_DOUBLE_EQ(verdict.figures.at("total_ms").get<double>(), 29.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("stage_sum_ms").get<double>(), 30.0);
  EXPECT_EQ(serial::overlap_verdict(31.0, 30.5).outcome, "nothing_overlapped") << "above the sum: nothing overlapped";
}

TEST(Serial01Verdict, MoreThanTenPercentUnderTheSumIsSomeOverlap) {
  const Verdict verdict = serial::overlap_verdict(20.0, 30.0);
  EXPECT_EQ(verdict.outcome, "some_overlapped");
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("some work overlapped"), Not(HasSubstr("nothing overlapped"))));
  EXPECT_EQ(serial::overlap_verdict(26.9, 30.0).outcome, "some_overlapped") << "10.3% under the sum";
  EXPECT_EQ(serial::overlap_verdict(27.1, 30.0).outcome, "nothing_overlapped") << "9.7% under the sum";
}

// ---- the lesson's report ----------------------------------------------------------

lesson01::Figures made_up_figures(double serial_ms, double h2d_ms, double kernel_ms, double d2h_ms) {
  lesson01::Figures f;
  for (int round = 0; round < 3; ++round) {
    f.serial.push_back(Millis(serial_ms));
    f.h2d_sum.push_back(Millis(h2d_ms));
    f.kernel_sum.push_back(Millis(kernel_ms));
    f.d2h_sum.push_back(Millis(d2h_ms));
  }
  f.serial_check.passed = f.sums_check.passed = true;
  f.serial_check.batches_checked = f.sums_check.batches_checked = 100;
  return f;
}

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(Lesson01Report, OneScreenWithTheVerdictTheNextStepAndANullSubcommand) {
  testing::TempDir dir;
  lesson01::Options options;  // the article's 100 GEMMs on pageable memory
  options.json_path = dir.file("01.json");
  std::ostringstream out;
  EXPECT_TRUE(lesson01::report(out, options, DeviceInfo{}, made_up_figures(84.6, 32.9, 17.2, 34.7)));
  const std::string text = out.str();
  EXPECT_LE(lines_of(text), 40U) << text;
  EXPECT_NE(text.find("nothing overlapped"), std::string::npos) << text;
  EXPECT_NE(text.find("--host-memory pinned"), std::string::npos) << "the next step, from pageable memory\n" << text;
  EXPECT_NE(text.find("all 100 batches verified"), std::string::npos) << text;
  const nlohmann::json doc = testing::read_json(options.json_path);
  EXPECT_TRUE(doc.at("subcommand").is_null());
  std::vector<std::string> names;
  for (const auto& m : doc.at("measurements")) names.push_back(m.at("name"));
  EXPECT_EQ(names, (std::vector<std::string>{"serial", "h2d_sum", "kernel_sum", "d2h_sum"}));
  EXPECT_DOUBLE_EQ(doc.at("bounds").at("stage_sum_ms").get<double>(), 32.9 + 17.2 + 34.7);
  // The verdict the console printed, carried in the JSON in the same words.
  ASSERT_EQ(doc.at("verdicts").size(), 1U);
  const Verdict verdict = verdict_from_json(doc.at("verdicts").at(0));
  EXPECT_EQ(verdict.id, "serial.overlap");
  EXPECT_EQ(verdict.outcome, "nothing_overlapped");
  EXPECT_THAT(text, HasSubstr(verdict.sentence));

  options.host_memory = HostMemory::pinned;
  std::ostringstream pinned;
  EXPECT_TRUE(lesson01::report(pinned, options, DeviceInfo{}, made_up_figures(31.1, 4.7, 17.2, 8.5)));
  EXPECT_EQ(pinned.str().find("--host-memory pinned"), std::string::npos) << "pinned is the next step already";
}

TEST(Lesson01Report, ABatchThatFailedFailsTheRunAndIsNamed) {
  lesson01::Figures f = made_up_figures(84.6, 32.9, 17.2, 34.7);
  f.sums_check.passed = false;
  f.sums_check.first_failure = Mismatch{37, 12, 5, 100.0, 99.0, "sampled"};
  std::ostringstream out;
  EXPECT_FALSE(lesson01::report(out, lesson01::Options{}, DeviceInfo{}, f));
  EXPECT_NE(out.str().find("batch 37"), std::string::npos) << out.str();
}

#ifdef CSG_STAGE01_BINARY

// The lesson's and the subcommands' command lines. Bad values of the
// timeline's own flags are refused by every stage's timeline alike
// (test_timeline_options); these are the rest.
const testing::CommandLinePromises kCommandLines = {
    .refused = {
        {{"--kernel", "tiled"}, "unknown option '--kernel'"},
        {{"--timeline"}, "unknown option '--timeline'"},
        {{"--host-memory", "registered"}, "--host-memory takes one of pageable|pinned"},
        {{"kernels", "--kernel", "naive"}, "--kernel takes one of tiled|cublas, got 'naive'"},
        {{"kernels", "--kernel", "tiled", "--tf32"}, "--tf32 needs --kernel cublas"},
        {{"kernels", "--timeline-batches", "2"}, "unknown option '--timeline-batches'"},
        {{"kernels", "--batches", "0"}, "--batches takes an integer in [1, "},
        {{"timeline", "--timeline"}, "unknown option '--timeline'"},
        {{"timeline", "--kernel", "naive", "--tf32"}, "--tf32 needs --kernel cublas"},
        {{"timelines"}, "unknown subcommand 'timelines'"},
    },
    .accepted = {
        {},
        {"--host-memory", "pinned", "--batches", "2"},
        {"kernels"},
        {"kernels", "--kernel", "cublas", "--tf32", "--host-memory", "pinned"},
        {"timeline", "--timeline-batches", "2", "--kernel", "tiled"},
    },
    .helps = {
        {"", {"--batches", "--host-memory KIND", "kernels", "timeline"}, {"--kernel", "--tf32", "--trace"}},
        {"kernels", {"--kernel KIND", "tiled|cublas", "--tf32", "--host-memory"}, {"naive|", "--trace", "--timeline"}},
        {"timeline", {"--timeline-batches", "--trace FILE", "--kernel KIND"}, {"--timeline "}},
    },
};

TEST(Stage01Cli, RefusesBadInputTakesGoodInputAndHelpsWithItsOwnFlags) {
  testing::expect_command_line_promises(CSG_STAGE01_BINARY, kCommandLines);
}

#endif  // CSG_STAGE01_BINARY

}  // namespace cpu_stage01
}  // namespace csg
