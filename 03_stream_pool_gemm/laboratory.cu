// Stage 03: the article's stream pool. Batch i's copy in, GEMM and copy out
// are queued on stream i % pool with cudaMemcpyAsync from pinned memory, so
// one batch's copies run while another batch computes: the total shrinks from
// the SUM of the three stages (stage 01) towards the LONGEST of them, and past
// a few streams more streams buy nothing.
//   ./03_stream_pool_gemm          (100 GEMMs of 1024x1024x512 on 8 streams; --help for the rest)

#include <algorithm>
#include <iostream>
#include <optional>
#include <vector>

#include "base/progress.hpp"
#include "cli/pool_options.hpp"
#include "cuda/stream_pool.hpp"
#include "engine_streams.hpp"
#include "measure/timers.hpp"
#include "measurements.hpp"
#include "priorities.hpp"
#include "priorities_report.hpp"
#include "report.hpp"
#include "report/device_info.hpp"
#include "lesson.hpp"
#include "report/stage_main.hpp"
#include "timeline/stage_timeline.hpp"
#include "batches.hpp"
#include "common.cuh"
#include "stage.hpp"

namespace {
constexpr const char* kStage = "03_stream_pool_gemm";
using csg::pool::IssueOrder;

int run_everything(int argc, char** argv) {
  {
    // Pinned is the default: the pool needs page-locked memory to overlap (stage 02).
    csg::StageCli cli(kStage,
                      "The stream pool: batch i runs cudaMemcpyAsync H2D -> GEMM -> cudaMemcpyAsync D2H on "
                      "stream i % streams.",
                      {.host_memory = csg::HostMemory::pinned});
    csg::add_pool_options(cli, /*with_sweep=*/true);
    csg::add_timeline_options(cli);  // --timeline, --timeline-batches, --trace
    csg::pool::add_stream_count_options(cli);  // --count-sweep, --count-batches, --count-size
    csg::pool::add_stream_extras_options(cli);  // --priorities, --contention
    const auto options = cli.parse(argc, argv);  // every argument is checked here, before any CUDA call
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::Workload& work = options->work;
    const csg::PoolConfig pool_config = csg::read_pool_options(cli, *options, /*with_sweep=*/true);
    const csg::TimelineOptions timeline_options = csg::read_timeline_options(cli);
    const csg::pool::StreamCountConfig count_config = csg::pool::read_stream_count_options(cli);
    const csg::Workload count_work = count_config.workload();
    const csg::pool::StreamExtrasConfig extras = csg::pool::read_stream_extras_options(cli);

    const int device = csg::require_device();
    const csg::Gemm gemm(options->gemm);  // --kernel: the article's naive kernel unless told otherwise
    const int slots = csg::device_slots_for(pool_config, work.batches);
    // The pool's buffers, plus the other host memory kind for the serial baselines.
    const csg::MemoryNeeds one_set = csg::memory_needs(work, options->host_memory, slots);
    csg::MemoryNeeds needs = csg::combined(one_set, one_set);
    if (!count_config.sizes.empty()) {  // the stream-count sweep: pinned, a device slot per batch
      needs = csg::combined(needs, csg::memory_needs(count_work, csg::HostMemory::pinned, count_work.batches));
    }
    needs.device_bytes += csg::gemm_device_bytes(options->gemm, csg::streams_running_gemms(pool_config));
    csg::check_fits(needs, "try fewer --batches, or --device-buffers slots");
    const csg::Rates rates = csg::measure_rates(gemm, work.shape);
    csg::check_estimate(csg::pool::estimate_seconds(work, options->plan, pool_config, options->host_memory, rates,
                                                    timeline_options.record) +
                            csg::pool::stream_count_seconds(count_config, options->plan, rates) +
                            csg::pool::stream_extras_seconds(extras),
                        options->max_minutes, csg::describe_workload(work, options->gemm));

    csg::progress("allocating " + std::to_string(work.batches) + " batches, " + std::to_string(slots) +
                  " device slot(s), pageable and pinned host memory");
    csg::BatchBuffers pageable(work, csg::HostMemory::pageable, slots);
    csg::BatchBuffers pinned(work, csg::HostMemory::pinned, slots);
    pageable.fill_inputs(options->seed);
    pinned.fill_inputs(options->seed);
    csg::BatchBuffers& buffers = options->host_memory == csg::HostMemory::pinned ? pinned : pageable;

    // The article's loop body for batch i on `stream`: copy in, compute, copy
    // out. From pinned memory cudaMemcpyAsync returns at once, so the host goes
    // on queueing while the copy runs. (Stage 01's calls, cudaMemcpy, are the
    // same-process serial baseline.)
    // Any buffers' shape: the stream-count sweep below runs its own workload.
    const dim3 block = csg::naive_block();  // the article's blocksize(32, 32), and gridsize from the shape
    auto compute = [&](csg::BatchBuffers& b, int i, cudaStream_t stream) {
      const csg::GemmShape shape = b.work().shape;
      if (gemm.kernel() == csg::GemmKernel::naive) {
        csg::gemm_naive<<<csg::naive_grid(shape), block, 0, stream>>>(b.device_a(i), b.device_b(), b.device_c(i),
                                                                      shape.m, shape.n, shape.k);
        CUDA_CHECK_LAUNCH("gemm_naive");
      } else {  // --kernel tiled or cublas
        gemm.run(b.device_a(i), b.device_b(), b.device_c(i), shape, stream);
      }
    };
    auto pool_ops = [&](csg::BatchBuffers& b) {
      return csg::BatchOps{
          .h2d = [&](int i, cudaStream_t stream) {
            CUDA_CHECK(cudaMemcpyAsync(b.device_a(i), b.host_a(i), b.work().a_bytes(), cudaMemcpyHostToDevice,
                                       stream));
          },
          .compute = [&](int i, cudaStream_t stream) { compute(b, i, stream); },
          .d2h = [&](int i, cudaStream_t stream) {
            CUDA_CHECK(cudaMemcpyAsync(b.host_c(i), b.device_c(i), b.work().c_bytes(), cudaMemcpyDeviceToHost,
                                       stream));
          }};
    };
    const csg::BatchOps ops = pool_ops(buffers);

    // One run on a pool, timed from stream 0: fork, every batch, join. The
    // host's time to issue it is read too: no run can end before its last
    // operation was queued, so that time is one of the bound's paths.
    csg::EventTimer timer;
    csg::Millis issued{};
    auto pool_run = [&](const csg::StreamPool& pool, IssueOrder order, const csg::BatchOps& batch_ops, int batches) {
      timer.start(pool[0]);
      const csg::HostTimer host;
      // fork: stream 0 records the fork event and every other stream waits on
      // it, so their work starts after the timer's start
      CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
      for (int s = 1; s < pool.size(); ++s) CUDA_CHECK(cudaStreamWaitEvent(pool[s], pool.fork_event(), 0));
      if (order == IssueOrder::depth_first) {
        // The article's loop: each batch's three calls, one batch after another.
        for (int i = 0; i < batches; ++i) {
          const cudaStream_t stream = pool[i % pool.size()];
          batch_ops.h2d(i, stream);
          batch_ops.compute(i, stream);
          batch_ops.d2h(i, stream);
        }
      } else {
        // Breadth-first: a wave of one batch per stream at a time, every H2D
        // of the wave, then every GEMM, then every D2H. Each stream still runs
        // H2D -> GEMM -> D2H per batch; only the host's order of issue changes.
        for (int wave = 0; wave < batches; wave += pool.size()) {
          const int end = std::min(batches, wave + pool.size());
          for (int i = wave; i < end; ++i) batch_ops.h2d(i, pool.for_batch(i));
          for (int i = wave; i < end; ++i) batch_ops.compute(i, pool.for_batch(i));
          for (int i = wave; i < end; ++i) batch_ops.d2h(i, pool.for_batch(i));
        }
      }
      // join: every other stream records its join event and stream 0 waits on
      // them all, so the timer's stop comes after every batch
      for (int s = 1; s < pool.size(); ++s) {
        CUDA_CHECK(cudaEventRecord(pool.join_event(s), pool[s]));
        CUDA_CHECK(cudaStreamWaitEvent(pool[0], pool.join_event(s), 0));
      }
      issued = host.elapsed();
      return timer.stop();
    };
    auto last_issue = [&] { return issued; };

    // Stage 01's loop on the legacy default stream, the baseline of this run.
    auto serial_run = [&](csg::BatchBuffers& b) {
      timer.start(nullptr);
      for (int i = 0; i < work.batches; ++i) {
        CUDA_CHECK(cudaMemcpy(b.device_a(i), b.host_a(i), work.a_bytes(), cudaMemcpyHostToDevice));
        compute(b, i, nullptr);
        CUDA_CHECK(cudaMemcpy(b.host_c(i), b.device_c(i), work.c_bytes(), cudaMemcpyDeviceToHost));
      }
      return timer.stop();
    };

    // Everything measured in the same rounds, so the ratios are same-run ratios.
    csg::pool::PoolMeasurements runs(work, options->seed, gemm);
    runs.add_serial(pageable, [&] { return serial_run(pageable); });
    runs.add_serial(pinned, [&] { return serial_run(pinned); });
    const csg::StreamPool pool(pool_config.streams);  // the article's cudaStreamCreate: blocking streams
    for (IssueOrder order : {IssueOrder::depth_first, IssueOrder::breadth_first}) {
      runs.add_pool(buffers, pool, order, [&, order] { return pool_run(pool, order, ops, work.batches); },
                    last_issue);
    }
    // One stream per engine instead of one per batch: the pipeline for the
    // PCIe-bound regime of a fast GEMM (--kernel cublas).
    const csg::pool::EngineStreams engines(slots);
    runs.add_engine_streams(
        buffers, engines.streams(), [&] { return engines.run(ops, work.batches, timer, &issued); }, last_issue);
    std::vector<csg::StreamPool> sweep_pools;
    sweep_pools.reserve(pool_config.sweep.size());
    for (int size : pool_config.sweep) {
      const csg::StreamPool* sweep_pool = &sweep_pools.emplace_back(size);  // reserved: never moves
      runs.add_pool(buffers, *sweep_pool, IssueOrder::depth_first,
                    [&, sweep_pool] { return pool_run(*sweep_pool, IssueOrder::depth_first, ops, work.batches); },
                    last_issue,
                    /*sweep=*/true);
    }
    // The bounds: the isolated sums on one stream (and both directions at once
    // on two, for the engine streams), and each resource alone on every pool.
    const csg::StreamPool bound_streams(2);
    runs.add_bounds(buffers, ops, bound_streams[0], bound_streams[1], timer);
    runs.add_resource_runs(ops, [&](const csg::StreamPool& some_pool, const csg::BatchOps& only) {
      return pool_run(some_pool, IssueOrder::depth_first, only, work.batches);
    });

    csg::progress("timing " + std::to_string(runs.size()) + " variants: " + std::to_string(options->plan.warmup) +
                  " warm-up + " + std::to_string(options->plan.repeats) + " timed rounds");
    runs.measure(options->plan);

    // Stream count, all the way: the same pool runs on a workload of short
    // batches (--count-batches x --count-size³), from 1 to 1,024 streams, each
    // size with its own bound, in interleaved rounds of their own.
    std::optional<csg::pool::PoolMeasurements> count_runs;
    std::vector<csg::StreamPool> count_pools;
    std::optional<csg::BatchBuffers> count_buffers;
    if (!count_config.sizes.empty()) {
      count_buffers.emplace(count_work, csg::HostMemory::pinned, count_work.batches);
      count_buffers->fill_inputs(options->seed);
      const csg::BatchOps count_ops = pool_ops(*count_buffers);
      count_runs.emplace(count_work, options->seed, gemm);
      count_pools.reserve(count_config.sizes.size());
      for (const int size : count_config.sizes) {
        const csg::StreamPool* count_pool = &count_pools.emplace_back(size);  // reserved: never moves
        count_runs->add_pool(*count_buffers, *count_pool, IssueOrder::depth_first,
                             [&, count_pool, count_ops] {
                               return pool_run(*count_pool, IssueOrder::depth_first, count_ops, count_work.batches);
                             },
                             last_issue, /*sweep=*/true);
      }
      count_runs->add_bounds(*count_buffers, count_ops, bound_streams[0], bound_streams[1], timer);
      count_runs->add_resource_runs(count_ops, [&](const csg::StreamPool& some_pool, const csg::BatchOps& only) {
        return pool_run(some_pool, IssueOrder::depth_first, only, count_work.batches);
      });
      csg::progress("stream count: " + std::to_string(count_config.sizes.size()) + " pool sizes from " +
                    std::to_string(count_config.sizes.front()) + " to " + std::to_string(count_config.sizes.back()) +
                    " streams, " + std::to_string(count_work.batches) + " GEMMs of " +
                    std::to_string(count_config.size) + "^3");
      count_runs->measure(options->plan);
    }

    // Streams compete for the hardware: a stream of short kernels beside a flood of long
    // ones, at the default and at the highest stream priority; and two
    // streams' kernels whose shared memory per block does or doesn't let
    // their blocks share the SMs.
    std::optional<csg::pool::PriorityResult> priorities;
    std::optional<csg::pool::ContentionResult> contention;
    if (extras.priorities) {
      csg::progress("stream priorities: short kernels beside a flood of long ones");
      priorities = csg::pool::measure_priorities(extras.priority_config);
    }
    if (extras.contention) {
      csg::progress("contention: two streams' kernels with small and with large shared memory per block");
      contention = csg::pool::measure_contention(extras.contention_config);
    }

    // --timeline: one more run of the pool (depth-first), untimed, with CUPTI
    // timestamping every copy and kernel, one row per stream; then the pool
    // re-timed with recording over, to show recording costs the timed runs nothing.
    std::optional<csg::StageTimeline> timeline;
    if (timeline_options.record) {
      csg::progress("recording one more pool run for the timeline");
      timeline = csg::record_stage_timeline(
          options->plan, {.plan = csg::pool_timeline_run(pool, work),
                          .poison = [&] { buffers.poison_outputs(pool[0]); },
                          .verify = [&] { return buffers.verify(options->seed); },
                          .timed_run = [&] { return pool_run(pool, IssueOrder::depth_first, ops, work.batches); },
                          .timed = runs.pool(IssueOrder::depth_first).stats});
    }

    const csg::StageResult result =
        csg::pool::pool_result(kStage, csg::query_device_info(device), *options, pool_config, slots, runs);
    csg::pool::print_pool_result(std::cout, result, *options, pool_config, runs);
    nlohmann::json doc = csg::to_json(result);
    bool passed = result.verification.passed;
    doc["stream_count"] = nullptr;
    if (count_runs) {
      csg::pool::print_stream_count(std::cout, count_config, *count_runs);
      doc["stream_count"] = csg::pool::stream_count_json(count_config, *count_runs);
      passed = passed && doc["stream_count"]["verified"].get<bool>();
    }
    doc["stream_priorities"] = nullptr;
    doc["shared_memory_contention"] = nullptr;
    if (priorities) {
      csg::pool::print_priorities(std::cout, *priorities);
      doc["stream_priorities"] = csg::pool::priorities_json(*priorities);
      passed = passed && priorities->verified;
    }
    if (contention) {
      csg::pool::print_contention(std::cout, *contention);
      doc["shared_memory_contention"] = csg::pool::contention_json(*contention);
      passed = passed && contention->verified;
    }
    return csg::finish_stage(std::cout, kStage, doc, passed, timeline, timeline_options, options->json_path);
  }
}

}  // namespace

namespace csg::lesson03 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {
      {"everything", "the pool, both issue orders, engine streams, 1 to 1,024 streams, priorities, contention",
       run_everything},
  };
  return kLaboratory;
}

}  // namespace csg::lesson03
