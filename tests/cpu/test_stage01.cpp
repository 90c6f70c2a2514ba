// Stage 01's command lines, no GPU: the lesson takes the article's workload
// and the host memory kind only; the laboratory's kernels take a faster
// kernel and its timeline the picture's flags. Bad input exits 2 with one
// line naming the flag, before any CUDA call; good input reaches the device
// check (exit 77 with every GPU hidden); each --help lists its own flags.
#include <gtest/gtest.h>

#include "01_serial_baseline/lesson.hpp"
#include "base/errors.hpp"
#include "lesson_argv.hpp"
#include "run_process.hpp"
#include "subcommand_checks.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace {

std::optional<lesson01::Options> lesson_options(const std::vector<std::string>& args) {
  testing::LessonArgv words("01_serial_baseline", args);
  return lesson01::parse_options(words.argc(), words.argv());
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

#ifdef CSG_STAGE01_BINARY

const std::vector<testing::BadCase> kBadCases = {
    {{"--kernel", "tiled"}, "unknown option '--kernel'"},
    {{"--timeline"}, "unknown option '--timeline'"},
    {{"--host-memory", "registered"}, "--host-memory takes one of pageable|pinned"},
    {{"kernels", "--kernel", "naive"}, "--kernel takes one of tiled|cublas, got 'naive'"},
    {{"kernels", "--kernel", "tiled", "--tf32"}, "--tf32 needs --kernel cublas"},
    {{"kernels", "--timeline-batches", "2"}, "unknown option '--timeline-batches'"},
    {{"kernels", "--batches", "0"}, "--batches takes an integer in [1, "},
    {{"timeline", "--timeline-batches", "0"}, "--timeline-batches takes an integer in [1, "},
    {{"timeline", "--trace", "/nonexistent-dir/trace.json"}, "--trace"},
    {{"timeline", "--trace", "{dir}"}, "is a directory"},
    {{"timeline", "--timeline"}, "unknown option '--timeline'"},
    {{"timeline", "--kernel", "naive", "--tf32"}, "--tf32 needs --kernel cublas"},
    {{"timelines"}, "unknown subcommand 'timelines'"},
};

TEST(Stage01Cli, BadInputExits2WithOneLineAndNoFile) {
  for (const testing::BadCase& bad : kBadCases) {
    EXPECT_TRUE(testing::refuses_before_writing(CSG_STAGE01_BINARY, bad, {"CUDA_VISIBLE_DEVICES="}))
        << ::testing::PrintToString(bad.args);
  }
}

TEST(Stage01Cli, GoodOptionsReachTheDeviceCheck) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"--host-memory", "pinned", "--batches", "2"},
           {"kernels"},
           {"kernels", "--kernel", "cublas", "--tf32", "--host-memory", "pinned"},
           {"timeline", "--timeline-batches", "2", "--kernel", "tiled"},
       }) {
    EXPECT_TRUE(testing::reaches_the_device_check(CSG_STAGE01_BINARY, args));
  }
}

TEST(Stage01Cli, EachHelpListsItsOwnFlagsOnly) {
  const std::vector<testing::HelpCase> cases = {
      {"", {"--batches", "--host-memory KIND", "kernels", "timeline"}, {"--kernel", "--tf32", "--trace"}},
      {"kernels", {"--kernel KIND", "tiled|cublas", "--tf32", "--host-memory"}, {"naive|", "--trace", "--timeline"}},
      {"timeline", {"--timeline-batches", "--trace FILE", "--kernel KIND"}, {"--timeline "}},
  };
  for (const testing::HelpCase& c : cases) EXPECT_TRUE(testing::help_lists_its_own_flags(CSG_STAGE01_BINARY, c));
}

#endif  // CSG_STAGE01_BINARY

}  // namespace
}  // namespace csg
