// The timeline options, spelled the same in every stage that records one:
//   --timeline              record one more, untimed run and draw it
//   --timeline-batches N    how many batches the picture shows (default 16)
//   --trace FILE            also write that run as Chrome trace-event JSON; implies --timeline
//   --timeline-source S     how the run is timed; implies --timeline:
//                             auto    CUPTI, or event pairs if CUPTI can't start (the default)
//                             cupti   CUPTI only: if it can't start, say why and record nothing
//                             events  a pair of CUDA events around every op (op_scope.hpp), even
//                                     where CUPTI works; refused by a stage whose timeline is a
//                                     graph replay (stage 04): graph nodes can't be timed with events
// Read and validated with the other options, before any CUDA call, so an
// unwritable --trace path is refused (exit 2) on a machine with no GPU too.
#pragma once

#include <string>

#include "cli/options.hpp"

namespace csg {

// 16 batches of the article's workload fill a 100-column terminal with
// about 2 columns per kernel at 8 streams: readable, and enough to see the stagger.
inline constexpr int kDefaultTimelineBatches = 16;
inline constexpr int kMaxTimelineBatches = 1000000;

// `auto` is a keyword, hence `automatic`.
enum class TimelineSource { automatic, cupti, events };

const char* to_string(TimelineSource source);  // "auto", "cupti", "events"

// What the stage's recorded run allows.
struct TimelineSupport {
  // false: the recorded run is a graph replay (stage 04). A CUDA event
  // recorded during capture becomes no node of the graph, so nothing inside
  // a replay can be timed with event pairs; --timeline-source events is refused.
  bool events_possible = true;
};

struct TimelineOptions {
  bool record = false;                              // --timeline, --trace or --timeline-source
  int picture_batches = kDefaultTimelineBatches;    // --timeline-batches
  std::string trace_path;                           // --trace; empty: no trace file
  TimelineSource source = TimelineSource::automatic;  // --timeline-source
};

void add_timeline_options(StageCli& cli, const TimelineSupport& support = {});

// After cli.parse(). Throws UsageError when --trace names a path that can't
// be written (its directory is missing, or it is a directory), and for
// --timeline-source events where `support.events_possible` is false.
TimelineOptions read_timeline_options(const StageCli& cli, const TimelineSupport& support = {});

}  // namespace csg
