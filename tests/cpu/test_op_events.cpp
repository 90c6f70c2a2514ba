// The event-pair timeline's host half on made-up numbers: ops timed by event
// pairs become exactly the Timeline expected (rows, batches, kinds, times,
// bytes, FLOPs, what is left out); the notes say how it was timed; the
// decisions record_timeline takes without a GPU (a graph replay, an
// experiment not issued through OpScope); the JSON's source fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timeline/cupti_recorder.hpp"
#include "timeline/op_events.hpp"
#include "02_pinned_vs_pageable/overlap_timeline.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg {
namespace {

// Times are µs from differences of ms values: equal to well below a ns.
constexpr double kTimeToleranceUs = 1e-9;
constexpr double kH2dBytes = 4096.0;
constexpr double kD2hBytes = 2048.0;
constexpr double kFlopsPerKernel = 262144.0;

bool mentions(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

TEST(TimelineFromTimedOps, ExactRowsBatchesKindsAndTimes) {
  const std::vector<TimedOp> ops = {
      {.kind = OpKind::h2d, .batch = 0, .row = 0, .start_ms = 1.000, .end_ms = 1.010, .bytes = kH2dBytes},
      {.kind = OpKind::kernel, .batch = 0, .row = 0, .start_ms = 1.010, .end_ms = 1.050},
      {.kind = OpKind::h2d, .batch = 1, .row = 1, .start_ms = 1.005, .end_ms = 1.015, .bytes = kH2dBytes},
      {.kind = OpKind::d2h, .batch = 0, .row = 0, .start_ms = 1.050, .end_ms = 1.060, .bytes = kD2hBytes},
      {.kind = OpKind::other, .batch = 0, .row = 0, .start_ms = 0.5, .end_ms = 0.6},      // ignored: kind
      {.kind = OpKind::kernel, .batch = 1, .row = -1, .start_ms = 0.2, .end_ms = 0.3},    // ignored: no row
      {.kind = OpKind::kernel, .batch = 7, .row = 2, .start_ms = 0.1, .end_ms = 0.4},     // ignored: row 2 of 2
      {.kind = OpKind::d2h, .batch = 1, .row = 1, .start_ms = 1.070, .end_ms = 1.065, .bytes = kD2hBytes},
      {.kind = OpKind::h2d, .batch = 2, .row = 1, .start_ms = 1.000, .end_ms = 1.002, .bytes = kH2dBytes},
  };
  const LabelResult result = timeline_from_timed_ops(ops, {"stream 0", "stream 1"}, kFlopsPerKernel);
  EXPECT_EQ(result.ignored, 3);
  EXPECT_EQ(result.timeline.row_names, (std::vector<std::string>{"stream 0", "stream 1"}));

  struct Expected {
    OpKind kind;
    int row;
    int batch;
    double start_us;
    double end_us;
    double bytes;
    double flops;
  };
  // Sorted by (start, row): the two ops starting at 1.000 ms in row order;
  // times from the earliest kept op (the ignored ones start earlier and
  // must not move the origin); the d2h whose end is before its start
  // becomes zero-length at its start.
  const std::vector<Expected> expected = {
      {OpKind::h2d, 0, 0, 0.0, 10.0, kH2dBytes, 0.0},
      {OpKind::h2d, 1, 2, 0.0, 2.0, kH2dBytes, 0.0},
      {OpKind::h2d, 1, 1, 5.0, 15.0, kH2dBytes, 0.0},
      {OpKind::kernel, 0, 0, 10.0, 50.0, 0.0, kFlopsPerKernel},
      {OpKind::d2h, 0, 0, 50.0, 60.0, kD2hBytes, 0.0},
      {OpKind::d2h, 1, 1, 70.0, 70.0, kD2hBytes, 0.0},
  };
  ASSERT_EQ(result.timeline.ops.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const TimelineOp& op = result.timeline.ops[i];
    const Expected& want = expected[i];
    EXPECT_EQ(op.kind, want.kind) << "op " << i;
    EXPECT_EQ(op.row, want.row) << "op " << i;
    EXPECT_EQ(op.batch, want.batch) << "op " << i;
    EXPECT_NEAR(op.start_us, want.start_us, kTimeToleranceUs) << "op " << i;
    EXPECT_NEAR(op.end_us, want.end_us, kTimeToleranceUs) << "op " << i;
    EXPECT_EQ(op.bytes, want.bytes) << "op " << i;
    EXPECT_EQ(op.flops, want.flops) << "op " << i;
  }
}

TEST(TimelineFromTimedOps, NothingKeptGivesNamedRowsAndNoOps) {
  const LabelResult none = timeline_from_timed_ops({}, {"default stream"}, kFlopsPerKernel);
  EXPECT_TRUE(none.timeline.ops.empty());
  EXPECT_EQ(none.ignored, 0);
  EXPECT_EQ(none.timeline.row_names, std::vector<std::string>{"default stream"});

  const LabelResult all_out = timeline_from_timed_ops(
      {{.kind = OpKind::h2d, .batch = 0, .row = 1, .start_ms = 0.0, .end_ms = 1.0}}, {"default stream"}, 0.0);
  EXPECT_TRUE(all_out.timeline.ops.empty());
  EXPECT_EQ(all_out.ignored, 1);
}

TEST(EventPairNotes, SayWhyAndHowTheOpsWereTimed) {
  const std::string reason = "cuptiActivityEnable failed: CUPTI_ERROR_NOT_INITIALIZED";
  const std::vector<std::string> fallback = event_pair_notes(reason);
  EXPECT_TRUE(mentions(fallback, "CUPTI could not start (" + reason + ")")) << ::testing::PrintToString(fallback);
  for (const char* text : {"pair of CUDA events", "on its stream", "0.5 µs", "may themselves add a little time",
                           "not from the copy engines"}) {
    EXPECT_TRUE(mentions(fallback, text)) << text << "\n" << ::testing::PrintToString(fallback);
  }

  const std::vector<std::string> asked = event_pair_notes("");
  EXPECT_TRUE(mentions(asked, "--timeline-source events")) << ::testing::PrintToString(asked);
  EXPECT_FALSE(mentions(asked, "could not start")) << ::testing::PrintToString(asked);
  EXPECT_TRUE(mentions(asked, "pair of CUDA events"));
}

TEST(EventPairNotes, GraphReplaysHaveNoFallback) {
  const std::string fallback = no_event_pairs_for_graphs("no permission");
  EXPECT_NE(fallback.find("CUPTI could not start (no permission)"), std::string::npos) << fallback;
  EXPECT_NE(fallback.find("graph nodes can't be timed with CUDA events"), std::string::npos) << fallback;
  EXPECT_NE(fallback.find("becomes no node"), std::string::npos) << fallback;
  const std::string asked = no_event_pairs_for_graphs("");
  EXPECT_EQ(asked.find("could not start"), std::string::npos) << asked;
  EXPECT_NE(asked.find("graph nodes can't be timed with CUDA events"), std::string::npos) << asked;
}

// These decisions return before any CUDA call, so they run without a GPU.
TEST(RecordTimeline, EventPairsRefuseAGraphReplayWithoutRunningIt) {
  bool ran = false;
  const std::function<void()> run = [&ran] { ran = true; };
  // A replay whose streams the stage can't name...
  const RecordedTimeline unnamed = record_timeline({.row_names = {"stream 0"}, .batches = 4, .pool = 1}, run,
                                                   {.source = TimelineSource::events});
  // ...and one labelled by graph node, streams or not.
  const RecordedTimeline by_node =
      record_timeline({.streams = {nullptr}, .graph_nodes = {{7, NodeLabel{0, 0}}}, .batches = 1}, run,
                      {.source = TimelineSource::events});
  for (const RecordedTimeline* recorded : {&unnamed, &by_node}) {
    EXPECT_FALSE(recorded->available);
    EXPECT_NE(recorded->unavailable_reason.find("graph nodes can't be timed with CUDA events"), std::string::npos)
        << recorded->unavailable_reason;
    EXPECT_TRUE(recorded->timeline.ops.empty());
  }
  EXPECT_FALSE(ran) << "a run was called that could not be timed";
}

TEST(RecordTimeline, AnExperimentOutsideOpScopeSaysEventPairsAreNotAvailable) {
  bool ran = false;
  const RecordedTimeline recorded =
      record_timeline({.streams = {nullptr}, .row_names = {"default stream"}, .batches = 1}, [&ran] { ran = true; },
                      {.source = TimelineSource::events, .no_event_pairs = "issued by hand"});
  EXPECT_FALSE(recorded.available);
  EXPECT_NE(recorded.unavailable_reason.find("event pairs: not available for this experiment (issued by hand)"),
            std::string::npos)
      << recorded.unavailable_reason;
  EXPECT_FALSE(ran);

  // Stage 02's overlap pictures, asked for with event pairs.
  bool overlap_ran = false;
  const OverlapPicture picture =
      record_overlap_timeline({HostMemory::pinned, CopyDirection::h2d, false}, nullptr, nullptr,
                              [&overlap_ran] { overlap_ran = true; }, TimelineSource::events);
  EXPECT_FALSE(picture.recorded.available);
  EXPECT_NE(picture.recorded.unavailable_reason.find("event pairs: not available for this experiment"),
            std::string::npos)
      << picture.recorded.unavailable_reason;
  EXPECT_FALSE(overlap_ran);
}

TEST(StageTimelineJson, NamesTheSourceAndKeepsEveryField) {
  StageTimeline timeline;
  timeline.recorded.available = true;
  timeline.recorded.source = kEventPairsLabelling;
  timeline.recorded.labelling = kEventPairsLabelling;
  timeline.recorded.notes = event_pair_notes("");
  timeline.recorded.timeline = timeline_from_timed_ops(
                                   {{.kind = OpKind::h2d, .batch = 0, .row = 0, .start_ms = 0.0, .end_ms = 0.01},
                                    {.kind = OpKind::kernel, .batch = 0, .row = 0, .start_ms = 0.01, .end_ms = 0.05},
                                    {.kind = OpKind::d2h, .batch = 0, .row = 0, .start_ms = 0.05, .end_ms = 0.06}},
                                   {"default stream"}, kFlopsPerKernel)
                                   .timeline;
  timeline.check.passed = true;
  timeline.median_before_ms = 1.5;
  TimelineOptions options;
  options.record = true;
  options.source = TimelineSource::events;

  const nlohmann::json doc = to_json(timeline, options);
  EXPECT_EQ(doc.at("recorded"), true);
  EXPECT_EQ(doc.at("source"), "event pairs");
  EXPECT_EQ(doc.at("labelling"), "event pairs");
  EXPECT_EQ(doc.at("requested_source"), "events");
  EXPECT_EQ(doc.at("ops"), 3);
  EXPECT_EQ(doc.at("rows"), std::vector<std::string>{"default stream"});
  for (const char* field : {"ignored", "dropped", "notes", "verified", "median_before_ms", "overlap"}) {
    EXPECT_TRUE(doc.contains(field)) << field << " missing from " << doc.dump(1);
  }
  EXPECT_NEAR(doc.at("overlap").at("wall_ms").get<double>(), 0.06, 1e-12);

  StageTimeline missing;
  missing.recorded.unavailable_reason = "CUPTI could not start (busy); --timeline-source cupti: no event-pair fallback";
  options.source = TimelineSource::cupti;
  const nlohmann::json none = to_json(missing, options);
  EXPECT_EQ(none.at("recorded"), false);
  EXPECT_EQ(none.at("unavailable_reason"), missing.recorded.unavailable_reason);
  EXPECT_EQ(none.at("requested_source"), "cupti");
  EXPECT_FALSE(none.contains("source")) << "nothing was recorded, so nothing timed it";
}

}  // namespace
}  // namespace csg
