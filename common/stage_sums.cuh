// The isolated cost of each kind of work: all H2D copies alone, all kernels
// alone, all D2H copies alone, each timed with events on one stream. Their
// sum is what a serial run must take; the largest is what an overlapped
// pipeline can at best approach.
#pragma once

#include "batch_buffers.cuh"
#include "stats.hpp"

namespace csg {

// How the copies are issued: cudaMemcpy (the serial stage) or cudaMemcpyAsync
// on the stream (the stream stages).
enum class CopyCall { sync, async };

struct StageSums {
  Summary h2d;
  Summary kernel;
  Summary d2h;
  double sum_ms() const { return h2d.median_ms + kernel.median_ms + d2h.median_ms; }
};

// Poisons device C before the kernel passes and host C before the D2H passes,
// so after it returns host C holds what the last kernel pass computed and the
// buffers can be verified, provided every batch has its own device slot
// (with shared slots the H2D pass leaves only the last batch of each slot).
StageSums measure_stage_sums(BatchBuffers& buffers, cudaStream_t stream, CopyCall copies, const RepeatPlan& plan);

}  // namespace csg
