// Stage 04: the stream-pool work of stage 03, captured once into a CUDA Graph
// and replayed, in the article's six steps.
//
// Lesson: a graph does not make the copies or kernels faster; the GPU time of a
// replay equals the stream pool's. What it cuts is the CPU's cost of issuing
// the work (one cudaGraphLaunch instead of 3 × batches calls), paid for once
// by capture + instantiate. So graphs win where launches dominate: many tiny
// kernels. And without step 4 (join) CUDA refuses to end the capture at all.
//
// Run:    ./04_graph_capture_gemm                        (the article: 100 batches, 8 streams, pinned)
//         ./04_graph_capture_gemm --batches 6 --streams 3 --dot graph.dot   (a readable DAG)
//         ./04_graph_capture_gemm --skip-join            (the missing join: exit 1)
//         ./04_graph_capture_gemm --timeline --trace 04.trace.json   (a replay, measured node by node)
//         ./04_graph_capture_gemm --kernel cublas     (cublasSgemm captured into the graph like any kernel)
// Output: the graph's structure, the one-time costs (capture, instantiate,
//         upload, first launch), replay vs stream pool GPU time, CPU issue
//         time and the break-even replay count, exec update vs re-capture,
//         tiny-work numbers, and whether every batch of every run verified.
//         --timeline draws one more (untimed) replay as the article's timeline:
//         one row per pool stream, staggered like stage 03's, since the graph
//         holds the same work.

#include <algorithm>
#include <iostream>
#include <optional>

#include "workload/batch_buffers.hpp"
#include "capture_guard.hpp"
#include "report/device_info.hpp"
#include "cuda/graph.hpp"
#include "graph_costs.hpp"
#include "graph_inspect.hpp"
#include "report.hpp"
#include "graph_timeline.hpp"
#include "exec_update.hpp"
#include "tiny_work.hpp"
#include "cli/options.hpp"
#include "cli/pool_options.hpp"
#include "workload/resources.hpp"
#include "report/stage_main.hpp"
#include "timeline/stage_timeline.hpp"
#include "workload/stream_pool.hpp"
#include "timeline/timeline_options.hpp"
#include "measure/timers.hpp"

namespace {

constexpr const char* kStage = "04_graph_capture_gemm";
constexpr int kDefaultTinyCount = 1000;  // tiny operations per run: enough that per-op costs dominate
constexpr int kMaxTinyCount = 10000;
constexpr int kDefaultTinySize = 64;     // 64³ GEMM: 0.5 MFLOP, a few µs of GPU work
constexpr int kMaxTinySize = 1024;

enum class Join { yes, no };

// The timeline is a graph replay: CUPTI only, since an event recorded during
// capture becomes no node and can't time anything inside the graph.
constexpr csg::TimelineSupport kReplayTimeline{.events_possible = false};

}  // namespace

int main(int argc, char** argv) {
  return csg::run_stage(kStage, [&] {
    // Options: every argument is validated here, before any CUDA call.
    csg::StageCli cli(kStage,
                      "The stream-pool GEMMs captured into a CUDA Graph (fork/join), its costs, and where graphs win.",
                      csg::CommonDefaults{csg::HostMemory::pinned, {csg::HostMemory::pageable, csg::HostMemory::pinned}});
    csg::add_pool_options(cli, /*with_sweep=*/false);  // --streams, --device-buffers, as in stage 03
    cli.add_text("dot", "Write the captured graph as Graphviz DOT (cudaGraphDebugDotPrint) to FILE", "", "FILE");
    cli.add_flag("skip-join", "Leave out step 4 (join): show the error CUDA gives, then exit 1");
    cli.add_int("tiny-count", "Empty kernels and tiny GEMMs in the where-graphs-win runs", kDefaultTinyCount, 1,
                kMaxTinyCount);
    cli.add_int("tiny-size", "m = n = k of the tiny GEMMs", kDefaultTinySize, 1, kMaxTinySize);
    csg::add_timeline_options(cli, kReplayTimeline);  // --timeline, --timeline-batches, --trace
    const auto options = cli.parse(argc, argv);
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::Workload& work = options->work;
    const csg::PoolConfig pool_config = csg::read_pool_options(cli, *options, /*with_sweep=*/false);
    const int streams = pool_config.streams;
    const std::string device_buffers = csg::to_string(pool_config.device_buffers);
    const std::string dot_path = cli.get_string("dot");
    const bool skip_join = cli.get_flag("skip-join");
    if (!dot_path.empty()) csg::check_output_path("dot", dot_path);
    const csg::TimelineOptions timeline_options = csg::read_timeline_options(cli, kReplayTimeline);
    if (skip_join && streams < 2) {
      throw csg::UsageError("--skip-join needs --streams 2 or more: with one stream nothing is forked, so there is "
                            "nothing to join");
    }
    const csg::TinyConfig tiny_config{static_cast<int>(cli.get_int("tiny-count")),
                                      static_cast<int>(cli.get_int("tiny-size")), options->host_memory,
                                      options->seed};

    const int device = csg::require_device();
    const csg::Gemm gemm(options->gemm);  // --kernel: the article's naive kernel unless told otherwise
    for (const std::string& warning : pool_config.warnings) std::cerr << warning << '\n';
    // Slots: batch i uses slot i % streams, which is its stream's own slot.
    const int slots = csg::device_slots_for(pool_config, work.batches);
    // Two sets of the workload's buffers (the second for the update experiment) and the tiny GEMMs.
    const csg::MemoryNeeds one_set = csg::memory_needs(work, options->host_memory, slots);
    csg::MemoryNeeds needs = csg::combined(csg::combined(one_set, one_set),
                                           csg::memory_needs(csg::tiny_gemm_workload(tiny_config),
                                                             options->host_memory, tiny_config.count));
    needs.device_bytes += csg::gemm_device_bytes(options->gemm, streams);
    csg::check_fits(needs, "try fewer --batches, --device-buffers slots or a smaller --tiny-count");

    csg::progress("allocating and filling " + std::to_string(work.batches) + " batches (" +
                  std::string(csg::to_string(options->host_memory)) + " host memory, " + device_buffers + ")");
    csg::BatchBuffers buffers(work, options->host_memory, slots);
    buffers.fill_inputs(options->seed);
    const csg::StreamPool pool(streams);  // blocking streams, as the article's cudaStreamCreate
    // cuBLAS: each stream's handle and workspace exist before any capture (a capture can't allocate).
    for (int i = 0; i < streams; ++i) gemm.prepare(pool[i]);

    // The article's steps 1-5a: capture the per-batch work on the pool into a graph.
    auto capture = [&](csg::BatchBuffers& bufs, int batches, Join join) {
      // step 1: begin capture (on stream 0; it becomes the graph's entry)
      CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
      const csg::CaptureGuard guard(pool);  // a throw before step 5 ends the capture and discards the graph
      // step 2: fork (record fork_event on stream 0; every other stream waits on it and joins the capture)
      pool.fork_from(pool[0]);
      // step 3: the per-batch work, batch i on stream i % pool
      for (int batch = 0; batch < batches; ++batch) {
        const cudaStream_t stream = pool.for_batch(batch);
        csg::enqueue_h2d(bufs, batch, stream);   // cudaMemcpyAsync H2D of A_i
        csg::enqueue_gemm(gemm, bufs, batch, stream);  // C_i = A_i · B
        csg::enqueue_d2h(bufs, batch, stream);   // cudaMemcpyAsync D2H of C_i
      }
      // step 4: join (each stream records its join_event; stream 0 waits on all)
      if (join == Join::yes) pool.join_into(pool[0]);
      // step 5: end capture ...
      return csg::end_capture(pool[0]);
    };

    if (skip_join) {
      csg::progress("capturing without step 4 (join)");
      try {
        static_cast<void>(capture(buffers, work.batches, Join::no));
      } catch (const csg::CudaError& error) {
        if (error.code() != cudaErrorStreamCaptureUnjoined) throw;
        const bool still_capturing = csg::any_capturing(pool);
        const csg::Graph recaptured = capture(buffers, work.batches, Join::yes);
        csg::print_missing_join(std::cout, error, streams, still_capturing, csg::inspect_graph(recaptured));
        return csg::kExitFailure;
      }
      std::cout << "--skip-join: CUDA accepted a capture without the join on this system; expected "
                   "cudaErrorStreamCaptureUnjoined.\n";
      return csg::kExitFailure;
    }

    csg::progress("the six steps, once");
    const csg::Graph graph = capture(buffers, work.batches, Join::yes);
    // step 5: ... and instantiate (cudaGraphInstantiateWithParams: reports result_out and the failing node)
    const csg::GraphExec exec = csg::GraphExec::instantiate(graph);
    buffers.poison_outputs(pool[0]);
    // step 6: launch (on stream 0, where the capture began), then wait for it
    exec.launch(pool[0]);
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));

    csg::GraphStageRun run;
    run.options = *options;
    run.streams = streams;
    run.device_buffers = device_buffers;
    run.dot_path = dot_path;
    run.article_check = buffers.verify(options->seed);
    run.structure = csg::inspect_graph(graph);
    if (!dot_path.empty()) csg::write_graph_dot(graph, dot_path);

    // The same work without capture: stage 03's loop on the pool (fork, work, join).
    auto issue_on_streams = [&] {
      pool.fork_from(pool[0]);
      for (int batch = 0; batch < work.batches; ++batch) {
        const cudaStream_t stream = pool.for_batch(batch);
        csg::enqueue_h2d(buffers, batch, stream);
        csg::enqueue_gemm(gemm, buffers, batch, stream);
        csg::enqueue_d2h(buffers, batch, stream);
      }
      pool.join_into(pool[0]);
    };
    auto poison = [&] { buffers.poison_outputs(pool[0]); };
    auto verify = [&] { return buffers.verify(options->seed); };

    csg::progress("one-time costs: capture, instantiate, upload, first launch");
    run.lifecycle = csg::measure_graph_lifecycle(
        options->plan, {[&] { return capture(buffers, work.batches, Join::yes); }, poison, verify, pool[0]});

    csg::progress("graph replay vs stream pool, and the CPU time to issue each");
    run.replay = csg::measure_replay_vs_streams(options->plan, {&exec, issue_on_streams, poison, verify, pool[0]});

    csg::progress("when the work changes: exec update vs re-capture + instantiate");
    const std::uint64_t second_seed = options->seed + 1;
    csg::BatchBuffers second(work, options->host_memory, slots);
    second.fill_inputs(second_seed);
    run.updates = csg::measure_updates(
        options->plan,
        {[&](csg::BatchBuffers& bufs, int batches) { return capture(bufs, batches, Join::yes); }, &buffers, &second,
         second_seed, pool[0]});

    csg::progress("where graphs win: " + std::to_string(tiny_config.count) + " empty kernels and " +
                  std::to_string(tiny_config.count) + " tiny GEMMs");
    run.tiny_config = tiny_config;
    run.tiny = csg::measure_launch_overhead(options->plan, pool, tiny_config);

    // --timeline: one more replay, untimed, with CUPTI timestamping every node
    // (of a second exec of the same graph, whose nodes it can name by pool
    // stream and batch); then the timed exec's replay re-timed with recording over.
    std::optional<csg::StageTimeline> timeline;
    if (timeline_options.record) {
      csg::progress("recording one more graph replay for the timeline");
      const csg::GraphTimelineRun traced = csg::prepare_graph_timeline(graph, buffers, pool);
      csg::EventTimer timer;
      auto replay = [&](const csg::GraphExec& e) { timer.start(pool[0]); e.launch(pool[0]); return timer.stop(); };
      timeline = csg::record_stage_timeline(
          options->plan, {.plan = traced.plan, .notes = traced.notes, .poison = poison, .verify = verify,
                          .timed_run = [&] { return replay(exec); },     // the exec the stage timed
                          .recorded_run = [&] { replay(traced.exec); },  // its time is not used
                          .timed = run.replay.graph_replay,
                          .source = timeline_options.source});
    }

    const csg::StageResult result = csg::graph_stage_result(kStage, csg::query_device_info(device), run);
    csg::print_graph_stage(std::cout, result, run);
    nlohmann::json json = csg::graph_stage_json(result, run);
    if (timeline) {
      csg::report_stage_timeline(std::cout, *timeline, timeline_options, kStage);
      json["timeline"] = csg::to_json(*timeline, timeline_options);
    }
    if (!options->json_path.empty()) csg::write_json_file(options->json_path, json);
    const bool timeline_passed = !timeline || timeline->passed();
    return result.verification.passed && timeline_passed ? csg::kExitOk : csg::kExitFailure;
  });
}
