// What the laboratory's pool experiments share: the article's three calls
// for one batch (the GEMM through the run's Gemm, whichever kernel it is),
// the pool's loop over the batches in either issue order between csg::fork
// and csg::join, stage 01's serial loop as the same-run baseline, how each
// joins the interleaved rounds of PoolMeasurements, the estimate of a run
// before anything is allocated, and the run of the subcommands that differ
// only in which of these they time (kernels, order, engine-streams, timeline).
// The lesson (main.cu) writes its own loops out; these are the laboratory's.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "cli/pool_options.hpp"
#include "cuda/stream_pool.hpp"
#include "03_stream_pool_gemm/lab/engine-streams/engine_streams.hpp"
#include "measure/estimate.hpp"
#include "measure/stage_sums.hpp"
#include "measure/timers.hpp"
#include "03_stream_pool_gemm/measurements.hpp"
#include "timeline/stage_timeline.hpp"
#include "workload/gemm.hpp"

namespace csg::pool {

// ---- one batch: the article's loop body ---------------------------------------

// Copy A_i in, C_i = A_i · B, copy C_i out, queued on `stream`. From pinned
// memory cudaMemcpyAsync returns at once, so the host goes on queueing while
// the copy runs; from pageable memory it holds the host while the driver stages it.
void copy_in(BatchBuffers& buffers, int batch, cudaStream_t stream);
void compute(BatchBuffers& buffers, const Gemm& gemm, int batch, cudaStream_t stream);
void copy_out(BatchBuffers& buffers, int batch, cudaStream_t stream);
// The three as BatchOps on `buffers` (which, like `gemm`, must outlive them):
// what the pool's loop, one stream per engine and every bound run issue.
BatchOps batch_ops(BatchBuffers& buffers, const Gemm& gemm);

// ---- the loops ------------------------------------------------------------------

// The timer every run of an experiment starts and stops, and the host's
// time to issue the last pool run (read right after it, as its side figure).
struct RunClock {
  EventTimer timer;
  Millis issued{};
};

// One run on `pool` of batches 0 .. batches-1, timed from stream 0: the
// timer's start, fork, every batch on stream i % size in `order`, join, the
// timer's stop (after every stream's batches). clock.issued gets the host's
// time from the fork to the join: no run can end before its last operation
// was queued, so that time is one of the bound's paths.
Millis pool_run(const StreamPool& pool, IssueOrder order, const BatchOps& ops, int batches, RunClock& clock);

// Stage 01's loop on the legacy default stream, the baseline of the same run:
// cudaMemcpy H2D, the GEMM, cudaMemcpy D2H, one batch after the other.
Millis serial_run(BatchBuffers& buffers, const Gemm& gemm, RunClock& clock);

// ---- the variants, registered for the interleaved rounds ----------------------------

// Stage 01's loop on pageable and on pinned memory.
void add_serial_baselines(PoolMeasurements& runs, BatchBuffers& pageable, BatchBuffers& pinned, const Gemm& gemm,
                          RunClock& clock);
// The pool's run (every batch) on `pool` in `order`; `sweep`: one size of a pool-size sweep.
void add_pool_variant(PoolMeasurements& runs, BatchBuffers& buffers, const StreamPool& pool, IssueOrder order,
                      const BatchOps& ops, RunClock& clock, bool sweep = false);
// A depth-first pool of each of `sizes` streams, made in `pools` (a deque:
// what it holds never moves, and the variants keep pointers to them).
void add_sweep_variants(PoolMeasurements& runs, BatchBuffers& buffers, std::deque<StreamPool>& pools,
                        const std::vector<int>& sizes, const BatchOps& ops, RunClock& clock);
// One stream per engine (engine_streams.hpp).
void add_engine_streams_variant(PoolMeasurements& runs, BatchBuffers& buffers, const EngineStreams& engines,
                                const BatchOps& ops, RunClock& clock);

// The streams of the bound's own runs: the one-stream sums and the busiest
// streams run on `one`, the D2H copies of "both ways at once" on `second`.
struct BoundStreams {
  StreamPool one{1};
  Stream second;
};
// The bound of every pool size added so far: the isolated sums (and both
// directions at once, and batch 0's op alone) on one stream, and each
// resource alone on each pool's own streams (with the busiest stream's
// batches alone on one stream), each through the pool's own loop.
void add_bound_variants(PoolMeasurements& runs, BatchBuffers& buffers, const BatchOps& ops,
                        const BoundStreams& streams, RunClock& clock);

// Every registered variant, warm-up then timed rounds, with a progress line.
void measure_variants(PoolMeasurements& runs, const RepeatPlan& plan);

// ---- the estimate ---------------------------------------------------------------

// What a pool experiment times each round.
struct PoolVariants {
  bool serial_baselines = false;  // stage 01's loop on pageable and on pinned memory
  int orders = 1;                 // the main pool, in this many issue orders
  bool engine_streams = false;    // one stream per engine
  bool bounds = true;             // the isolated sums, and every pool size's resource runs
  bool timeline = false;          // one recorded run, then the pool re-timed
};

// The run's time at `rates` (measure/estimate.hpp): `variants` on the main
// pool and every swept size of `config`, every round.
double estimate_seconds(const Workload& work, const RepeatPlan& plan, const PoolConfig& config,
                        HostMemory pool_memory, const Rates& rates, const PoolVariants& variants);

// ---- the run of a pool experiment ------------------------------------------------

// What sets the kernels, order, engine-streams and timeline subcommands
// apart: the flags they offer, which variants they time, and which parts of
// the report they print. Each defines one, and its Subcommand runs it with
// run_experiment.
struct PoolExperiment {
  const char* subcommand = "";
  const char* description = "";  // the first lines of its --help
  // --kernel's default (with --tf32); nothing: the article's naive kernel, no --kernel.
  std::optional<GemmKernel> kernel{};
  bool host_memory_choice = true;  // --host-memory pageable|pinned (default pinned); else pinned
  PoolFlags pool_flags{};          // --streams, and --device-buffers, --streams-sweep where offered
  PoolVariants variants{};         // with .timeline: --timeline-batches and --trace
  std::vector<IssueOrder> orders = {IssueOrder::depth_first};  // of the main pool; depth-first first
  bool bound_details = false;  // the bound's paths and table, the regime, device memory
};

// Parses and checks `argc`/`argv` (the subcommand's own; exit 2 before any
// CUDA call) with the flags `experiment` offers, then checks the size and
// the estimate (exit 2 before allocating), allocates and fills the buffers
// (both host memory kinds with the serial baselines, else the pool's), times
// the variants in interleaved rounds, verifies every batch of every variant,
// records the timeline where asked, prints the report, writes the JSON with
// "subcommand" and returns the exit code.
int run_pool_experiment(const PoolExperiment& experiment, int argc, char** argv);

// run_pool_experiment(experiment, ...) as a Subcommand's run function.
template <const PoolExperiment& experiment>
int run_experiment(int argc, char** argv) {
  return run_pool_experiment(experiment, argc, argv);
}

}  // namespace csg::pool
