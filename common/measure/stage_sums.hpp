// The isolated cost of each kind of work (all H2D copies, all kernels, all D2H
// copies, each alone, timed with events on one stream), through the stage's own
// calls (BatchOps): their sum is what a serial run must take.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "cuda/stream_pool.hpp"
#include "measure/pipeline_bound.hpp"
#include "measure/stats.hpp"
#include "measure/timers.hpp"
#include "workload/gemm.hpp"
#include "batches.hpp"

namespace csg {

// A stage's three calls for one batch, queued on `stream` (stage 01 copies
// with cudaMemcpy, the stream stages with cudaMemcpyAsync), as its main.cu
// writes them: the passes below and stage 03's other variants run these.
struct BatchOps {
  std::function<void(int batch, cudaStream_t stream)> h2d;      // A_i host -> device
  std::function<void(int batch, cudaStream_t stream)> compute;  // C_i = A_i · B
  std::function<void(int batch, cudaStream_t stream)> d2h;      // C_i device -> host
};

// The article's loop body for the stream stages' laboratories: cudaMemcpyAsync
// of A_i in, gemm.run, cudaMemcpyAsync of C_i out, each on the stream it is
// given. `buffers` and `gemm` must outlive the ops.
BatchOps batch_ops(BatchBuffers& buffers, const Gemm& gemm);

// How a loop over batches issues the work onto a pool:
//   depth_first:   batch 0: H2D K D2H, batch 1: H2D K D2H, ...  (the article's loop)
//   breadth_first: in waves of one batch per stream: the wave's H2Ds, then
//                  its kernels, then its D2Hs
// Both give each stream the same sequence of operations; only the host's order
// of queueing differs, which matters when streams alias onto fewer hardware
// queues (CUDA_DEVICE_MAX_CONNECTIONS). Issuing ALL H2Ds first would not do: a
// stream would copy batch i+pool into a slot before batch i's kernel read it.
enum class IssueOrder { depth_first, breadth_first };

std::string_view to_string(IssueOrder order);

// Batches 0 .. batches-1 through `ops`, batch i on pool stream i % pool, in
// `order`: the loop of stage 03's pool and of stage 04's step 3 (no fork, no
// join: the caller's).
void issue_batches(const BatchOps& ops, const StreamPool& pool, int batches,
                   IssueOrder order = IssueOrder::depth_first);

struct StageSums {
  Summary h2d{};
  Summary kernel{};
  Summary d2h{};
  // The first batch's op of each kind alone (first_op_variants): what the
  // bound needs to take the timing's fixed cost out of the fill and drain.
  // Left empty (median 0) where a stage needs no bound.
  Summary h2d_first{};
  Summary kernel_first{};
  Summary d2h_first{};
  double sum_ms() const { return h2d.median_ms + kernel.median_ms + d2h.median_ms; }
  // The sum with the largest relative spread, (median - min) / median: the
  // noise of the bound's stream-order path, which is made of all three.
  const Summary& noisiest() const {
    const Summary* most = &h2d;
    for (const Summary* s : {&kernel, &d2h}) {
      if (relative_spread(*s) > relative_spread(*most)) most = s;
    }
    return *most;
  }
  StageTimes medians() const {
    return {h2d.median_ms,       kernel.median_ms,       d2h.median_ms,
            h2d_first.median_ms, kernel_first.median_ms, d2h_first.median_ms};
  }
};

// The three passes as variants for measure_interleaved (H2D, kernels, D2H),
// each every batch of `buffers` through `ops` on `stream`. The kernel pass
// poisons device C first and the D2H pass host C, so after a round host C holds
// what that round's kernels computed (with a device slot per batch).
std::vector<TimedVariant> stage_sum_variants(const BatchOps& ops, BatchBuffers& buffers, cudaStream_t stream,
                                             EventTimer& timer);

// The first batch's H2D, kernel and D2H, each alone on `stream`, timed like
// the passes above: the fixed cost of a timed region plus one op, which
// pipeline_bound subtracts from a pass to get one batch's share. They check nothing.
std::vector<TimedVariant> first_op_variants(const BatchOps& ops, cudaStream_t stream, EventTimer& timer);

// The bound's busiest-stream path: ceil(batches / streams) batches, each
// H2D -> kernel -> D2H, one after another on `stream`. It checks nothing.
TimedVariant busiest_stream_variant(const BatchOps& ops, int batches, int streams, cudaStream_t stream,
                                    EventTimer& timer);

// `ops` for batches 0, S, 2S, ... (stream 0's), nothing for the others: through
// the pool's own loop, the busiest stream's batches alone on that same stream.
BatchOps stream_zero_ops(const BatchOps& ops, int streams);

// All H2D copies on `h2d_stream` and all D2H copies on `d2h_stream` at the same
// time: the copies when both directions share PCIe. The D2H copies overwrite host C.
TimedVariant copies_both_ways_variant(const BatchOps& ops, const Workload& work, cudaStream_t h2d_stream,
                                      cudaStream_t d2h_stream, EventTimer& timer);

// What each resource needs alone, issued exactly as the variant issues its
// run: `run_like_the_variant` is the variant's own timed run (its fork, its
// loop over the batches, its join), given ops of which only one kind does
// anything. In the order:
//   kernels (every compute op), H2D (every H2D), D2H (every D2H), both ways
//   (every H2D and D2H).
// With the same skeleton around a subset of the same work, no schedule of the
// whole run can beat one of them; with a skeleton of its own, the fork and join
// of a large pool around a few tiny batches can cost more than the whole run.
// They check nothing.
std::vector<TimedVariant> resource_variants(const BatchOps& ops,
                                            std::function<Millis(const BatchOps&)> run_like_the_variant);

// The three summaries, in the order stage_sum_variants returned them,
// starting at `first` in measure_interleaved's results.
StageSums to_stage_sums(const std::vector<Summary>& summaries, std::size_t first);

}  // namespace csg
