#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

#include <algorithm>
#include <iostream>
#include <optional>

#include "base/progress.hpp"
#include "base/text.hpp"
#include "03_stream_pool_gemm/lesson.hpp"
#include "03_stream_pool_gemm/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::pool {

// ---- one batch ------------------------------------------------------------------

void copy_in(BatchBuffers& buffers, int batch, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(batch), buffers.host_a(batch), buffers.work().a_bytes(),
                             cudaMemcpyHostToDevice, stream));
}

void compute(BatchBuffers& buffers, const Gemm& gemm, int batch, cudaStream_t stream) {
  gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), buffers.work().shape, stream);
}

void copy_out(BatchBuffers& buffers, int batch, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(batch), buffers.device_c(batch), buffers.work().c_bytes(),
                             cudaMemcpyDeviceToHost, stream));
}

BatchOps batch_ops(BatchBuffers& buffers, const Gemm& gemm) {
  BatchOps ops;
  ops.h2d = [&buffers](int batch, cudaStream_t stream) { copy_in(buffers, batch, stream); };
  ops.compute = [&buffers, &gemm](int batch, cudaStream_t stream) { compute(buffers, gemm, batch, stream); };
  ops.d2h = [&buffers](int batch, cudaStream_t stream) { copy_out(buffers, batch, stream); };
  return ops;
}

// ---- the loops --------------------------------------------------------------------

Millis pool_run(const StreamPool& pool, IssueOrder order, const BatchOps& ops, int batches, RunClock& clock) {
  clock.timer.start(pool[0]);
  const HostTimer host;
  fork(pool);  // every other stream's work starts after the timer's start
  if (order == IssueOrder::depth_first) {
    // The article's loop: each batch's three calls, one batch after another.
    for (int i = 0; i < batches; ++i) {
      const cudaStream_t stream = pool.for_batch(i);
      ops.h2d(i, stream);
      ops.compute(i, stream);
      ops.d2h(i, stream);
    }
  } else {
    // Breadth-first: a wave of one batch per stream at a time, every H2D of
    // the wave, then every GEMM, then every D2H. Each stream still runs
    // H2D -> GEMM -> D2H per batch; only the host's order of issue changes.
    for (int wave = 0; wave < batches; wave += pool.size()) {
      const int end = std::min(batches, wave + pool.size());
      for (int i = wave; i < end; ++i) ops.h2d(i, pool.for_batch(i));
      for (int i = wave; i < end; ++i) ops.compute(i, pool.for_batch(i));
      for (int i = wave; i < end; ++i) ops.d2h(i, pool.for_batch(i));
    }
  }
  join(pool);  // the timer's stop, on stream 0, comes after every stream's batches
  clock.issued = host.elapsed();
  return clock.timer.stop();
}

Millis serial_run(BatchBuffers& buffers, const Gemm& gemm, RunClock& clock) {
  const Workload& work = buffers.work();
  clock.timer.start(nullptr);
  for (int i = 0; i < work.batches; ++i) {
    CUDA_CHECK(cudaMemcpy(buffers.device_a(i), buffers.host_a(i), work.a_bytes(), cudaMemcpyHostToDevice));
    compute(buffers, gemm, i, nullptr);
    CUDA_CHECK(cudaMemcpy(buffers.host_c(i), buffers.device_c(i), work.c_bytes(), cudaMemcpyDeviceToHost));
  }
  return clock.timer.stop();
}

// ---- the variants -------------------------------------------------------------------

void add_serial_baselines(PoolMeasurements& runs, BatchBuffers& pageable, BatchBuffers& pinned, const Gemm& gemm,
                          RunClock& clock) {
  for (BatchBuffers* buffers : {&pageable, &pinned}) {
    runs.add_serial(*buffers, [buffers, &gemm, &clock] { return serial_run(*buffers, gemm, clock); });
  }
}

void add_pool_variant(PoolMeasurements& runs, BatchBuffers& buffers, const StreamPool& pool, IssueOrder order,
                      const BatchOps& ops, RunClock& clock, bool sweep) {
  const int batches = buffers.work().batches;
  runs.add_pool(
      buffers, pool, order, [&pool, order, &ops, batches, &clock] { return pool_run(pool, order, ops, batches, clock); },
      [&clock] { return clock.issued; }, sweep);
}

void add_sweep_variants(PoolMeasurements& runs, BatchBuffers& buffers, std::deque<StreamPool>& pools,
                        const std::vector<int>& sizes, const BatchOps& ops, RunClock& clock) {
  for (const int size : sizes) {
    add_pool_variant(runs, buffers, pools.emplace_back(size), IssueOrder::depth_first, ops, clock, /*sweep=*/true);
  }
}

void add_engine_streams_variant(PoolMeasurements& runs, BatchBuffers& buffers, const EngineStreams& engines,
                                const BatchOps& ops, RunClock& clock) {
  const int batches = buffers.work().batches;
  runs.add_engine_streams(
      buffers, engines.streams(), [&engines, &ops, batches, &clock] {
        return engines.run(ops, batches, clock.timer, &clock.issued);
      },
      [&clock] { return clock.issued; });
}

void add_bound_variants(PoolMeasurements& runs, BatchBuffers& buffers, const BatchOps& ops,
                        const BoundStreams& streams, RunClock& clock) {
  runs.add_bounds(buffers, ops, streams.one[0], streams.second.get(), clock.timer);
  // Each resource alone through the pool's own depth-first loop.
  runs.add_resource_runs(ops, streams.one, [&clock](const StreamPool& pool, const BatchOps& only, int batches) {
    return pool_run(pool, IssueOrder::depth_first, only, batches, clock);
  });
}

void measure_variants(PoolMeasurements& runs, const RepeatPlan& plan) {
  progress("timing " + std::to_string(runs.size()) + " variants: " + std::to_string(plan.warmup) + " warm-up + " +
           std::to_string(plan.repeats) + " timed rounds");
  runs.measure(plan);
}

// ---- the estimate -----------------------------------------------------------------

double estimate_seconds(const Workload& work, const RepeatPlan& plan, const PoolConfig& config,
                        HostMemory pool_memory, const Rates& rates, const PoolVariants& variants) {
  const WorkSeconds pinned = work_seconds(work, rates, false);
  const WorkSeconds pageable = work_seconds(work, rates, true);
  const WorkSeconds& pool = pool_memory == HostMemory::pageable ? pageable : pinned;
  // A pipeline on pageable memory overlaps next to nothing (stage 02).
  const double pipeline = pool_memory == HostMemory::pageable ? pool.serial() : pool.overlapped();
  const double both_ways = std::max(pool.h2d, pool.d2h);
  std::vector<int> sizes = config.sweep;
  sizes.push_back(config.streams);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());

  double round = double(variants.orders + (variants.engine_streams ? 1 : 0) + int(config.sweep.size())) * pipeline;
  if (variants.serial_baselines) round += pageable.serial() + pinned.serial();
  if (variants.bounds) {
    round += pool.serial() + both_ways;  // the one-stream sums, and both ways at once
    // Per pool size: kernels, H2D and D2H alone, both ways, and the busiest stream's batches on one stream.
    for (const int size : sizes) round += pool.serial() + both_ways + pool.serial() / size;
  }
  const int rounds = plan.warmup + plan.repeats;
  return rounds * round + (variants.timeline ? (rounds + 1) * pipeline : 0.0);
}

// ---- the run of a pool experiment -----------------------------------------------------

namespace {

// Refuses (exit 2) a run whose buffers would not fit, or that would take
// longer than --max-minutes at this GPU's rates.
void check_size(const PoolExperiment& experiment, const CommonOptions& options, const PoolConfig& config, int slots,
                const Gemm& gemm) {
  const Workload& work = options.work;
  MemoryNeeds needs = memory_needs(work, options.host_memory, slots);
  if (experiment.variants.serial_baselines) {  // both kinds: the baselines run on pageable and on pinned memory
    needs = combined(memory_needs(work, HostMemory::pageable, slots), memory_needs(work, HostMemory::pinned, slots));
  }
  needs.device_bytes += gemm_device_bytes(options.gemm, streams_running_gemms(config));
  check_fits(needs, experiment.pool_flags.device_buffers ? "try fewer --batches, or --device-buffers slots"
                                                          : "try fewer --batches or smaller --m, --n, --k");
  const Rates rates = measure_rates(gemm, work.shape);
  check_estimate(estimate_seconds(work, options.plan, config, options.host_memory, rates, experiment.variants),
                 options.max_minutes, describe_workload(work, options.gemm));
}

void print_report(std::ostream& out, const PoolExperiment& experiment, const StageResult& result,
                  const CommonOptions& options, const PoolConfig& config, const PoolMeasurements& runs) {
  print_pool_header(out, result, experiment.subcommand, options, config);
  print_variants(out, result);
  if (experiment.variants.serial_baselines) print_pool_against_serial(out, options, config, runs);
  if (experiment.bound_details) {
    print_pool_bound(out, result, options.work, runs);
    print_engine_streams(out, runs);
    print_regime(out, options, runs);
  } else {
    print_beaten_bounds(out, result);
    print_engine_streams(out, runs);
  }
  print_sweep(out, runs, "pool size sweep (depth-first):");
  if (experiment.bound_details) print_device_memory(out, result, config, options.work.batches);
  print_verification(out, result);
}

// run_pool_experiment once the options are parsed and checked.
int run_checked(const PoolExperiment& experiment, const CommonOptions& options, const PoolConfig& config,
                const TimelineOptions& timeline_options) {
  const Workload& work = options.work;
  const int device = require_device();
  const Gemm gemm(options.gemm);
  const int slots = device_slots_for(config, work.batches);
  check_size(experiment, options, config, slots, gemm);

  // The pool's buffers; with the serial baselines, one set on each host memory kind.
  const bool both_kinds = experiment.variants.serial_baselines;
  progress("allocating " + plural(work.batches, "batch") + ", " + plural(slots, "device slot") + ", " +
           (both_kinds ? std::string("pageable and pinned") : std::string(to_string(options.host_memory))) +
           " host memory");
  std::optional<BatchBuffers> pageable, pinned;
  if (both_kinds || options.host_memory == HostMemory::pageable) pageable.emplace(work, HostMemory::pageable, slots);
  if (both_kinds || options.host_memory == HostMemory::pinned) pinned.emplace(work, HostMemory::pinned, slots);
  for (std::optional<BatchBuffers>* set : {&pageable, &pinned}) {
    if (set->has_value()) (*set)->fill_inputs(options.seed);
  }
  BatchBuffers& buffers = options.host_memory == HostMemory::pinned ? *pinned : *pageable;
  const BatchOps ops = batch_ops(buffers, gemm);

  // Everything measured in the same rounds, so the ratios are same-run ratios.
  RunClock clock;
  PoolMeasurements runs(work, options.seed, gemm);
  if (both_kinds) add_serial_baselines(runs, *pageable, *pinned, gemm, clock);
  const StreamPool pool(config.streams);  // the article's cudaStreamCreate: blocking streams
  for (const IssueOrder order : experiment.orders) add_pool_variant(runs, buffers, pool, order, ops, clock);
  std::optional<EngineStreams> engines;
  if (experiment.variants.engine_streams) {
    add_engine_streams_variant(runs, buffers, engines.emplace(slots), ops, clock);
  }
  std::deque<StreamPool> sweep_pools;
  add_sweep_variants(runs, buffers, sweep_pools, config.sweep, ops, clock);
  const BoundStreams bound_streams;
  if (experiment.variants.bounds) add_bound_variants(runs, buffers, ops, bound_streams, clock);
  measure_variants(runs, options.plan);

  // One more run of the pool (depth-first), recorded with CUPTI, one row per
  // stream; then the pool re-timed with recording over, to show that
  // recording costs the timed runs nothing.
  std::optional<StageTimeline> timeline;
  if (timeline_options.record) {
    progress("recording one more pool run for the timeline");
    TimelineJob job;
    job.plan = pool_timeline_run(pool, work);
    job.poison = [&buffers, &pool] { buffers.poison_outputs(pool[0]); };
    job.verify = [&buffers, &options] { return buffers.verify(options.seed); };
    job.timed_run = [&pool, &ops, &work, &clock] {
      return pool_run(pool, IssueOrder::depth_first, ops, work.batches, clock);
    };
    job.timed = runs.pool(IssueOrder::depth_first).stats;
    timeline = record_stage_timeline(options.plan, job);
  }

  const StageResult result = pool_result(lesson03::kStage, query_device_info(device), options, config, slots, runs);
  print_report(std::cout, experiment, result, options, config, runs);
  return finish_stage(std::cout, lesson03::kStage, subcommand_json(result, experiment.subcommand),
                      result.verification.passed, timeline, timeline_options, options.json_path);
}

}  // namespace

int run_pool_experiment(const PoolExperiment& experiment, int argc, char** argv) {
  CommonDefaults defaults;
  defaults.host_memory = HostMemory::pinned;  // the pool needs page-locked memory to overlap (stage 02)
  defaults.host_memory_choice = experiment.host_memory_choice;
  defaults.kernel_choice = false;  // add_kernel_option below, with the experiment's own default
  StageCli cli(subcommand_program(lesson03::kStage, experiment.subcommand), experiment.description, defaults);
  if (experiment.kernel) add_kernel_option(cli, *experiment.kernel);
  add_pool_options(cli, experiment.pool_flags);
  if (experiment.variants.timeline) add_timeline_options(cli);
  std::optional<CommonOptions> options = cli.parse_or_help(argc, argv);
  if (!options) return kExitOk;
  if (experiment.kernel) read_kernel_option(cli, *options);
  const PoolConfig config = read_pool_options(cli, *options, experiment.pool_flags);
  const TimelineOptions timeline = experiment.variants.timeline ? read_timeline_options(cli) : TimelineOptions{};
  return run_checked(experiment, *options, config, timeline);
}

}  // namespace csg::pool
