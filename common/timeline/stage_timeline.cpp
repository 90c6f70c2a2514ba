#include "timeline/stage_timeline.hpp"

#include "stage.hpp"
#include "report/result.hpp"
#include "report/table.hpp"

namespace csg {
namespace {

constexpr double kMicrosPerMilli = 1000.0;
constexpr double kPercent = 100.0;

}  // namespace

void add_timeline_options(StageCli& cli) {
  cli.add_int("timeline-batches", "Batches the timeline picture shows", kDefaultTimelineBatches, 1,
              kMaxTimelineBatches);
  cli.add_output("trace", "Also write the recorded run as Chrome trace-event JSON (https://ui.perfetto.dev)");
}

TimelineOptions read_timeline_options(const StageCli& cli) {
  return {.record = true, .picture_batches = static_cast<int>(cli.get_int("timeline-batches")),
          .trace_path = cli.get_string("trace")};
}

bool StageTimeline::passed() const {
  return !recorded.available || (check.passed && (!after || after_check.passed));
}

std::vector<std::string> pool_row_names(int streams) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(streams));
  for (int i = 0; i < streams; ++i) names.push_back("stream " + std::to_string(i));
  return names;
}

TimelineRun pool_timeline_run(const StreamPool& pool, const Workload& work) {
  TimelineRun run{.row_names = pool_row_names(pool.size()), .batches = work.batches, .pool = pool.size(),
                  .flops_per_kernel = work.flops_per_batch()};
  for (int i = 0; i < pool.size(); ++i) run.streams.push_back(pool[i]);
  return run;
}

StageTimeline record_stage_timeline(const RepeatPlan& plan, const TimelineJob& job) {
  StageTimeline out;
  out.median_before_ms = job.timed.median_ms;
  job.poison();  // synchronous: nothing of it is still running when recording starts
  const std::function<void()> recorded_run =
      job.recorded_run ? job.recorded_run : std::function<void()>([&job] { static_cast<void>(job.timed_run()); });
  out.recorded = record_timeline(job.plan, recorded_run);
  out.recorded.notes.insert(out.recorded.notes.begin(), job.notes.begin(), job.notes.end());
  if (!out.recorded.available) return out;
  out.check = job.verify();

  // The same variant, timed as the stage timed it, now that CUPTI has been
  // loaded, has recorded and has been told to stop. The activity kinds are
  // disabled, so the driver no longer timestamps anything for CUPTI; if the
  // medians agree, recording costs the timed runs nothing.
  const TimedVariant again{
      .prepare = job.poison,
      .run = job.timed_run,
      .after_last = [&out, &job] { out.after_check = job.verify(); },
  };
  out.after = measure_interleaved(plan, {again}).front();
  return out;
}

void report_stage_timeline(std::ostream& out, const StageTimeline& timeline, const TimelineOptions& options,
                           const std::string& stage) {
  report_timeline(out, timeline.recorded, options.picture_batches, options.trace_path, stage);
  if (!timeline.recorded.available) return;
  out << "timeline run: " << timeline.check.message() << '\n';
  if (timeline.after) {
    const double before = timeline.median_before_ms;
    const double after = timeline.after->median_ms;
    out << "timed median before recording " << fixed(before, 3) << " ms, after recording " << fixed(after, 3)
        << " ms";
    if (before > 0.0) {
      out << " (" << (after >= before ? "+" : "") << fixed(kPercent * (after / before - 1.0), 1) << "%)";
    }
    out << "; recording is kept out of the timed runs\n";
    if (!timeline.after_check.passed) out << "re-timed runs: " << timeline.after_check.message() << '\n';
  }
}

nlohmann::json to_json(const StageTimeline& timeline, const TimelineOptions& options) {
  const RecordedTimeline& recorded = timeline.recorded;
  if (!recorded.available) {
    return {{"recorded", false}, {"unavailable_reason", recorded.unavailable_reason}};
  }
  nlohmann::json doc = {{"recorded", true},
                        {"source", recorded.source},
                        {"labelling", recorded.labelling},
                        {"ops", recorded.timeline.ops.size()},
                        {"rows", recorded.timeline.row_names},
                        {"ignored", recorded.ignored},
                        {"dropped", recorded.dropped},
                        {"notes", recorded.notes},
                        {"verified", timeline.check.passed},
                        {"median_before_ms", timeline.median_before_ms}};
  if (!recorded.timeline.ops.empty()) {
    const OverlapFigures figures = overlap_figures(recorded.timeline);
    doc["overlap"] = {{"wall_ms", figures.wall_us / kMicrosPerMilli},
                      {"h2d_busy", figures.h2d_busy},
                      {"compute_busy", figures.compute_busy},
                      {"d2h_busy", figures.d2h_busy},
                      {"copy_and_compute", figures.copy_and_compute}};
  }
  if (timeline.after) {
    doc["median_after_ms"] = timeline.after->median_ms;
    doc["after_samples"] = timeline.after->samples;
    doc["after_verified"] = timeline.after_check.passed;
    if (timeline.median_before_ms > 0.0) {
      doc["after_over_before"] = timeline.after->median_ms / timeline.median_before_ms;
    }
  }
  if (!options.trace_path.empty()) doc["trace_file"] = options.trace_path;
  return doc;
}

}  // namespace csg
