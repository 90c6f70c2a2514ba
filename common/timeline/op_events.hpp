// The event-pair timeline's host half (no CUDA): ops timed by a pair of CUDA
// events (op_scope.hpp) become a Timeline, and the words that say how it was
// timed. Kept apart from the CUDA half so that the CPU tests can check the
// conversion on made-up numbers.
//
//   LabelResult labelled = timeline_from_timed_ops(ops, {"stream 0", "stream 1"}, work.flops_per_batch());
#pragma once

#include <string>
#include <vector>

#include "timeline/timeline.hpp"

namespace csg {

// One copy or kernel as a pair of events saw it. Unlike a CUPTI record, its
// batch and row are known exactly: the OpScope around it was told the batch,
// and its stream is looked up among the plan's.
struct TimedOp {
  OpKind kind = OpKind::other;
  int batch = -1;
  int row = -1;           // index of its stream in the plan; -1: a stream the plan does not name
  double start_ms = 0.0;  // cudaEventElapsedTime(base, start): relative to the log's base event
  double end_ms = 0.0;    // cudaEventElapsedTime(base, end)
  double bytes = 0.0;     // copies: what the OpScope was told (0: not told)
};

// The ops as a Timeline: rows named `row_names`, times in µs relative to the
// earliest kept op, sorted by (start, row), kernels carrying
// `flops_per_kernel`, copies their bytes. Left out (counted in `ignored`): ops
// of kind `other`, and ops whose row is not in [0, row_names.size()). An op
// whose end is before its start (events on one stream complete in order, so
// this would be a bug) becomes a zero-length op at its start.
LabelResult timeline_from_timed_ops(const std::vector<TimedOp>& ops, const std::vector<std::string>& row_names,
                                    double flops_per_kernel);

// The labelling of an event-pair timeline, as RecordedTimeline and the JSON say it.
inline constexpr const char* kEventPairsLabelling = "event pairs";

// Notes printed under an event-pair timeline: why there are no CUPTI figures
// (`cupti_reason`, or empty when event pairs were asked for with
// --timeline-source events), how each op was timed, and what that means for
// the figures.
std::vector<std::string> event_pair_notes(const std::string& cupti_reason);

// Why a graph replay has no timeline when CUPTI can't start (`cupti_reason`,
// or empty when event pairs were asked for): events can't time graph nodes.
std::string no_event_pairs_for_graphs(const std::string& cupti_reason);

}  // namespace csg
