// The timeline options, spelled the same in every stage that records one:
//   --timeline              record one more, untimed run with CUPTI and draw it
//   --timeline-batches N    how many batches the picture shows (default 16)
//   --trace FILE            also write that run as Chrome trace-event JSON; implies --timeline
// Read and validated with the other options, before any CUDA call, so an
// unwritable --trace path is refused (exit 2) on a machine with no GPU too.
#pragma once

#include <string>

#include "options.hpp"

namespace csg {

// 16 batches of the article's workload fill a 100-column terminal with
// about 2 columns per kernel at 8 streams: readable, and enough to see the stagger.
inline constexpr int kDefaultTimelineBatches = 16;
inline constexpr int kMaxTimelineBatches = 1000000;

struct TimelineOptions {
  bool record = false;                              // --timeline, or --trace
  int picture_batches = kDefaultTimelineBatches;    // --timeline-batches
  std::string trace_path;                           // --trace; empty: no trace file
};

void add_timeline_options(StageCli& cli);

// After cli.parse(). Throws UsageError when --trace names a path that can't
// be written (its directory is missing, or it is a directory).
TimelineOptions read_timeline_options(const StageCli& cli);

}  // namespace csg
