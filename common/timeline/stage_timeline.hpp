// A stage's timeline subcommand: its options (--timeline-batches, --trace),
// the recording, its report. After the timed rounds: poison, record one run
// with CUPTI, verify it, then re-time the stage's main variant with CUPTI
// loaded but recording nothing (recording must not change the timed medians,
// and this shows it), and report the picture, the overlap figures, the cost of
// recording and the trace (experiment/report.hpp's add_timeline).
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.hpp"
#include "cuda/stream_pool.hpp"
#include "measure/stats.hpp"
#include "timeline/cupti_recorder.hpp"
#include "batches.hpp"

namespace csg {

// 16 batches of the article's workload fill a 100-column terminal with
// about 2 columns per kernel at 8 streams: readable, and enough to see the stagger.
inline constexpr int kDefaultTimelineBatches = 16;
inline constexpr int kMaxTimelineBatches = 1000000;

struct TimelineOptions {
  bool record = false;                            // true in a timeline subcommand
  int picture_batches = kDefaultTimelineBatches;  // --timeline-batches
  std::string trace_path;                         // --trace; empty: no trace file
};

// --timeline-batches and --trace, for a timeline subcommand's StageCli; read after cli.parse().
void add_timeline_options(StageCli& cli);
TimelineOptions read_timeline_options(const StageCli& cli);

struct TimelineJob {
  TimelineRun plan;                      // rows, batches, pool (see cupti_recorder.hpp)
  std::vector<std::string> notes{};      // how the stage prepared the labels, printed under the picture
  std::function<void()> poison;          // NaN into every output, before each run
  std::function<VerifyResult()> verify;  // every batch, after the recorded run and after the re-timing
  // The stage's main timed variant (one run, returning its measured time):
  // re-timed for the plan's warm-up and repeats once the recording is over.
  std::function<Millis()> timed_run;
  // The run to record; empty: one call of timed_run. (Stage 04 records a
  // replay of a second exec of the same graph.)
  std::function<void()> recorded_run{};
  Summary timed{};  // what the stage's timed rounds measured for timed_run, before any recording
};

struct StageTimeline {
  RecordedTimeline recorded;
  VerifyResult check;             // the recorded run
  double median_before_ms = 0.0;  // the stage's timed rounds, before CUPTI was used
  std::optional<Summary> after;   // timed_run re-timed after the recording (nothing if not recorded)
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
//   {"recorded": true, "source": "cupti", "labelling": "stream ids" (or "graph node ids",
//    "first appearance"), "ops": 300, "rows": ["stream 0", ...],
//    "ignored": 0, "dropped": 0, "verified": true,
//    "overlap": {"wall_ms", "h2d_busy", "compute_busy", "d2h_busy", "copy_and_compute"},
//    "median_before_ms", "median_after_ms", "after_over_before", "after_verified", "trace_file"}
// or {"recorded": false, "unavailable_reason": "..."}.
nlohmann::json to_json(const StageTimeline& timeline, const TimelineOptions& options);

}  // namespace csg
