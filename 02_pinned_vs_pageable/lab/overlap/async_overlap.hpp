// The bookkeeping of stage 02's third experiment: does cudaMemcpyAsync from
// pageable memory overlap a kernel on another stream, and what does it cost
// the host? The stage supplies the three runs (the lesson); this file makes
// the cases, runs them in interleaved rounds and summarises them.
//
// Cases: every kind given × {h2d, d2h} × {kernel first, copy first}.
//   kernel first: the kernel is already queued when cudaMemcpyAsync is called.
//   copy first:   cudaMemcpyAsync, then the kernel launch, from one thread,
//                 as a pipeline issues them; if the call blocks the host, the
//                 kernel starts only when it returns.
// Overlap ratio = (kernel alone + copy alone) / together: 1 when nothing
// overlapped, up to (K + C) / max(K, C) when the shorter hid entirely
// under the longer.
#pragma once

#include <cuda_runtime_api.h>
#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "owners.hpp"
#include "measure/stats.hpp"
#include "timeline/cupti_recorder.hpp"

namespace csg::copies {

struct OverlapCase {
  HostMemory kind = HostMemory::pageable;
  CopyDirection direction = CopyDirection::h2d;
  bool kernel_first = true;
};

// What one run of "together" measured.
struct OverlapRun {
  Millis total{0};                      // common start -> later of kernel end and copy end
  Millis host_blocked{0};               // how long the cudaMemcpyAsync call took on the host
  Millis copy_end_after_kernel_end{0};  // < 0: the copy finished while the kernel still ran
};

struct OverlapResult {
  OverlapCase c;
  Summary copy_alone;
  Summary host_blocked;
  Summary together;
  Summary copy_end_after_kernel_end;
  double overlap_ratio = 0.0;  // (kernel alone + copy alone) / together, medians
  double ideal_ratio = 0.0;    // (kernel alone + copy alone) / max of the two
};

struct OverlapMeasurements {
  Summary kernel_alone;
  std::vector<OverlapResult> cases;
};

std::vector<OverlapCase> overlap_cases(std::span<const HostMemory> kinds);

OverlapMeasurements measure_overlap(const RepeatPlan& plan, std::span<const HostMemory> kinds,
                                    const std::function<Millis()>& kernel_alone,
                                    const std::function<Millis(HostMemory, CopyDirection)>& copy_alone,
                                    const std::function<OverlapRun(const OverlapCase&)>& together);

}  // namespace csg::copies

// ---- the experiment drawn ----------------------------------------------
// Stage 02's third experiment, drawn from what ran: one busy kernel on one
// stream and one cudaMemcpyAsync on another, recorded with CUPTI (one extra,
// untimed run per case). The picture shows the article's claim and where it
// is half true: from pageable memory, a copy issued after the kernel still
// runs beside it; a copy issued first holds the host, and the kernel starts
// only after it.

namespace csg::copies {

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

// Records `run` once with CUPTI: row 0 is `kernel_stream`, row 1 `copy_stream`;
// `run` issues the case's kernel and copy `pairs` times, one pair after another.
// When CUPTI can't start, the picture is not recorded and says why.
OverlapPicture record_overlap_timeline(const OverlapCase& c, cudaStream_t kernel_stream, cudaStream_t copy_stream, int pairs,
                                        const std::function<void()>& run);

// One picture per case, with its overlap figures; with a trace path, every
// case in one Chrome trace, one after another in time, two tracks per case.
void report_overlap_timelines(std::ostream& out, const std::vector<OverlapPicture>& timelines,
                              const std::string& trace_path);

}  // namespace csg::copies
