// The launch-cost study's kernels (launch_costs.cu), behind the host calls
// that launch them: all nvcc compiles for the device.
#pragma once

#include <cuda_runtime.h>

namespace csg::graphs {

// `ops` empty kernels (<<<1, 1>>>, no body) one after another on `stream`:
// a launch that costs only its scheduling.
void issue_chain(int ops, cudaStream_t stream);
// Their checkable twin: each kernel's one thread adds 1 to `counter` (the
// launches are ordered, so no atomic is needed).
void issue_counting_chain(unsigned long long* counter, int ops, cudaStream_t stream);
// A kernel that holds `stream` until the host writes 1 to `*release` (host
// memory mapped into the device), or until `timeout_ns` passes: then it sets
// `*timed_out` and lets the stream go, so a host blocked in a launch (the
// queue full) can never deadlock with it.
void launch_latch(const volatile int* release, volatile int* timed_out, unsigned long long timeout_ns,
                  cudaStream_t stream);

}  // namespace csg::graphs
