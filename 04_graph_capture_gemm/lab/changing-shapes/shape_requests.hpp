// The article's "graphs suit stable work", measured: when the work's shape
// changes from one request to the next, what each way of running it costs
// (changing_shapes_plan.hpp explains the four ways and the napkin math).
//
// The article's steps (graph_steps.hpp) come in as callbacks, as
// exec_update.hpp's measure_updates takes them: this file only times them,
// and the tests can hand it broken ones.
//
// measure_changing_shapes: the seeded sequence of batch counts, each request
// run the four ways one after the other (interleaved per request, so a slow
// moment of the machine hits all four alike), the whole sequence
// config.rounds times after kShapeWarmupRequests untimed requests. Before
// every request the batches it will compute get NaN outputs (device and
// host); after it, every batch it computed (the buckets' padding included)
// is verified. Per request: a host timer from its first call until its work
// is done, events on the origin stream around the issue or launch, and the
// host time of what it issued (report's header says which is which). The
// buckets' execs are captured, instantiated and launched once (verified)
// before the rounds, and those one-time costs reported apart.
//   Cost at the defaults (50 requests of 1..100 batches, 256³, 3 rounds) on
//   an H200: ~11,000 batches per round (3 x 2,500 requested + 3,700 padded)
//   of ~10 µs each on the GPU and about as much to poison and verify on the
//   host, plus re-capture's ~21 µs per batch captured: about 2 s in all. At
//   the article's 1024x1024x512 (--shape-size 0) a batch takes ~0.17 ms of GPU
//   and ~0.1 ms of host poison + verify: 10-15 s.
#pragma once

#include <functional>

#include "04_graph_capture_gemm/lab/changing_shapes_report.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "batches.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {

// The article's steps, for the sequence.
struct ShapeRequestSteps {
  CaptureWork capture;                                 // steps 1-5a for batches 0..n-1 of the buffers
  std::function<GraphExec(const Graph&)> instantiate;  // step 5b
  std::function<void(const GraphExec&)> launch;        // step 6, on `stream`
  // Fork, the per-batch work of batches 0..n-1, join: stage 03's loop, no capture.
  std::function<void(BatchBuffers& buffers, int batches)> issue_on_streams;
  // changing_shapes_workload(config, ...): bucket_capacity(max_batches) batches
  // (padding computes real batches of them), inputs filled with `data_seed`.
  BatchBuffers* buffers = nullptr;
  std::uint64_t data_seed = 1;
  cudaStream_t stream = nullptr;  // the origin stream (pool stream 0): launches and events go here
};

// Throws std::invalid_argument when the buffers hold fewer than
// bucket_capacity(config.max_batches) batches or the sequence is off;
// std::runtime_error if cudaGraphExecUpdate refuses a graph of the same batch
// count; Interrupted (base/interrupt.hpp) between requests after a signal.
ShapeSequenceCosts measure_changing_shapes(const ChangingShapesConfig& config, const ShapeRequestSteps& steps);

// The steps above as the laboratory binds them: graph_steps.hpp's capture,
// instantiate, launch and stream loop on `pool` with `gemm`, on `buffers`.
ShapeRequestSteps shape_request_steps(const StreamPool& pool, const Gemm& gemm, BatchBuffers& buffers,
                                      std::uint64_t data_seed);

}  // namespace csg::graphs
