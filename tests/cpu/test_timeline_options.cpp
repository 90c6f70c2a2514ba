// The timeline options (--timeline-batches, --trace), shared
// through timeline/stage_timeline.hpp: parsed the same way in process, and
// refused the same way (exit 2, one line naming the flag, before any CUDA
// call, no file written) by every command that has them (each stage's
// "timeline" subcommand); and the "timeline" object of the results JSON.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/errors.hpp"
#include "cli/options.hpp"
#include "run_process.hpp"
#include "stage_binaries.hpp"
#include "stage_commands.hpp"
#include "usage_checks.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg {
namespace cpu_timeline_options {

TimelineOptions parsed(const std::vector<std::string>& args) {
  StageCli cli("test_stage", "a stage with timeline options");
  add_timeline_options(cli);
  const auto options = cli.parse(args);
  if (!options) throw std::logic_error("--help in a test");
  return read_timeline_options(cli);
}

TEST(TimelineOptions, ATimelineSubcommandRecordsSixteenBatchesByDefault) {
  const TimelineOptions options = parsed({});
  EXPECT_TRUE(options.record);
  EXPECT_EQ(options.picture_batches, kDefaultTimelineBatches);
  EXPECT_TRUE(options.trace_path.empty());
}

TEST(TimelineOptions, PictureBatchesAndTrace) {
  testing::TempDir dir;
  const TimelineOptions options = parsed({"--timeline-batches", "3", "--trace", dir.file("t.json")});
  EXPECT_TRUE(options.record);
  EXPECT_EQ(options.picture_batches, 3);
  EXPECT_EQ(options.trace_path, dir.file("t.json"));
  EXPECT_TRUE(dir.entries().empty()) << "parsing must not create the trace file";
}

TEST(TimelineOptions, ThereIsNoTimelineSwitch) {  // the subcommand is the switch
  EXPECT_THROW(parsed({"--timeline"}), UsageError);
}

TEST(TimelineOptions, BadValuesAreUsageErrors) {
  testing::TempDir dir;
  EXPECT_THROW(parsed({"--timeline-batches", "0"}), UsageError);
  EXPECT_THROW(parsed({"--timeline-batches", "-3"}), UsageError);
  EXPECT_THROW(parsed({"--timeline-batches", "x"}), UsageError);
  EXPECT_THROW(parsed({"--trace", "/nonexistent-dir/trace.json"}), UsageError);
  EXPECT_THROW(parsed({"--trace", dir.path()}), UsageError);
}

// Every command of every stage that records a timeline: those whose --help
// lists --timeline-batches (each stage's "timeline" subcommand).
std::vector<testing::StageCommand> timeline_commands() {
  std::vector<testing::StageCommand> commands;
  for (const std::string& binary : testing::stage_binaries()) {
    for (testing::StageCommand& command : testing::stage_commands(binary)) {
      if (command.has("timeline-batches")) commands.push_back(std::move(command));
    }
  }
  return commands;
}

TEST(TimelineOptionsCli, EveryTimelineCommandRefusesBadValuesBeforeAnyCudaCall) {
  const std::vector<testing::StageCommand> commands = timeline_commands();
  // 01, 03 and 04 at least draw their runs.
  ASSERT_GE(commands.size(), 3U) << "fewer than three commands with timeline options";
  const std::vector<testing::BadCase> cases = {
      {{"--timeline-batches", "0"}, "--timeline-batches takes an integer in [1, "},
      {{"--timeline-batches", "abc"}, "--timeline-batches takes an integer"},
      {{"--trace", "/nonexistent-dir/trace.json"}, "--trace"},
      {{"--trace", "{dir}"}, "is a directory"},
  };
  for (const testing::StageCommand& command : commands) {
    EXPECT_TRUE(command.has("trace")) << command.label() << " has --timeline-batches but no --trace";
    for (const testing::BadCase& bad : cases) {
      // With every GPU hidden: 2 (usage), not 77 (no device), shows the check
      // comes before any CUDA call.
      testing::TempDir dir;
      std::vector<std::string> args = testing::in_dir(bad.args, dir);
      args.insert(args.end(), {"--json", dir.file("out.json")});
      EXPECT_TRUE(testing::refused_as_usage(testing::run_process(command.argv(args), {"CUDA_VISIBLE_DEVICES="}),
                                            bad.must_mention, dir))
          << command.label() << " " << ::testing::PrintToString(bad.args);
    }
  }
}

TEST(TimelineOptionsCli, EveryStageHasATimelineSubcommandWithBothFlags) {
  for (const std::string& binary : testing::stage_binaries()) {
    int timelines = 0;
    for (const testing::StageCommand& command : testing::stage_commands(binary)) {
      if (command.subcommand != "timeline") continue;
      ++timelines;
      EXPECT_EQ(command.help_exit_code, kExitOk) << command.label();
      EXPECT_TRUE(command.has("timeline-batches")) << command.label() << " lacks --timeline-batches:\n" << command.help;
      EXPECT_TRUE(command.has("trace")) << command.label() << " lacks --trace:\n" << command.help;
    }
    EXPECT_EQ(timelines, 1) << binary << "'s --help lists no timeline subcommand";
  }
}

TEST(StageTimelineJson, KeepsEveryFieldAndSaysWhyWhenNothingWasRecorded) {
  StageTimeline timeline;
  timeline.recorded.available = true;
  timeline.recorded.source = "cupti";
  timeline.recorded.labelling = "stream ids";
  timeline.recorded.timeline.row_names = {"default stream"};
  for (const auto& [kind, start_us, end_us] : {std::tuple{OpKind::h2d, 0.0, 10.0}, std::tuple{OpKind::kernel, 10.0, 50.0},
                                                std::tuple{OpKind::d2h, 50.0, 60.0}}) {
    TimelineOp op;
    op.kind = kind;
    op.batch = 0;
    op.start_us = start_us;
    op.end_us = end_us;
    timeline.recorded.timeline.ops.push_back(op);
  }
  timeline.check.passed = true;
  timeline.median_before_ms = 1.5;
  TimelineOptions options;
  options.record = true;

  const nlohmann::json doc = to_json(timeline, options);
  EXPECT_EQ(doc.at("recorded"), true);
  EXPECT_EQ(doc.at("source"), "cupti");
  EXPECT_EQ(doc.at("labelling"), "stream ids");
  EXPECT_EQ(doc.at("ops"), 3);
  EXPECT_EQ(doc.at("rows"), std::vector<std::string>{"default stream"});
  for (const char* field : {"ignored", "dropped", "notes", "verified", "median_before_ms", "overlap"}) {
    EXPECT_TRUE(doc.contains(field)) << field << " missing from " << doc.dump(1);
  }
  EXPECT_NEAR(doc.at("overlap").at("wall_ms").get<double>(), 0.06, 1e-12);
  EXPECT_FALSE(doc.contains("median_after_ms")) << "nothing was re-timed";

  StageTimeline missing;
  missing.recorded.unavailable_reason = "CUPTI could not start (busy)";
  const nlohmann::json none = to_json(missing, options);
  EXPECT_EQ(none.at("recorded"), false);
  EXPECT_EQ(none.at("unavailable_reason"), missing.recorded.unavailable_reason);
  EXPECT_FALSE(none.contains("source")) << "nothing was recorded, so nothing timed it";
  EXPECT_TRUE(missing.passed()) << "a timeline CUPTI could not record is reported, not failed";
}

}  // namespace cpu_timeline_options
}  // namespace csg
