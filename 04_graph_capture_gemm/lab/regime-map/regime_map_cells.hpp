// The regime map: where graphs win on the article's own work. For every GEMM
// size (m = n = k) and batch count, the stage's per-batch work (H2D, GEMM,
// D2H, batch i on pool stream i % pool, fork/join) is timed on the stream
// pool and as one replay of a graph captured from it, in interleaved rounds
// (measure_rounds) with the one-stream sums of its bound:
//   graph replay   GPU time of one cudaGraphLaunch (events on pool stream 0),
//                  and the host's time of that call, read in the same runs
//   stream pool    GPU time of fork, 3 x batches calls and join, and the
//                  host's time to issue them, read in the same runs
//   sums           every H2D, every kernel, every D2H alone on pool stream 0
// Both variants poison the outputs before every run and are verified (every
// batch) after their last. The article's calls (graph_steps.hpp) come in as
// callbacks: this file only times them, and the tests can hand it broken ones.
//
// Before anything is measured, each size's rates (measure_rates) give every
// cell's estimate; a cell whose pinned host memory and device slots don't
// fit, or whose timed rounds would exceed --map-cell-seconds, is skipped
// and says why (regime_map_report.hpp). The whole map's estimate is printed
// first, and a map estimated over --max-minutes is refused (exit 2).
// Napkin math for the default map on an H200 (naive GEMM ~6 TFLOP/s, PCIe
// ~55 GB/s each way, 2 + 10 rounds of replay + pool + sums per cell):
//   1024^3: 0.36 ms of kernel per batch, 1.2 ms per batch a round
//           -> 100 batches 1.5 s, 1000 batches 15 s: skipped at 10 s
//   512^3:  45 us of kernel per batch -> 1000 batches 2.1 s, 10000 21 s: skipped
//   256^3 and smaller: ~4 us per operation, launch-bound -> 10000 batches 4-5 s
// About 25 s of GPU time, and as much again on the host (pinning up to 5 GiB,
// filling, poisoning, verifying): about a minute in all.
#pragma once

#include <cstdint>
#include <functional>

#include "cli/pool_options.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "measure/estimate.hpp"
#include "measure/stage_sums.hpp"
#include "measure/stats.hpp"
#include "04_graph_capture_gemm/lab/regime-map/regime_map_report.hpp"
#include "batches.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {

// The pool and the article's calls.
struct RegimeMapSteps {
  const StreamPool* pool = nullptr;  // the article's streams; timers, sums and launches on pool stream 0
  PoolConfig pool_config;            // --streams and --device-buffers: device_slots_for gives each cell's slots
  // Batch i's H2D, compute and D2H on any buffers.
  std::function<BatchOps(BatchBuffers&)> ops_for;
  // Steps 1-5a with the join: begin capture, fork, the per-batch work of
  // batches 0 .. batches-1 of the buffers, join, end capture.
  CaptureWork capture;
  std::function<GraphExec(const Graph&)> instantiate;  // step 5b
  std::function<void(const GraphExec&)> launch;        // step 6, on pool stream 0
  // Stage 03's loop on the pool: fork, every batch's three calls, join.
  std::function<void(const BatchOps&, int batches)> issue_on_streams;
  // This GPU's rates for the estimate: measure_rates(gemm, shape).
  std::function<Rates(GemmShape)> rates;
};

// Plans every cell (estimate, memory, budget), prints the plan and the
// estimate, then measures the cells that run, one at a time, each in its
// own buffers (allocated, filled, freed), with a progress line per cell
// ("cell 7 of 24: 256³ × 1000 batches") and an interrupt check between
// cells and runs. Uses options.plan, seed and max_minutes. Throws UsageError
// (the estimate over --max-minutes), CudaError, Interrupted; a failed
// verification is recorded in its cell, not thrown.
RegimeMap measure_regime_map(const RegimeMapConfig& config, const CommonOptions& options,
                             const RegimeMapSteps& steps);

// The steps as the laboratory binds them: graph_steps.hpp's calls on `pool`
// with `gemm`, each cell's device slots as `pool_config` lays them out.
RegimeMapSteps regime_map_steps(const StreamPool& pool, const PoolConfig& pool_config, const Gemm& gemm);

}  // namespace csg::graphs
