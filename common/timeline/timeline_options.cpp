#include "timeline/timeline_options.hpp"

#include "base/errors.hpp"

namespace csg {

const char* to_string(TimelineSource source) {
  switch (source) {
    case TimelineSource::automatic: return "auto";
    case TimelineSource::cupti: return "cupti";
    case TimelineSource::events: return "events";
  }
  return "auto";
}

void add_timeline_options(StageCli& cli, const TimelineSupport& support) {
  cli.add_flag("timeline",
               "After the timed runs, record one more run (see --timeline-source) and draw it as a timeline");
  cli.add_int("timeline-batches", "Batches the timeline picture shows", kDefaultTimelineBatches, 1,
              kMaxTimelineBatches);
  cli.add_text("trace", "Write the recorded run as Chrome trace-event JSON (Perfetto); implies --timeline", "",
               "FILE");
  // "events" stays a choice where it is refused, so that the refusal can say
  // why (graph nodes) instead of a bare "takes one of".
  cli.add_choice("timeline-source",
                 std::string("How the timeline run is timed (implies --timeline): auto = CUPTI, or a pair of CUDA "
                             "events around each copy and kernel if CUPTI can't start; cupti = CUPTI or nothing; "
                             "events = event pairs even where CUPTI works") +
                     (support.events_possible ? "" : " (not here: graph nodes can't be timed with events)"),
                 "auto", {"auto", "cupti", "events"});
}

TimelineOptions read_timeline_options(const StageCli& cli, const TimelineSupport& support) {
  TimelineOptions options;
  options.trace_path = cli.get_string("trace");
  if (!options.trace_path.empty()) check_output_path("trace", options.trace_path);
  const std::string& source = cli.get_string("timeline-source");
  options.source = source == "cupti"    ? TimelineSource::cupti
                   : source == "events" ? TimelineSource::events
                                        : TimelineSource::automatic;
  if (options.source == TimelineSource::events && !support.events_possible) {
    throw UsageError(
        "--timeline-source events is not possible here: this stage's timeline is a graph replay, and graph "
        "nodes can't be timed with CUDA events (an event recorded during capture becomes no node); use "
        "--timeline-source auto or cupti");
  }
  options.record = cli.get_flag("timeline") || !options.trace_path.empty() || cli.given("timeline-source");
  options.picture_batches = static_cast<int>(cli.get_int("timeline-batches"));
  return options;
}

}  // namespace csg
