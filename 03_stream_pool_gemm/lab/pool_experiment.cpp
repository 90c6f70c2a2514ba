#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

#include "03_stream_pool_gemm/report.hpp"
#include "experiment/lab.hpp"

namespace csg::pool {

// ---- the loops --------------------------------------------------------------------

Millis pool_run(const StreamPool& pool, IssueOrder order, const BatchOps& ops, int batches, RunClock& clock) {
  clock.timer.start(pool[0]);
  const HostTimer host;
  fork(pool);  // every other stream's work starts after the timer's start
  issue_batches(ops, pool, batches, order);
  join(pool);  // the timer's stop, on stream 0, comes after every stream's batches
  clock.issued = host.elapsed();
  return clock.timer.stop();
}

Millis serial_run(BatchBuffers& buffers, const Gemm& gemm, RunClock& clock) {
  const Workload& work = buffers.work();
  clock.timer.start(nullptr);
  for (int i = 0; i < work.batches; ++i) {
    CUDA_CHECK(cudaMemcpy(buffers.device_a(i), buffers.host_a(i), work.a_bytes(), cudaMemcpyHostToDevice));
    gemm.run(buffers.device_a(i), buffers.device_b(), buffers.device_c(i), work.shape, nullptr);
    CUDA_CHECK(cudaMemcpy(buffers.host_c(i), buffers.device_c(i), work.c_bytes(), cudaMemcpyDeviceToHost));
  }
  return clock.timer.stop();
}

// ---- one stream per engine -----------------------------------------------------------

namespace {

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
  explicit EngineStreams(int device_slots) : slots_(device_slots) {
    if (slots_ < 1) throw std::invalid_argument("EngineStreams: needs at least one device slot");
    for (std::vector<Event>* events : {&h2d_done_, &kernel_done_, &d2h_done_}) {
      events->reserve(static_cast<std::size_t>(slots_));
      for (int slot = 0; slot < slots_; ++slot) events->emplace_back(cudaEventDisableTiming);
    }
  }

  // The three streams: H2D (also where a run is timed from), compute, D2H.
  const StreamPool& streams() const { return streams_; }

  // Every batch 0 .. batches-1 through `ops` (the stage's own three calls),
  // each on its engine's stream, timed with the clock's timer from the H2D
  // stream (its start is the fork, its stop the join); waits and returns the
  // time, and the clock gets the host's time to issue the run.
  Millis run(const BatchOps& ops, int batches, RunClock& clock) const {
    const cudaStream_t h2d = streams_[0];
    const cudaStream_t compute = streams_[1];
    const cudaStream_t d2h = streams_[2];
    auto wait = [](cudaStream_t stream, const Event& event) {
      CUDA_CHECK(cudaStreamWaitEvent(stream, event.get(), 0));
    };
    auto record = [](const Event& event, cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(event.get(), stream)); };
    clock.timer.start(h2d, {compute, d2h});
    const HostTimer host;
    for (int batch = 0; batch < batches; ++batch) {
      const auto slot = static_cast<std::size_t>(batch % slots_);
      const bool slot_reused = batch >= slots_;

      if (slot_reused) wait(h2d, kernel_done_[slot]);
      ops.h2d(batch, h2d);
      record(h2d_done_[slot], h2d);

      wait(compute, h2d_done_[slot]);
      if (slot_reused) wait(compute, d2h_done_[slot]);
      ops.compute(batch, compute);
      record(kernel_done_[slot], compute);

      wait(d2h, kernel_done_[slot]);
      ops.d2h(batch, d2h);
      record(d2h_done_[slot], d2h);
    }
    clock.issued = host.elapsed();
    return clock.timer.stop();
  }

 private:
  int slots_;
  StreamPool streams_{3};
  std::vector<Event> h2d_done_;
  std::vector<Event> kernel_done_;
  std::vector<Event> d2h_done_;
};

}  // namespace

// ---- the variants -------------------------------------------------------------------

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

void add_bound_variants(PoolMeasurements& runs, BatchBuffers& buffers, const BatchOps& ops,
                        const BoundStreams& streams, RunClock& clock) {
  runs.add_bounds(buffers, ops, streams.one.get(), streams.second.get(), clock.timer);
  // Each resource alone through the pool's own depth-first loop.
  runs.add_resource_runs(ops, [&clock](const StreamPool& pool, const BatchOps& only, int batches) {
    return pool_run(pool, IssueOrder::depth_first, only, batches, clock);
  });
}

void measure_variants(PoolMeasurements& runs, const RepeatPlan& plan) {
  progress("timing " + std::to_string(runs.entries().size()) + " variants: " + std::to_string(plan.warmup) + " warm-up + " +
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

// ---- the pool experiments ------------------------------------------------------------------

CommonDefaults pool_defaults(std::optional<GemmKernel> kernel, bool host_memory_choice) {
  return {.host_memory = HostMemory::pinned, .kernel_choice = kernel.has_value(),
          .kernel = kernel.value_or(GemmKernel::naive), .host_memory_choice = host_memory_choice};
}

Needs needs(const PoolRun& run) {
  const CommonOptions& options = run.common;
  const Workload& work = options.work;
  const int slots = device_slots_for(run.pool, work.batches);
  MemoryNeeds memory = memory_needs(work, options.host_memory, slots);
  if (run.shape.variants.serial_baselines) {  // both kinds: the baselines run on pageable and on pinned memory
    memory = combined(memory_needs(work, HostMemory::pageable, slots), memory_needs(work, HostMemory::pinned, slots));
  }
  memory.device_bytes += gemm_device_bytes(options.gemm, streams_running_gemms(run.pool));
  return {memory, run.shape.flags.device_buffers ? "try fewer --batches, or --device-buffers slots"
                                                 : "try fewer --batches or smaller --m, --n, --k"};
}

Estimate estimate(const PoolRun& run, int /*device*/) {
  const CommonOptions& options = run.common;
  const Gemm gemm(options.gemm);
  const Rates rates = measure_rates(gemm, options.work.shape);
  return {estimate_seconds(options.work, options.plan, run.pool, options.host_memory, rates, run.shape.variants),
          describe_workload(options.work, options.gemm)};
}

PoolFigures measure(const PoolRun& run) {
  const CommonOptions& options = run.common;
  const Workload& work = options.work;
  const Gemm gemm(options.gemm);
  const int slots = device_slots_for(run.pool, work.batches);

  // The pool's buffers; with the serial baselines, one set on each host memory kind.
  const PoolVariants& variants = run.shape.variants;
  const bool both_kinds = variants.serial_baselines;
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
  if (both_kinds) {  // stage 01's loop on pageable and on pinned memory
    for (BatchBuffers* set : {&*pageable, &*pinned}) {
      runs.add_serial(*set, [set, &gemm, &clock] { return serial_run(*set, gemm, clock); });
    }
  }
  const StreamPool pool(run.pool.streams);  // the article's cudaStreamCreate: blocking streams
  add_pool_variant(runs, buffers, pool, IssueOrder::depth_first, ops, clock);
  if (variants.orders > 1) add_pool_variant(runs, buffers, pool, IssueOrder::breadth_first, ops, clock);
  std::optional<EngineStreams> engines;
  if (variants.engine_streams) {
    const EngineStreams& e = engines.emplace(slots);
    runs.add_engine_streams(
        buffers, e.streams(), [&e, &ops, &work, &clock] { return e.run(ops, work.batches, clock); },
        [&clock] { return clock.issued; });
  }
  std::deque<StreamPool> sweep_pools;
  add_sweep_variants(runs, buffers, sweep_pools, run.pool.sweep, ops, clock);
  const BoundStreams bound_streams;
  if (variants.bounds) add_bound_variants(runs, buffers, ops, bound_streams, clock);
  measure_variants(runs, options.plan);

  // One more run of the pool (depth-first), recorded with CUPTI, one row per
  // stream; then the pool re-timed with recording over, to show that
  // recording costs the timed runs nothing.
  std::optional<StageTimeline> timeline;
  if (run.timeline.record) {
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
  return {.device_slots = slots, .runs = runs.measured_only(), .timeline = std::move(timeline)};
}

void report(const PoolRun& run, const PoolFigures& figures, Report& report) {
  const CommonOptions& options = run.common;
  const PoolMeasurements& runs = figures.runs;
  report.result = pool_result(report.result.stage, report.result.device, options, run.pool, figures.device_slots, runs);
  report.checked_runs("in " + plural(report.result.variants_verified, "variant"));
  add_pool_header(report, options, run.pool);
  add_variants(report);
  if (run.shape.variants.serial_baselines) add_pool_against_serial(report, options, run.pool, runs);
  if (run.shape.bound_details) {
    add_pool_bound(report, options.work, runs);
    add_engine_streams(report, runs);
    add_regime(report, options, runs);
  } else {
    add_main_bound(report, runs);
    add_variant_bounds(report, runs, [](const PoolMeasurements::Entry&) { return true; }, /*loose=*/false);
    add_engine_streams(report, runs);
  }
  add_sweep(report, runs, "pool size sweep (depth-first):", "pool.plateau");
  if (run.shape.bound_details) add_device_memory(report, run.pool, options.work.batches);
  if (figures.timeline) add_timeline(report, *figures.timeline, run.timeline);
}

}  // namespace csg::pool
