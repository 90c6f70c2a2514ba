// The timeline options (--timeline, --timeline-batches, --trace,
// --timeline-source), shared by stages 01, 03 and 04 through
// timeline_options.hpp: parsed the same way in process, and refused the same
// way (exit 2, one line naming the flag, before any CUDA call, no file
// written) by every stage binary that has them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "base/errors.hpp"
#include "cli/options.hpp"
#include "run_process.hpp"
#include "usage_checks.hpp"
#include "timeline/timeline_options.hpp"

namespace csg {
namespace {

TimelineOptions parsed(const std::vector<std::string>& args, const TimelineSupport& support = {}) {
  StageCli cli("test_stage", "a stage with timeline options");
  add_timeline_options(cli, support);
  const auto options = cli.parse(args);
  if (!options) throw std::logic_error("--help in a test");
  return read_timeline_options(cli, support);
}

// A graph-replay stage (04): its nodes can't be timed with events.
constexpr TimelineSupport kGraphReplay{.events_possible = false};

TEST(TimelineOptions, OffUnlessAskedFor) {
  const TimelineOptions options = parsed({});
  EXPECT_FALSE(options.record);
  EXPECT_EQ(options.picture_batches, kDefaultTimelineBatches);
  EXPECT_TRUE(options.trace_path.empty());
  EXPECT_EQ(options.source, TimelineSource::automatic);
}

TEST(TimelineOptions, TimelineSourceDefaultsToAuto) {
  const TimelineOptions options = parsed({"--timeline"});
  EXPECT_TRUE(options.record);
  EXPECT_EQ(options.source, TimelineSource::automatic);
  EXPECT_STREQ(to_string(options.source), "auto");
}

TEST(TimelineOptions, EveryTimelineSourceIsReadAndImpliesTimeline) {
  const std::vector<std::pair<std::string, TimelineSource>> cases = {
      {"auto", TimelineSource::automatic}, {"cupti", TimelineSource::cupti}, {"events", TimelineSource::events}};
  for (const auto& [text, source] : cases) {
    const TimelineOptions options = parsed({"--timeline-source", text});
    EXPECT_EQ(options.source, source) << text;
    EXPECT_TRUE(options.record) << "--timeline-source " << text << " must imply --timeline";
    EXPECT_EQ(to_string(options.source), text);
    // Given together with --timeline, the same.
    EXPECT_EQ(parsed({"--timeline", "--timeline-source", text}).source, source) << text;
  }
}

TEST(TimelineOptions, BadTimelineSourceIsAUsageError) {
  for (const char* bad : {"bogus", "", "CUPTI", "event", "auto,events"}) {
    try {
      parsed({"--timeline-source", bad});
      ADD_FAILURE() << "--timeline-source '" << bad << "' was accepted";
    } catch (const UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("--timeline-source"), std::string::npos) << error.what();
    }
  }
  EXPECT_THROW(parsed({"--timeline-source", "cupti", "--timeline-source", "events"}), UsageError);
}

TEST(TimelineOptions, EventsRefusedWhereTheTimelineIsAGraphReplay) {
  try {
    parsed({"--timeline-source", "events"}, kGraphReplay);
    ADD_FAILURE() << "--timeline-source events accepted for a graph replay";
  } catch (const UsageError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("--timeline-source events"), std::string::npos) << message;
    EXPECT_NE(message.find("graph nodes can't be timed with CUDA events"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  }
  // The other sources, and no source at all, stay allowed there.
  EXPECT_EQ(parsed({"--timeline-source", "cupti"}, kGraphReplay).source, TimelineSource::cupti);
  EXPECT_EQ(parsed({"--timeline-source", "auto"}, kGraphReplay).source, TimelineSource::automatic);
  EXPECT_FALSE(parsed({}, kGraphReplay).record);
  // ...and events stay allowed where events are possible (the default).
  EXPECT_EQ(parsed({"--timeline-source", "events"}).source, TimelineSource::events);
}

TEST(TimelineOptions, TimelineAndPictureBatches) {
  const TimelineOptions options = parsed({"--timeline", "--timeline-batches", "3"});
  EXPECT_TRUE(options.record);
  EXPECT_EQ(options.picture_batches, 3);
  EXPECT_TRUE(options.trace_path.empty());
}

TEST(TimelineOptions, TraceImpliesTimeline) {
  testing::TempDir dir;
  const TimelineOptions options = parsed({"--trace", dir.file("t.json")});
  EXPECT_TRUE(options.record);
  EXPECT_EQ(options.trace_path, dir.file("t.json"));
  EXPECT_TRUE(dir.entries().empty()) << "parsing must not create the trace file";
}

TEST(TimelineOptions, BadValuesAreUsageErrors) {
  testing::TempDir dir;
  EXPECT_THROW(parsed({"--timeline-batches", "0"}), UsageError);
  EXPECT_THROW(parsed({"--timeline-batches", "-3"}), UsageError);
  EXPECT_THROW(parsed({"--timeline-batches", "x"}), UsageError);
  EXPECT_THROW(parsed({"--trace", "/nonexistent-dir/trace.json"}), UsageError);
  EXPECT_THROW(parsed({"--trace", dir.path()}), UsageError);
}

std::vector<std::string> stages_with_timeline() {
  std::vector<std::string> binaries;
#ifdef CSG_STAGE01_BINARY
  binaries.emplace_back(CSG_STAGE01_BINARY);
#endif
#ifdef CSG_STAGE03_BINARY
  binaries.emplace_back(CSG_STAGE03_BINARY);
#endif
#ifdef CSG_STAGE04_BINARY
  binaries.emplace_back(CSG_STAGE04_BINARY);
#endif
  return binaries;
}

struct BadCase {
  std::vector<std::string> args;
  std::string must_mention;
};

TEST(TimelineOptionsCli, EveryStageRefusesBadValuesBeforeAnyCudaCall) {
  const std::vector<std::string> binaries = stages_with_timeline();
  ASSERT_FALSE(binaries.empty()) << "no stage with timeline options is built";
  const std::vector<BadCase> cases = {
      {{"--timeline", "--timeline-batches", "0"}, "--timeline-batches takes an integer in [1, "},
      {{"--timeline-batches", "abc"}, "--timeline-batches takes an integer"},
      {{"--trace", "/nonexistent-dir/trace.json"}, "--trace"},
      {{"--trace", "{dir}"}, "is a directory"},
      {{"--timeline-source", "bogus"}, "--timeline-source takes one of auto|cupti|events"},
  };
  for (const std::string& binary : binaries) {
    for (const BadCase& bad : cases) {
      testing::TempDir dir;
      std::vector<std::string> argv{binary};
      for (const std::string& arg : bad.args) argv.push_back(arg == "{dir}" ? dir.path() : arg);
      argv.insert(argv.end(), {"--json", dir.file("out.json")});
      // With every GPU hidden: 2 (usage), not 77 (no device), shows the check
      // comes before any CUDA call.
      const testing::ProcessResult run = testing::run_process(argv, {"CUDA_VISIBLE_DEVICES="});
      const std::string label = binary + " " + ::testing::PrintToString(bad.args);
      EXPECT_TRUE(testing::refused_as_usage(run, bad.must_mention, dir)) << label;
    }
  }
}

TEST(TimelineOptionsCli, EveryStageListsTheSameThreeFlags) {
  const std::vector<std::string> binaries = stages_with_timeline();
  ASSERT_FALSE(binaries.empty()) << "no stage with timeline options is built";
  for (const std::string& binary : binaries) {
    const testing::ProcessResult run = testing::run_process({binary, "--help"});
    EXPECT_EQ(run.exit_code, kExitOk) << binary;
    for (const char* flag : {"--timeline ", "--timeline-batches", "--trace", "--timeline-source"}) {
      EXPECT_NE(run.out.find(flag), std::string::npos) << binary << " --help lacks " << flag << "\n" << run.out;
    }
  }
}

}  // namespace
}  // namespace csg
