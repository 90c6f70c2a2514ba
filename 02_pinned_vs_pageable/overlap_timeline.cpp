#include "overlap_timeline.hpp"

#include <algorithm>

#include "timeline/timeline.hpp"

namespace csg {
namespace {

// Gap between two cases laid one after another in the trace file.
constexpr double kTraceGapUs = 1000.0;

}  // namespace

std::vector<OverlapCase> overlap_timeline_cases(const std::vector<HostMemory>& kinds) {
  auto has = [&](HostMemory kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
  std::vector<OverlapCase> cases;
  if (has(HostMemory::pageable)) {
    cases.push_back({HostMemory::pageable, CopyDirection::h2d, true});
    cases.push_back({HostMemory::pageable, CopyDirection::h2d, false});
  }
  if (has(HostMemory::pinned)) cases.push_back({HostMemory::pinned, CopyDirection::h2d, false});
  return cases;
}

std::string describe(const OverlapCase& c) {
  return std::string(to_string(c.kind)) + (c.direction == CopyDirection::h2d ? " H2D, " : " D2H, ") +
         (c.kernel_first ? "kernel then copy" : "copy then kernel");
}

OverlapPicture record_overlap_timeline(const OverlapCase& c, cudaStream_t kernel_stream, cudaStream_t copy_stream,
                                        const std::function<void()>& run, TimelineSource source) {
  // Two rows, one op each: as a "pool" of 2 with 2 "batches", the kernel is
  // batch 0 on row 0 and the copy batch 1 on row 1; the batch numbers mean
  // nothing here, so they are cleared after labelling.
  OverlapPicture result{describe(c), record_timeline({.streams = {kernel_stream, copy_stream},
                                                       .row_names = {"kernel stream", "copy stream"},
                                                       .batches = 2,
                                                       .pool = 2,
                                                       .flops_per_kernel = 0.0},
                                                      run,
                                                      {.source = source,
                                                       .event_run = {},
                                                       .no_event_pairs = "its copy and kernel are not issued "
                                                                         "through OpScope"})};
  for (TimelineOp& op : result.recorded.timeline.ops) op.batch = -1;
  return result;
}

void report_overlap_timelines(std::ostream& out, const std::vector<OverlapPicture>& timelines,
                              const std::string& trace_path) {
  Timeline all;  // every case, one after another, for the trace
  double offset_us = 0.0;
  for (const OverlapPicture& t : timelines) {
    out << '\n' << t.label << ':';
    report_timeline(out, t.recorded, 0, "", "");
    if (!t.recorded.available) continue;
    const int first_row = static_cast<int>(all.row_names.size());
    for (const std::string& row : t.recorded.timeline.row_names) all.row_names.push_back(t.label + ": " + row);
    double end_us = 0.0;
    for (TimelineOp op : t.recorded.timeline.ops) {
      op.row += first_row;
      op.start_us += offset_us;
      op.end_us += offset_us;
      end_us = std::max(end_us, op.end_us);
      all.ops.push_back(op);
    }
    offset_us = end_us + kTraceGapUs;
  }
  if (!trace_path.empty() && !all.ops.empty()) {
    write_chrome_trace(trace_path, all, "02_pinned_vs_pageable overlap");
    out << "trace (" << all.ops.size() << " operations, " << timelines.size() << " cases) written to " << trace_path
        << ": open it in https://ui.perfetto.dev\n";
  }
}

}  // namespace csg
