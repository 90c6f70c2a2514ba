// Stage 04: stage 03's stream-pool work, captured once into a CUDA Graph and
// replayed, in the article's six steps. A graph does not make the copies or
// kernels faster; what it cuts is the CPU's cost of issuing them (one
// cudaGraphLaunch instead of 3 × batches calls), paid for once by capture and
// instantiate. And without step 4 (join) CUDA refuses to end the capture.
//   ./04_graph_capture_gemm        (100 GEMMs of 1024x1024x512 on 8 streams; --help for the rest)

#include <iostream>
#include <functional>
#include <optional>
#include <vector>

#include "base/progress.hpp"
#include "capture_guard.hpp"
#include "changing_shapes.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "graph_costs.hpp"
#include "graph_inspect.hpp"
#include "exec_update.hpp"
#include "measure/stage_sums.hpp"
#include "measure/timers.hpp"
#include "options.hpp"
#include "regime_map.hpp"
#include "report.hpp"
#include "report/device_info.hpp"
#include "lesson.hpp"
#include "report/stage_main.hpp"
#include "tiny_work.hpp"
#include "batches.hpp"
#include "common.cuh"
#include "stage.hpp"

namespace {
constexpr const char* kStage = "04_graph_capture_gemm";
enum class Join { yes, no };

int run_everything(int argc, char** argv) {
  {
    csg::StageCli cli(kStage,
                      "The stream-pool GEMMs captured into a CUDA Graph (fork/join), its costs, and where graphs win.",
                      {.host_memory = csg::HostMemory::pinned});
    const auto options = csg::graphs::parse_options(cli, argc, argv);  // all checked before any CUDA call
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::Workload& work = options->common.work;
    const int streams = options->pool.streams;

    const int device = csg::require_device();
    const csg::Gemm gemm(options->common.gemm);  // --kernel: the article's naive kernel unless told otherwise
    for (const std::string& warning : options->pool.warnings) std::cerr << warning << '\n';
    const csg::StreamPool pool(streams);  // the article's cudaStreamCreate: blocking streams
    for (int i = 0; i < streams; ++i) gemm.prepare(pool[i]);  // cuBLAS: a capture can't create handles

    // The per-batch work of stage 03 (the article's step 3), on any set of
    // buffers (of any shape): batch i's copy in, compute and copy out on stream i % pool.
    const dim3 block = csg::naive_block();
    auto ops_for = [&](csg::BatchBuffers& b) {
      const csg::Workload& w = b.work();
      return csg::BatchOps{
          .h2d = [&b, &w](int i, cudaStream_t stream) {
            CUDA_CHECK(cudaMemcpyAsync(b.device_a(i), b.host_a(i), w.a_bytes(), cudaMemcpyHostToDevice, stream));
          },
          .compute = [&b, &w, &gemm, block](int i, cudaStream_t stream) {
            if (gemm.kernel() == csg::GemmKernel::naive) {
              const dim3 grid = csg::naive_grid(w.shape);
              csg::gemm_naive<<<grid, block, 0, stream>>>(b.device_a(i), b.device_b(), b.device_c(i), w.shape.m,
                                                          w.shape.n, w.shape.k);
              CUDA_CHECK_LAUNCH("gemm_naive");
            } else {  // --kernel tiled or cublas
              gemm.run(b.device_a(i), b.device_b(), b.device_c(i), w.shape, stream);
            }
          },
          .d2h = [&b, &w](int i, cudaStream_t stream) {
            CUDA_CHECK(cudaMemcpyAsync(b.host_c(i), b.device_c(i), w.c_bytes(), cudaMemcpyDeviceToHost, stream));
          }};
    };
    auto issue_batches = [&](const csg::BatchOps& o, int batches) {
      for (int i = 0; i < batches; ++i) {
        const cudaStream_t stream = pool[i % streams];
        o.h2d(i, stream);
        o.compute(i, stream);
        o.d2h(i, stream);
      }
    };
    // step 2: fork: stream 0 records fork_event; every other stream waits on it (and so joins the capture)
    auto fork = [&] {
      CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
      for (int s = 1; s < streams; ++s) CUDA_CHECK(cudaStreamWaitEvent(pool[s], pool.fork_event(), 0));
    };
    // step 4: join: every other stream records its join_event; stream 0 waits on them all
    auto join = [&] {
      for (int s = 1; s < streams; ++s) {
        CUDA_CHECK(cudaEventRecord(pool.join_event(s), pool[s]));
        CUDA_CHECK(cudaStreamWaitEvent(pool[0], pool.join_event(s), 0));
      }
    };
    // Steps 1 to 5a: capture what `step3` queues on the pool into a graph.
    auto capture_work = [&](const std::function<void()>& step3, Join with_join) {
      // step 1: capture, on stream 0, which becomes the graph's entry
      CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
      const csg::graphs::CaptureGuard guard(pool);  // a throw before step 5 ends the capture and drops it
      fork();
      step3();
      if (with_join == Join::yes) join();
      // step 5: end the capture ...
      cudaGraph_t graph = nullptr;
      CUDA_CHECK(cudaStreamEndCapture(pool[0], &graph));
      return csg::Graph(graph);
    };
    auto capture = [&](csg::BatchBuffers& b, int batches, Join with_join) {
      const csg::BatchOps o = ops_for(b);
      return capture_work([&] { issue_batches(o, batches); }, with_join);
    };
    // step 5: ... and instantiate, with CUDA 12's call that says why it failed
    // (result_out, errNode_out); the article's five-argument form is CUDA 11's.
    auto instantiate = [](const csg::Graph& graph) {
      cudaGraphInstantiateParams params{};
      cudaGraphExec_t exec = nullptr;
      const cudaError_t status = cudaGraphInstantiateWithParams(&exec, graph.get(), &params);
      return csg::GraphExec::from_instantiation(exec, status, params);
    };
    // step 6: launch, on stream 0, where the capture began
    auto launch = [&](const csg::GraphExec& exec) { CUDA_CHECK(cudaGraphLaunch(exec.get(), pool[0])); };

    // --regime-map: the same steps over GEMM sizes x batch counts, instead of the experiments below.
    if (options->map.enabled) {
      const csg::graphs::RegimeMap map = csg::graphs::measure_regime_map(
          options->map, options->common,
          {.pool = &pool,
           .pool_config = options->pool,
           .ops_for = ops_for,
           .capture = [&](csg::BatchBuffers& b, int batches) { return capture(b, batches, Join::yes); },
           .instantiate = instantiate,
           .launch = launch,
           .issue_on_streams =
               [&](const csg::BatchOps& o, int batches) {
                 fork();
                 issue_batches(o, batches);
                 join();
               },
           .rates = [&](csg::GemmShape shape) { return csg::measure_rates(gemm, shape); }});
      const csg::StageResult result =
          csg::graphs::regime_map_result(kStage, csg::query_device_info(device), options->common, map);
      csg::graphs::print_regime_map(std::cout, result, map);
      return csg::finish_stage(std::cout, kStage, csg::graphs::regime_map_json(result, map),
                               result.verification.passed, std::nullopt, options->timeline,
                               options->common.json_path);
    }

    const int slots = csg::device_slots_for(options->pool, work.batches);  // batch i: slot i % slots
    csg::graphs::check_memory(*options, slots);
    csg::check_estimate(csg::graphs::estimate_seconds(*options, csg::measure_rates(gemm, work.shape)),
                        options->common.max_minutes, csg::describe_workload(work, options->common.gemm));
    csg::progress("allocating and filling " + std::to_string(work.batches) + " batches");
    csg::BatchBuffers buffers(work, options->common.host_memory, slots);
    buffers.fill_inputs(options->common.seed);
    const csg::BatchOps ops = ops_for(buffers);

    if (options->skip_join) {
      csg::progress("capturing without step 4 (join)");
      try {
        static_cast<void>(capture(buffers, work.batches, Join::no));
      } catch (const csg::CudaError& error) {
        if (error.code() != cudaErrorStreamCaptureUnjoined) throw;
        const bool still_capturing = csg::graphs::any_capturing(pool);
        const csg::Graph recaptured = capture(buffers, work.batches, Join::yes);
        csg::graphs::print_missing_join(std::cout, error, streams, still_capturing,
                                        csg::graphs::inspect_graph(recaptured));
        return csg::kExitFailure;
      }
      std::cout << "--skip-join: CUDA accepted a capture without the join on this system; expected "
                   "cudaErrorStreamCaptureUnjoined.\n";
      return csg::kExitFailure;
    }

    csg::progress("the six steps, once");
    const csg::Graph graph = capture(buffers, work.batches, Join::yes);
    const csg::GraphExec exec = instantiate(graph);
    buffers.poison_outputs(pool[0]);
    launch(exec);
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));  // the article's wait, then every batch is checked

    csg::graphs::GraphStageRun run;
    run.options = options->common;
    run.streams = streams;
    run.device_buffers = csg::to_string(options->pool.device_buffers);
    run.dot_path = options->dot_path;
    run.article_check = buffers.verify(options->common.seed);
    run.structure = csg::graphs::inspect_graph(graph);
    if (!options->dot_path.empty()) csg::graphs::write_graph_dot(graph, options->dot_path);

    // The same work without capture: stage 03's loop on the pool (fork, work, join).
    auto issue_on_streams = [&] {
      fork();
      issue_batches(ops, work.batches);
      join();
    };
    auto poison = [&] { buffers.poison_outputs(pool[0]); };
    auto verify = [&] { return buffers.verify(options->common.seed); };
    const csg::RepeatPlan& plan = options->common.plan;

    csg::progress("one-time costs: capture, instantiate, upload, first launch");
    const csg::graphs::GraphSteps steps{[&] { return capture(buffers, work.batches, Join::yes); }, instantiate,
                                        launch, pool[0]};
    run.lifecycle = csg::graphs::measure_graph_lifecycle(plan, {steps, poison, verify});

    csg::progress("graph replay vs stream pool, the CPU time to issue each, and their bounds");
    // Each bound's runs: the one-stream sums, and each resource's work alone,
    // on the pool's streams and as graphs captured from them.
    csg::EventTimer sums_timer;
    const csg::Stream sums_stream;
    gemm.prepare(sums_stream.get());  // cuBLAS: no handle is created inside a timed run
    std::vector<const csg::GraphExec*> alone_graphs;
    std::vector<csg::GraphExec> alone_execs;
    using Op = std::function<void(int, cudaStream_t)>;
    for (const std::vector<Op>& kinds : std::vector<std::vector<Op>>{{ops.compute}, {ops.h2d}, {ops.d2h},
                                                                      {ops.h2d, ops.d2h}}) {
      alone_execs.push_back(instantiate(capture_work(
          [&] {
            for (int i = 0; i < work.batches; ++i) {
              for (const Op& op : kinds) op(i, pool[i % streams]);
            }
          },
          Join::yes)));
    }
    for (const csg::GraphExec& e : alone_execs) alone_graphs.push_back(&e);
    csg::EventTimer resources_timer;
    // The bound's fill and drain: every batch's op of each kind on one stream, and batch 0's alone.
    std::vector<csg::TimedVariant> one_stream_sums = csg::stage_sum_variants(ops, buffers, sums_stream.get(), sums_timer);
    for (csg::TimedVariant& first : csg::first_op_variants(ops, sums_stream.get(), sums_timer)) {
      one_stream_sums.push_back(std::move(first));
    }
    run.replay = csg::graphs::measure_replay_vs_streams(
        plan, {&exec, launch, issue_on_streams, poison, verify, pool[0],
               one_stream_sums,
               csg::resource_variants(ops,
                                      [&](const csg::BatchOps& only) {  // issued as issue_on_streams issues the run
                                        resources_timer.start(pool[0]);
                                        fork();
                                        issue_batches(only, work.batches);
                                        join();
                                        return resources_timer.stop();
                                      }),
               alone_graphs});

    csg::progress("when the work changes: exec update vs re-capture + instantiate");
    const std::uint64_t second_seed = options->common.seed + 1;
    csg::BatchBuffers second(work, options->common.host_memory, slots);
    second.fill_inputs(second_seed);
    run.updates = csg::graphs::measure_updates(
        plan, {[&](csg::BatchBuffers& b, int batches) { return capture(b, batches, Join::yes); }, instantiate, launch,
               &buffers, &second, second_seed, pool[0]});

    // Graphs suit stable work: shapes that change from request to request, four ways; and an
    // exec switched to new buffers node by node instead of by a whole update.
    run.shapes.config = options->shapes;
    auto capture_batches = [&](csg::BatchBuffers& b, int batches) { return capture(b, batches, Join::yes); };
    if (options->shapes.sequence_on()) {
      csg::progress("changing shapes: " + std::to_string(options->shapes.requests) + " requests of 1 to " +
                    std::to_string(options->shapes.max_batches) + " batches, four ways");
      const csg::Workload shapes_work = csg::graphs::changing_shapes_workload(options->shapes, work.shape);
      csg::BatchBuffers shapes_buffers(shapes_work, options->common.host_memory,
                                       csg::device_slots_for(options->pool, shapes_work.batches));
      shapes_buffers.fill_inputs(options->common.seed);
      run.shapes.sequence = csg::graphs::measure_changing_shapes(
          options->shapes, {capture_batches, instantiate, launch,
                            [&](csg::BatchBuffers& b, int batches) {
                              fork();
                              issue_batches(ops_for(b), batches);
                              join();
                            },
                            &shapes_buffers, options->common.seed, pool[0]});
    }
    if (options->shapes.node_updates) {
      csg::progress("new buffers for the same exec: node by node vs a whole update vs a new instantiate");
      run.shapes.node_updates = csg::graphs::measure_node_updates(
          plan, {capture_batches, instantiate, launch, &buffers, &second, second_seed, pool[0]}, gemm.kernel());
    }

    csg::progress("where graphs win: " + std::to_string(options->tiny.count) + " empty kernels and " +
                  std::to_string(options->tiny.count) + " tiny GEMMs");
    run.tiny_config = options->tiny;
    run.tiny = csg::graphs::measure_launch_overhead(plan, pool, {fork, join}, options->tiny);

    if (!options->launch.chains.empty()) {
      csg::progress("what one launch costs: chains of " + std::to_string(options->launch.chains.front()) + " to " +
                    std::to_string(options->launch.chains.back()) + " empty kernels, back to back");
      run.launch = csg::graphs::measure_launch_costs(options->launch,
                                                     {&exec, launch, issue_on_streams, poison, verify, pool[0]});
    }

    // --timeline: one more replay, untimed, with CUPTI timestamping every node
    // (of a second exec of the same graph, whose nodes it can name by pool
    // stream and batch); then the timed exec's replay re-timed with recording over.
    std::optional<csg::StageTimeline> timeline;
    if (options->timeline.record) {
      csg::progress("recording one more graph replay for the timeline");
      const csg::graphs::GraphTimelineRun traced = csg::graphs::prepare_graph_timeline(graph, buffers, pool);
      csg::EventTimer timer;
      auto replay = [&](const csg::GraphExec& e) { timer.start(pool[0]); launch(e); return timer.stop(); };
      timeline = csg::record_stage_timeline(
          plan, {.plan = traced.plan, .notes = traced.notes, .poison = poison, .verify = verify,
                 .timed_run = [&] { return replay(exec); },     // the exec the stage timed
                 .recorded_run = [&] { replay(traced.exec); },  // its time is not used
                 .timed = run.replay.graph_replay});
    }

    const csg::StageResult result = csg::graphs::graph_stage_result(kStage, csg::query_device_info(device), run);
    csg::graphs::print_graph_stage(std::cout, result, run);
    return csg::finish_stage(std::cout, kStage, csg::graphs::graph_stage_json(result, run), result.verification.passed,
                             timeline, options->timeline, options->common.json_path);
  }
}

}  // namespace

namespace csg::lesson04 {

std::span<const Subcommand> laboratory() {
  static const Subcommand kLaboratory[] = {
      {"everything", "the graph's costs, replay vs streams, updates, changing shapes, tiny work, launch chains",
       run_everything},
  };
  return kLaboratory;
}

}  // namespace csg::lesson04
