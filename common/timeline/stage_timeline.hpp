// A stage's --timeline, end to end: after the timed rounds, poison, record one
// run (CUPTI, or event pairs: --timeline-source), verify it, then re-time the stage's main variant with CUPTI
// still attached but recording nothing (issue 6, item 6: recording must not
// change the timed medians, and this shows it), and report the picture, the
// overlap figures, the cost of recording and the trace file.
//
//   std::optional<csg::StageTimeline> timeline;
//   if (timeline_options.record) {
//     timeline = csg::record_stage_timeline(options->plan, {
//         .plan = csg::pool_timeline_run(pool, work), .poison = ..., .verify = ...,
//         .timed_run = [&] { return pool_run(pool); }, .timed = stats_of_that_variant,
//         .source = timeline_options.source});
//   }
//   ...
//   if (timeline) csg::report_stage_timeline(std::cout, *timeline, timeline_options, "03_stream_pool_gemm");
//   json["timeline"] = csg::to_json(*timeline, timeline_options);
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timeline/cupti_recorder.hpp"
#include "measure/stats.hpp"
#include "workload/stream_pool.hpp"
#include "timeline/timeline_options.hpp"
#include "workload/verify.hpp"
#include "workload/workload.hpp"

namespace csg {

struct TimelineJob {
  TimelineRun plan;                      // rows, batches, pool (see cupti_recorder.hpp)
  std::vector<std::string> notes{};      // how the stage prepared the labels, printed under the picture
  std::function<void()> poison;          // NaN into every output, before each run
  std::function<VerifyResult()> verify;  // every batch, after the recorded run and after the re-timing
  // The stage's main timed variant (one run, returning its measured time):
  // re-timed for the plan's warm-up and repeats once the recording is over.
  std::function<Millis()> timed_run;
  // The run to record; empty: one call of timed_run. (Stage 04 records a
  // replay of a second exec of the same graph, see graph_timeline.hpp.)
  std::function<void()> recorded_run{};
  Summary timed{};  // what the stage's timed rounds measured for timed_run, before any recording
  // --timeline-source: CUPTI, event pairs, or CUPTI with event pairs as the fallback.
  TimelineSource source = TimelineSource::automatic;
  // The run to record with event pairs: the same work with every copy and
  // kernel inside an OpScope (op_scope.hpp). Empty: the run recorded with
  // CUPTI, which suits a run issued through csg::enqueue_h2d/gemm/d2h (stage
  // 03). Stage 01 records its inline loop with CUPTI but csg::run_serial_batches
  // with events.
  std::function<void()> event_run{};
};

struct StageTimeline {
  RecordedTimeline recorded;
  VerifyResult check;                // the recorded run
  double median_before_ms = 0.0;     // the stage's timed rounds, before CUPTI was used
  std::optional<Summary> after;      // timed_run re-timed after the recording (nothing if not recorded)
  VerifyResult after_check;
  // False only for a wrong result: a timeline that could not be recorded
  // (CUPTI unavailable) is reported, not failed.
  bool passed() const;
};

// One row per pool stream ("stream 0", "stream 1", ...), batch b on stream b % size.
TimelineRun pool_timeline_run(const StreamPool& pool, const Workload& work);
std::vector<std::string> pool_row_names(int streams);

StageTimeline record_stage_timeline(const RepeatPlan& plan, const TimelineJob& job);

// report_timeline (picture, overlap figures, notes, trace file), then whether
// the recorded run verified and the timed median before and after recording.
void report_stage_timeline(std::ostream& out, const StageTimeline& timeline, const TimelineOptions& options,
                           const std::string& stage);

// The results JSON's "timeline" object:
//   {"recorded": true, "source": "cupti" | "event pairs", "labelling": "stream ids" (or "graph node ids",
//    "first appearance", "event pairs"), "ops": 300, "rows": ["stream 0", ...],
//    "ignored": 0, "dropped": 0, "verified": true,
//    "overlap": {"wall_ms", "h2d_busy", "compute_busy", "d2h_busy", "copy_and_compute"},
//    "median_before_ms", "median_after_ms", "after_over_before", "after_verified", "trace_file"}
// or {"recorded": false, "unavailable_reason": "..."}; both also carry
// "requested_source": "auto" | "cupti" | "events" (--timeline-source).
nlohmann::json to_json(const StageTimeline& timeline, const TimelineOptions& options);

}  // namespace csg
