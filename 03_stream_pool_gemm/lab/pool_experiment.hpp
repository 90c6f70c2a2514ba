// What the laboratory's pool experiments share: the pool's loop in either issue order, one stream per
// engine, stage 01's serial loop as the same-run baseline, how each joins the interleaved rounds of
// PoolMeasurements, the estimate, and the measurement and report of the subcommands that differ only in
// which of these they time (kernels, order, engine-streams, timeline). The lesson (main.cu) writes its own
// loops out; these are the laboratory's.
#pragma once

#include <deque>

#include "03_stream_pool_gemm/measurements.hpp"
#include "experiment/lab.hpp"
#include "measure/stage_sums.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::pool {

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

// The pool's run (every batch) on `pool` in `order`; `sweep`: one size of a pool-size sweep.
void add_pool_variant(PoolMeasurements& runs, BatchBuffers& buffers, const StreamPool& pool, IssueOrder order,
                      const BatchOps& ops, RunClock& clock, bool sweep = false);
// A depth-first pool of each of `sizes` streams, made in `pools` (a deque:
// what it holds never moves, and the variants keep pointers to them).
void add_sweep_variants(PoolMeasurements& runs, BatchBuffers& buffers, std::deque<StreamPool>& pools,
                        const std::vector<int>& sizes, const BatchOps& ops, RunClock& clock);

// The streams of the bound's own runs: the one-stream sums run on `one`,
// the D2H copies of "both ways at once" on `second`.
struct BoundStreams {
  Stream one;
  Stream second;
};
// The bound of every pool size added so far: the isolated sums (and both
// directions at once, and batch 0's op alone) on one stream, and each
// resource alone on each pool's own streams (with the busiest stream's
// batches alone on its stream 0), each through the pool's own loop.
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

// What sets one of them apart: the pool's flags it offers, what it times each round (with .timeline,
// --timeline-batches and --trace too), and whether it prints the bound's details (its paths and table, the
// regime, device memory). The main pool runs depth-first, then, with variants.orders 2, breadth-first.
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

// The declaration of a pool experiment of this shape: its help, its runs, its
// defaults (pool_defaults), its flags and its PoolRun read from them.
template <const PoolShape& shape>
Experiment<PoolRun, PoolFigures> declared(const char* about, const char* runs, const CommonDefaults& defaults) {
  const auto options = [](StageCli& cli) {
    add_pool_options(cli, shape.flags);
    if (shape.variants.timeline) add_timeline_options(cli);
  };
  const auto read = [](const StageCli& cli, CommonOptions& common) {
    return PoolRun{.common = common,
                   .pool = read_pool_options(cli, common, shape.flags),
                   .timeline = shape.variants.timeline ? read_timeline_options(cli) : TimelineOptions{},
                   .shape = shape};
  };
  return {.about = about, .runs = runs, .defaults = defaults, .options = options, .read = read, .needs = needs,
          .estimate = estimate, .measure = measure, .report = report};
}

}  // namespace csg::pool
