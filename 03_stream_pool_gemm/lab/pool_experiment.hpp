// What the laboratory's pool experiments share: the article's three calls
// for one batch (the GEMM through the run's Gemm, whichever kernel it is),
// the pool's loop over the batches in either issue order between csg::fork
// and csg::join, one stream per engine, stage 01's serial loop as the
// same-run baseline, how each joins the interleaved rounds of
// PoolMeasurements, the estimate of a run before anything is allocated, and
// the measurement and report of the subcommands that differ only in which of
// these they time (kernels, order, engine-streams, timeline: each declares
// its flags and reads them into a PoolRun). The lesson (main.cu) writes its
// own loops out; these are the laboratory's.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "cli/pool_options.hpp"
#include "cuda/stream_pool.hpp"
#include "experiment/experiment.hpp"
#include "measure/estimate.hpp"
#include "measure/stage_sums.hpp"
#include "measure/timers.hpp"
#include "03_stream_pool_gemm/measurements.hpp"
#include "timeline/stage_timeline.hpp"
#include "workload/gemm.hpp"

namespace csg::pool {

// ---- one batch: the article's loop body ---------------------------------------

// Copy A_i in, C_i = A_i · B, copy C_i out, each queued on the stream it is
// given, as BatchOps on `buffers` (which, like `gemm`, must outlive them):
// what the pool's loop, one stream per engine and every bound run issue.
// From pinned memory cudaMemcpyAsync returns at once, so the host goes on
// queueing while the copy runs; from pageable memory it holds the host while
// the driver stages it.
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

// ---- one stream per engine --------------------------------------------------------
// One stream per engine: the pipeline for the PCIe-bound regime.
//
// The article's pool gives each BATCH a stream; here each ENGINE gets one:
// every H2D copy goes on the H2D stream, every GEMM on the compute stream,
// every D2H copy on the D2H stream, and events carry each batch from one to
// the next. With a fast GEMM (cuBLAS) the D2H copies are the bottleneck
// (100 × 4 MiB at ~55 GB/s ≈ 7.8 ms), and measured on an H200 the pool loses
// time between them: consecutive D2H copies come from different streams, and
// the copy engine pauses a few µs each time it moves to another (~3 µs × 100
// ≈ 0.3 ms, 3% of the run). On one D2H stream the copies run back to back,
// as in the bound's both-ways measurement. With the naive kernel the kernels
// are the bottleneck, and one compute stream gives up what the pool gains by
// letting kernels of different streams fill each other's last partial wave.
//
// Device slots are reused as in the pool (batch b in slot b % slots), so the
// events also keep a slot from being overwritten while it is still read:
//   H2D(b)    waits for kernel(b - slots)  (it read A from this slot)
//   kernel(b) waits for H2D(b)             (its A has arrived)
//             and for D2H(b - slots)       (it read C from this slot)
//   D2H(b)    waits for kernel(b)          (its C is complete)
// One event per slot and kind is enough: cudaStreamWaitEvent waits for the
// event's most recent record at the time of the call, and the host issues
// batch b's waits before it re-records the slot's events for batch b.

class EngineStreams {
 public:
  // `device_slots`: the slots of the buffers the ops run on (BatchBuffers::device_slots).
  explicit EngineStreams(int device_slots);

  // The three streams: H2D (also where a run is timed from), compute, D2H.
  const StreamPool& streams() const { return streams_; }
  cudaStream_t h2d_stream() const { return streams_[0]; }
  cudaStream_t compute_stream() const { return streams_[1]; }
  cudaStream_t d2h_stream() const { return streams_[2]; }

  // Every batch 0 .. batches-1 through `ops` (the stage's own three calls),
  // each on its engine's stream, timed with `timer` from the H2D stream (the
  // timer's start is the fork, its stop the join); waits and returns the time.
  // `issued`, if given, gets the host's time to issue the run.
  Millis run(const BatchOps& ops, int batches, EventTimer& timer, Millis* issued = nullptr) const;

 private:
  int slots_;
  StreamPool streams_{3};
  std::vector<Event> h2d_done_;
  std::vector<Event> kernel_done_;
  std::vector<Event> d2h_done_;
};


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

// ---- the pool experiments: kernels, order, engine-streams, timeline ---------------------

// What sets one of them apart: the pool's flags it offers, what it times
// each round (with .timeline, --timeline-batches and --trace too), and
// whether it prints the bound's details (its paths and table, the regime,
// device memory). The main pool runs depth-first, then, with
// variants.orders 2, breadth-first.
struct PoolShape {
  PoolFlags flags{};
  PoolVariants variants{};
  bool bound_details = false;
};

// What one of them runs, as its declaration reads it from its flags.
struct PoolRun {
  CommonOptions common;
  PoolConfig pool;
  TimelineOptions timeline{};  // record: the timeline subcommand
  PoolShape shape{};
};

// Its flags, and its PoolRun read from them.
template <const PoolShape& shape>
void add_pool_run_options(StageCli& cli) {
  add_pool_options(cli, shape.flags);
  if (shape.variants.timeline) add_timeline_options(cli);
}
template <const PoolShape& shape>
PoolRun read_pool_run(const StageCli& cli, CommonOptions& common) {
  return {.common = common,
          .pool = read_pool_options(cli, common, shape.flags),
          .timeline = shape.variants.timeline ? read_timeline_options(cli) : TimelineOptions{},
          .shape = shape};
}

struct PoolFigures {
  int device_slots = 0;
  PoolMeasurements runs;  // as measured, without their runs
  std::optional<StageTimeline> timeline{};
};

// The shared flags of a pool experiment: pinned memory by default (the pool
// needs page-locked memory to overlap, stage 02), --host-memory where
// `host_memory_choice`, and --kernel with `kernel` as its default where one
// is given (else the article's naive kernel, no --kernel).
CommonDefaults pool_defaults(std::optional<GemmKernel> kernel, bool host_memory_choice = true);

// Both host memory kinds with the serial baselines, else the pool's; the
// GEMMs' workspaces on every stream that runs them.
Needs needs(const PoolRun& run);
Estimate estimate(const PoolRun& run, int device);
// Allocates and fills the buffers, times the variants in interleaved rounds,
// verifies every batch of every variant, records the timeline where asked.
PoolFigures measure(const PoolRun& run);
// The header, the variants, then what the run picked: the pool against the
// serial runs, the bound's details and the regime (or the beaten bounds
// alone), one stream per engine, the sweep, device memory, the timeline.
void report(const PoolRun& run, const PoolFigures& figures, Report& report);

// The declaration of a pool experiment of this shape: its help, its runs and
// its defaults (pool_defaults).
template <const PoolShape& shape>
Experiment<PoolRun, PoolFigures> declared(const char* about, const char* runs, const CommonDefaults& defaults) {
  return {.about = about, .runs = runs, .defaults = defaults, .options = add_pool_run_options<shape>,
          .read = read_pool_run<shape>, .needs = needs, .estimate = estimate, .measure = measure, .report = report};
}

}  // namespace csg::pool
