#include "timeline/op_events.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace csg {
namespace {

constexpr double kMicrosPerMilli = 1000.0;

bool is_pipeline_kind(OpKind kind) { return kind == OpKind::h2d || kind == OpKind::kernel || kind == OpKind::d2h; }

}  // namespace

LabelResult timeline_from_timed_ops(const std::vector<TimedOp>& ops, const std::vector<std::string>& row_names,
                                    double flops_per_kernel) {
  LabelResult result;
  result.timeline.row_names = row_names;
  const int rows = static_cast<int>(row_names.size());
  std::vector<const TimedOp*> kept;
  kept.reserve(ops.size());
  for (const TimedOp& op : ops) {
    if (!is_pipeline_kind(op.kind) || op.row < 0 || op.row >= rows) {
      ++result.ignored;
      continue;
    }
    kept.push_back(&op);
  }
  if (kept.empty()) return result;

  double origin_ms = std::numeric_limits<double>::max();
  for (const TimedOp* op : kept) origin_ms = std::min(origin_ms, op->start_ms);
  result.timeline.ops.reserve(kept.size());
  for (const TimedOp* op : kept) {
    TimelineOp out;
    out.kind = op->kind;
    out.row = op->row;
    out.batch = op->batch;
    out.start_us = (op->start_ms - origin_ms) * kMicrosPerMilli;
    out.end_us = (std::max(op->end_ms, op->start_ms) - origin_ms) * kMicrosPerMilli;
    if (op->kind == OpKind::kernel) {
      out.flops = flops_per_kernel;
    } else {
      out.bytes = op->bytes;
    }
    result.timeline.ops.push_back(std::move(out));
  }
  std::stable_sort(result.timeline.ops.begin(), result.timeline.ops.end(),
                   [](const TimelineOp& a, const TimelineOp& b) {
                     return std::tie(a.start_us, a.row) < std::tie(b.start_us, b.row);
                   });
  return result;
}

std::vector<std::string> event_pair_notes(const std::string& cupti_reason) {
  std::vector<std::string> notes;
  notes.push_back(cupti_reason.empty()
                      ? "event pairs asked for (--timeline-source events): CUPTI was not used"
                      : "CUPTI could not start (" + cupti_reason + "); timed with event pairs instead");
  // cudaEventElapsedTime resolves about 0.5 µs (CUDA-NOTES.md): nothing next
  // to a 0.2 ms kernel, but a 64 KiB copy (~2 µs at 30 GB/s) is a few ticks.
  notes.push_back("each copy and kernel was timed by a pair of CUDA events recorded around it on its stream "
                  "(~0.5 µs resolution); the events recorded between the operations may themselves add a "
                  "little time");
  notes.push_back("the figures are from events, not from the copy engines: an op's span runs from when its "
                  "stream reached the start event to when it reached the end event, so time the op waited "
                  "for a copy engine or for SMs busy with another stream's work counts as its own");
  return notes;
}

std::string no_event_pairs_for_graphs(const std::string& cupti_reason) {
  std::string reason = cupti_reason.empty() ? std::string("event pairs were asked for")
                                            : "CUPTI could not start (" + cupti_reason + ")";
  return reason + ", and graph nodes can't be timed with CUDA events (an event recorded during capture becomes "
                  "no node of the graph; CUDA-NOTES.md), so this graph replay has no timeline";
}

}  // namespace csg
