// The suite's one spin kernel: keeps the GPU busy for a known time. Every
// block spins on the GPU's nanosecond clock (%globaltimer) until `duration`
// has passed, so no calibration is needed and the duration does not depend on
// the SM clock. Stage 02 runs copies beside it; the tests use it to hold a
// stream back (a missing join then shows as outputs not yet written).
#pragma once

#include <cuda_runtime.h>

#include <chrono>

namespace csg {

// Queues the spin kernel on `stream` with `blocks` blocks of one warp (one
// block per SM keeps every SM occupied). Throws std::invalid_argument for a
// duration or block count below 1; the launch is checked.
void launch_spin(std::chrono::nanoseconds duration, int blocks, cudaStream_t stream);

}  // namespace csg
