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

#include <functional>
#include <span>
#include <vector>

#include "copy_buffers.hpp"
#include "cuda/host_buffer.hpp"
#include "measure/stats.hpp"

namespace csg {

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

}  // namespace csg
