// Stage 02's third experiment, drawn from what ran: one busy kernel on one
// stream and one cudaMemcpyAsync on another, recorded with CUPTI (one extra,
// untimed run per case). The picture shows the article's claim and where it
// is half true: from pageable memory, a copy issued after the kernel still
// runs beside it; a copy issued first holds the host, and the kernel starts
// only after it.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "timeline/cupti_recorder.hpp"
#include "async_overlap.hpp"

namespace csg {

// The cases worth drawing, of those measured: H2D from pageable memory with
// the kernel queued first and with the copy issued first, and from pinned
// memory issued first. Only kinds in `kinds` (pageable, pinned) are drawn.
std::vector<OverlapCase> overlap_timeline_cases(const std::vector<HostMemory>& kinds);

// "pageable H2D, kernel then copy"
std::string describe(const OverlapCase& c);

struct OverlapPicture {
  std::string label;
  RecordedTimeline recorded;
};

// Records `run` once with CUPTI: row 0 is `kernel_stream`, row 1 `copy_stream`.
// The experiment's copy and kernel are issued by stage 02 itself, not through
// OpScope, so there is no event-pair fallback: when CUPTI can't start, or
// `source` is events (--timeline-source), the picture is not recorded and
// says "event pairs: not available for this experiment".
OverlapPicture record_overlap_timeline(const OverlapCase& c, cudaStream_t kernel_stream, cudaStream_t copy_stream,
                                        const std::function<void()>& run,
                                        TimelineSource source = TimelineSource::automatic);

// One picture per case, with its overlap figures; with a trace path, every
// case in one Chrome trace, one after another in time, two tracks per case.
void report_overlap_timelines(std::ostream& out, const std::vector<OverlapPicture>& timelines,
                              const std::string& trace_path);

}  // namespace csg
