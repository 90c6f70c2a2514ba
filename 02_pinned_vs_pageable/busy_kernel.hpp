// A kernel that keeps the GPU busy for a known time, for the overlap
// experiment of stage 02: every block spins on the GPU's nanosecond clock
// (%globaltimer) until `duration` has passed, so no calibration is needed and
// the duration does not depend on the SM clock. The caller measures it with
// events anyway ("kernel alone").
#pragma once

#include <cuda_runtime.h>

#include <chrono>

namespace csg::copies {

// Queues the busy kernel on `stream` with `blocks` blocks (one per SM keeps
// every SM occupied). The launch is checked.
void launch_busy_kernel(std::chrono::nanoseconds duration, int blocks, cudaStream_t stream);

}  // namespace csg::copies
