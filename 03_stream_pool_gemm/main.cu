// Stage 03: the article's stream pool.
//
// Lesson: with pinned host memory and a pool of streams, batch i's copy in,
// GEMM and copy out are queued on stream i % pool with cudaMemcpyAsync, so one
// batch's copies run while another batch computes. The total shrinks from the
// SUM of the three stages (stage 01) towards the LONGEST of them, the
// pipeline bound; past a few streams, more streams buy nothing.
//
// Run:    ./03_stream_pool_gemm                           (100 × 1024×1024×512, 8 streams, pinned)
//         ./03_stream_pool_gemm --host-memory pageable    (the same pool collapses to serial speed)
//         ./03_stream_pool_gemm --streams-sweep 1,2,4,8 --device-buffers per-batch
//         ./03_stream_pool_gemm --timeline --trace 03.trace.json   (the article's pool picture, measured)
//         ./03_stream_pool_gemm --kernel cublas       (a fast GEMM: the pool is now bound by PCIe, not compute)
// Output: the serial baselines (pageable, pinned) and the pool in both issue
//         orders, measured in the same rounds; the time per pool size; the
//         isolated H2D, kernel and D2H sums, the pipeline bound and the pool's
//         time as a percentage of it; device memory per layout; verification.
//         --timeline draws one more (untimed) pool run as the article's
//         timeline: one row per stream, each batch's H K D staggered against
//         the other streams', then the pool's median re-timed after recording.

#include <algorithm>
#include <iostream>
#include <optional>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "report/device_info.hpp"
#include "engine_streams.hpp"
#include "cli/pool_options.hpp"
#include "measurements.hpp"
#include "workload/resources.hpp"
#include "workload/serial_run.hpp"
#include "report/stage_main.hpp"
#include "measure/stage_sums.hpp"
#include "timeline/stage_timeline.hpp"
#include "workload/stream_pool.hpp"
#include "timeline/timeline_options.hpp"
#include "measure/timers.hpp"

int main(int argc, char** argv) {
  return csg::run_stage("03_stream_pool_gemm", [&] {
    // Options, all validated before any CUDA call. Pinned is the default: the
    // pool needs page-locked memory to overlap (see stage 02).
    csg::StageCli cli("03_stream_pool_gemm",
                      "The stream pool: batch i runs cudaMemcpyAsync H2D -> GEMM -> cudaMemcpyAsync D2H on "
                      "stream i % streams.",
                      {.host_memory = csg::HostMemory::pinned});
    csg::add_pool_options(cli, /*with_sweep=*/true);
    csg::add_timeline_options(cli);  // --timeline, --timeline-batches, --trace
    const auto options = cli.parse(argc, argv);
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::Workload& work = options->work;
    const csg::PoolConfig pool_config = csg::read_pool_options(cli, *options, /*with_sweep=*/true);
    const csg::TimelineOptions timeline_options = csg::read_timeline_options(cli);

    const int device = csg::require_device();
    const csg::Gemm gemm(options->gemm);  // --kernel: the article's naive kernel unless told otherwise
    const int slots = csg::device_slots_for(pool_config, work.batches);
    // The pool's buffers, plus the other host memory kind for the serial baselines.
    const csg::MemoryNeeds one_set = csg::memory_needs(work, options->host_memory, slots);
    csg::MemoryNeeds needs = csg::combined(one_set, one_set);
    needs.device_bytes += csg::gemm_device_bytes(options->gemm, csg::streams_running_gemms(pool_config));
    csg::check_fits(needs, "try fewer --batches, or --device-buffers slots");

    csg::progress("allocating " + std::to_string(work.batches) + " batches, " + std::to_string(slots) +
                  " device slot(s), pageable and pinned host memory");
    csg::BatchBuffers pageable(work, csg::HostMemory::pageable, slots);
    csg::BatchBuffers pinned(work, csg::HostMemory::pinned, slots);
    pageable.fill_inputs(options->seed);
    pinned.fill_inputs(options->seed);
    csg::BatchBuffers& buffers = options->host_memory == csg::HostMemory::pinned ? pinned : pageable;

    // The lesson: a pool of streams (the article's cudaStreamCreate), batch i
    // on stream i % size. Timed from stream 0: it forks to the others and
    // joins them back, so the stop event waits for every batch.
    csg::EventTimer timer;
    auto pool_run = [&](const csg::StreamPool& pool, csg::IssueOrder order) {
      timer.start(pool[0]);
      pool.fork_from(pool[0]);
      if (order == csg::IssueOrder::depth_first) {
        // The article's loop: each batch's three calls, one batch after another.
        for (int batch = 0; batch < work.batches; ++batch) {
          const cudaStream_t stream = pool.for_batch(batch);
          csg::enqueue_h2d(buffers, batch, stream);   // cudaMemcpyAsync: returns at once (pinned memory)
          csg::enqueue_gemm(gemm, buffers, batch, stream);  // runs after this stream's H2D
          csg::enqueue_d2h(buffers, batch, stream);   // runs after this stream's GEMM
        }
      } else {
        // Breadth-first: a wave of one batch per stream at a time; every H2D of
        // the wave, then every GEMM, then every D2H. Each stream still runs
        // H2D -> GEMM -> D2H per batch (so slots stay safe); only the host's
        // order of issue changes.
        for (int wave = 0; wave < work.batches; wave += pool.size()) {
          const int end = std::min(work.batches, wave + pool.size());
          for (int batch = wave; batch < end; ++batch) csg::enqueue_h2d(buffers, batch, pool.for_batch(batch));
          for (int batch = wave; batch < end; ++batch) csg::enqueue_gemm(gemm, buffers, batch, pool.for_batch(batch));
          for (int batch = wave; batch < end; ++batch) csg::enqueue_d2h(buffers, batch, pool.for_batch(batch));
        }
      }
      pool.join_into(pool[0]);
      return timer.stop();
    };

    // Everything measured in the same rounds, so the ratios are same-run ratios.
    csg::PoolMeasurements runs(work, options->seed, gemm);
    runs.add_serial(pageable, timer);
    runs.add_serial(pinned, timer);
    csg::StreamPool pool(pool_config.streams);
    for (csg::IssueOrder order : {csg::IssueOrder::depth_first, csg::IssueOrder::breadth_first}) {
      runs.add_pool(buffers, pool, order, [&, order] { return pool_run(pool, order); });
    }
    // Issue 9: one stream per engine instead of one per batch (engine_streams.cuh),
    // the pipeline for the PCIe-bound regime of a fast GEMM (--kernel cublas).
    const csg::EngineStreams engines(slots);
    runs.add_engine_streams(buffers, engines, [&] {
      timer.start(engines.origin());
      engines.issue(gemm, buffers);
      return timer.stop();
    });
    std::vector<csg::StreamPool> sweep_pools;
    sweep_pools.reserve(pool_config.sweep.size());
    for (int size : pool_config.sweep) {
      const csg::StreamPool* sweep_pool = &sweep_pools.emplace_back(size);  // reserved: never moves
      runs.add_pool(buffers, *sweep_pool, csg::IssueOrder::depth_first,
                    [&, sweep_pool] { return pool_run(*sweep_pool, csg::IssueOrder::depth_first); }, /*sweep=*/true);
    }
    csg::StreamPool bound_streams(2);  // the isolated sums and both directions at once
    runs.add_bounds(buffers, bound_streams, timer);

    csg::progress("timing " + std::to_string(runs.size()) + " variants: " + std::to_string(options->plan.warmup) +
                  " warm-up + " + std::to_string(options->plan.repeats) + " timed rounds");
    runs.measure(options->plan);

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
                          .timed_run = [&] { return pool_run(pool, csg::IssueOrder::depth_first); },
                          .timed = runs.pool(csg::IssueOrder::depth_first).stats,
                          .source = timeline_options.source});
    }

    const csg::StageResult result =
        csg::pool_result("03_stream_pool_gemm", csg::query_device_info(device), *options, pool_config, slots, runs);
    csg::print_pool_result(std::cout, result, *options, pool_config, runs);
    nlohmann::json json = csg::to_json(result);
    if (timeline) {
      csg::report_stage_timeline(std::cout, *timeline, timeline_options, "03_stream_pool_gemm");
      json["timeline"] = csg::to_json(*timeline, timeline_options);
    }
    if (!options->json_path.empty()) csg::write_json_file(options->json_path, json);
    const bool timeline_passed = !timeline || timeline->passed();
    return result.verification.passed && timeline_passed ? csg::kExitOk : csg::kExitFailure;
  });
}
