// The isolated cost of each kind of work: all H2D copies alone, all kernels
// alone, all D2H copies alone, each timed with events on one stream. Their
// sum is what a serial run must take; the largest is what an overlapped
// pipeline can at best approach.
#pragma once

#include <vector>

#include "workload/batch_buffers.hpp"
#include "workload/gemm_backend.hpp"
#include "measure/stats.hpp"
#include "workload/stream_pool.hpp"
#include "measure/timers.hpp"

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

// The three passes as variants for measure_interleaved, in the order H2D,
// kernels, D2H, timed with `timer` on `stream`. The kernel pass poisons device
// C first and the D2H pass host C, so after a round host C holds what that
// round's kernels computed and can be verified, provided every batch has its
// own device slot (with shared slots the H2D pass leaves only the last batch
// of each slot in place).
std::vector<TimedVariant> stage_sum_variants(BatchBuffers& buffers, const Gemm& gemm, cudaStream_t stream,
                                             CopyCall copies, EventTimer& timer);

// All H2D copies on `streams[0]` and all D2H copies on `streams[1]` at the
// same time, timed from stream 0 (the pool forks from it and joins back into
// it): how long the copies take when both directions share PCIe. The D2H
// copies read whatever device C holds and overwrite host C, so poison or
// verify around it as for the D2H pass. `streams` needs two streams or more.
TimedVariant copies_both_ways_variant(BatchBuffers& buffers, const StreamPool& streams, EventTimer& timer);

// The three summaries: the last three of measure_interleaved's results, when
// stage_sum_variants were appended last to its variants.
StageSums to_stage_sums(const std::vector<Summary>& summaries);

}  // namespace csg
