#include "timeline_options.hpp"

namespace csg {

void add_timeline_options(StageCli& cli) {
  cli.add_flag("timeline", "After the timed runs, record one more run with CUPTI and draw it as a timeline");
  cli.add_int("timeline-batches", "Batches the timeline picture shows", kDefaultTimelineBatches, 1,
              kMaxTimelineBatches);
  cli.add_text("trace", "Write the recorded run as Chrome trace-event JSON (Perfetto); implies --timeline", "",
               "FILE");
}

TimelineOptions read_timeline_options(const StageCli& cli) {
  TimelineOptions options;
  options.trace_path = cli.get_string("trace");
  if (!options.trace_path.empty()) check_output_path("trace", options.trace_path);
  options.record = cli.get_flag("timeline") || !options.trace_path.empty();
  options.picture_batches = static_cast<int>(cli.get_int("timeline-batches"));
  return options;
}

}  // namespace csg
