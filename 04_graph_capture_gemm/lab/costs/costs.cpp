#include "04_graph_capture_gemm/lab/costs/costs.hpp"

#include "04_graph_capture_gemm/conclusions.hpp"
#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
costs: capture, instantiate, upload; replay vs streams: bounds, CPU issue; break-even

What the article's graph costs once (capture, instantiate, upload, first launch) and saves at each
replay: its GPU time and CPU issue time against the same work on the stream pool, both bounds, and
the break-even.
)";

constexpr const char* kRuns = R"(
# one-time costs, replay vs streams, issue: graph costs table, graph_costs.png, regime table's 04 replay
q   -                   --warmup 1 --repeats 3
fc  -
q   cublas              --kernel cublas --warmup 1 --repeats 3
fc  cublas              --kernel cublas
t   tiny                --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2
t   per_batch_pageable  --batches 5 --m 16 --n 24 --k 8 --streams 2 --device-buffers per-batch --host-memory pageable --warmup 0 --repeats 1
t   tiled               --kernel tiled --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
t   cublas              --kernel cublas --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
t   cublas_tf32         --kernel cublas --tf32 --batches 6 --m 64 --n 48 --k 40 --streams 2 --warmup 0 --repeats 1
m   -                   --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
)";

// A GPU variant with its bound, the host's issue time read in its own runs,
// and the noise the bound is allowed (its own spread and its limiting path's).
Measurement with_bound(Measurement m, const PipelineBound& bound, const std::optional<Summary>& issue,
                       const std::vector<Summary>& alone, const StageSums& sums,
                       const std::optional<Summary>& busiest_stream = std::nullopt) {
  m.bound = bound;
  m.host_issue = issue;
  m.bound_tolerance = tolerance_of(bound, m.stats, {alone, sums, issue ? &*issue : nullptr,
                                                    busiest_stream ? &*busiest_stream : nullptr});
  return m;
}

// Which of a batch's three calls a resource-alone graph keeps.
enum Kinds : unsigned { kH2d = 1, kCompute = 2, kD2h = 4 };

// `ops` with only `kinds` doing anything, in resource_variants' order of resources.
BatchOps keeping(const BatchOps& ops, unsigned kinds) {
  const std::function<void(int, cudaStream_t)> nothing = [](int, cudaStream_t) {};
  return BatchOps{(kinds & kH2d) != 0 ? ops.h2d : nothing, (kinds & kCompute) != 0 ? ops.compute : nothing,
                  (kinds & kD2h) != 0 ? ops.d2h : nothing};
}

Needs needs(const ArticleOptions& options) {
  return article_needs(options, 1, /*extra_streams=*/1);  // the one-stream sums' stream needs cuBLAS workspaces too
}

Estimate estimate(const ArticleOptions& options, int) { return article_estimate(options, costs_seconds); }

CostsFigures measure(const ArticleOptions& options) {
  const CommonOptions& common = options.common;
  const Workload& work = common.work;
  const Gemm gemm(common.gemm);  // --kernel: the article's naive kernel unless told otherwise
  ArticleWork article(options, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  const BatchOps ops = batch_ops(buffers, gemm);
  auto poison = [&] { buffers.poison_outputs(pool[0]); };
  auto verify = [&] { return buffers.verify(common.seed); };
  auto launch_step = [&pool](const GraphExec& exec) { launch(exec, pool); };
  auto issue_step = [&] { issue_on_streams(ops, pool, work.batches); };

  CostsFigures f;
  progress("the six steps, once");
  const Graph graph = capture_batches(ops, pool, work.batches);
  f.structure = inspect_graph(graph);
  const GraphExec exec = instantiate(graph);
  f.six_steps_check = launch_and_verify(exec, pool, buffers, common.seed);

  progress("one-time costs: capture, instantiate, upload, first launch");
  const GraphSteps steps{[&] { return capture_batches(ops, pool, work.batches); }, instantiate, launch_step, pool[0]};
  f.lifecycle = measure_graph_lifecycle(common.plan, {steps, poison, verify});

  progress("graph replay vs stream pool, the CPU time to issue each, and their bounds");
  // Each bound's runs: the one-stream sums (with batch 0's ops alone, for the
  // fill and drain), and each resource's work alone on the pool's streams
  // and as graphs captured from them.
  EventTimer sums_timer;
  const Stream sums_stream;
  gemm.prepare(sums_stream.get());  // cuBLAS: no handle is created inside a timed run
  std::vector<TimedVariant> one_stream_sums = stage_sum_variants(ops, buffers, sums_stream.get(), sums_timer);
  for (TimedVariant& first : first_op_variants(ops, sums_stream.get(), sums_timer)) {
    one_stream_sums.push_back(std::move(first));
  }
  EventTimer resources_timer;
  auto issue_like_the_pool = [&](const BatchOps& only) {
    return gpu_time(resources_timer, pool[0], [&] { issue_on_streams(only, pool, work.batches); });
  };
  std::vector<GraphExec> alone_execs;
  for (const unsigned kinds : {unsigned(kCompute), unsigned(kH2d), unsigned(kD2h), unsigned(kH2d | kD2h)}) {
    alone_execs.push_back(instantiate(capture_batches(keeping(ops, kinds), pool, work.batches)));
  }
  std::vector<const GraphExec*> alone_graphs;
  for (const GraphExec& e : alone_execs) alone_graphs.push_back(&e);
  const GraphExec& kernels_alone = alone_execs.front();
  const TimedVariant kernels_launch{
      .prepare = nullptr,
      .run = [&] { return host_issue_time(pool[0], [&] { launch(kernels_alone, pool); }); },
      .after_last = nullptr};
  const TimedVariant busiest_stream =
      busiest_stream_variant(ops, work.batches, pool.size(), sums_stream.get(), sums_timer);
  f.replay = measure_replay_vs_streams(common.plan, {&exec, launch_step, issue_step, poison, verify, pool[0],
                                                     one_stream_sums, resource_variants(ops, issue_like_the_pool),
                                                     alone_graphs, {kernels_launch}, busiest_stream});
  f.kernels_graph_launch_cpu = f.replay.also.at(0);
  return f;
}

const Experiment<ArticleOptions, CostsFigures> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = pinned_defaults(), .options = add_article_options, .read = read_article_options, .needs = needs,
    .estimate = estimate, .measure = measure, .report = report_costs};

}  // namespace

Verdict bound_verdict(const Measurement& m, int batches, int streams) {
  const PipelineBound& bound = *m.bound;
  const double percent = percent_of_bound(bound, m.stats.median_ms);
  const bool faster = percent > 100.0 * (1.0 + m.bound_tolerance);
  const std::string why =
      bound.limited_by == BoundPath::stream_order
          ? "the busiest stream's " + std::to_string(busiest_stream_batches(batches, streams)) +
                " batches one after another, each H2D, kernel, D2H"
          : "each resource's work alone, issued as this variant issues it";
  Verdict verdict{.id = "costs." + m.name + ".bound",
                  .outcome = faster ? "faster_than_bound" : "within_bound",
                  .figures = {{"median_ms", m.stats.median_ms}, {"bound_ms", bound.bound_ms},
                              {"percent_of_bound", percent}, {"limited_by", to_string(bound.limited_by)}},
                  .threshold = m.bound_tolerance,
                  .sentence = m.name + ": bound " + fixed(bound.bound_ms, 2) + " ms, limited by " +
                              std::string(to_string(bound.limited_by)) + " (" + why + "), " + fixed(percent, 1) + "% of it" +
                              (faster ? ": FASTER THAN ITS BOUND, the bound is wrong" : "")};
  if (m.name == "stream_pool" && bound.limited_by == BoundPath::stream_order) {
    verdict.sentence +=
        "\n  the replay's bound has no stream order: that path is made of ops launched one by one from the host, "
        "and\n  a graph starts its nodes with less time between them. So it reads low here, though the replay runs "
        "the\n  same chains as the streams: compare it with the streams' stream order, " +
        fixed(bound.stream_order_ms, 2) + " ms.";
  }
  return verdict;
}

void report_costs(const ArticleOptions& options, const CostsFigures& f, Report& report) {
  const Workload& work = options.common.work;
  const Work full = work_of(work);
  const nlohmann::json pool = pool_params(options.pool, work.batches);
  const LifecycleCosts& life = f.lifecycle;
  const ReplayCosts& replay = f.replay;
  const PipelineBound graph_bound = replay_bound(replay, work.batches);
  const PipelineBound streams_bound = stream_pool_bound(replay, work.batches, options.pool.streams);

  StageResult& result = report.result;
  result = pool_result(result.device, options.common, options.pool);
  result.measurements = {
      cost("capture", pool, life.capture),
      cost("instantiate", pool, life.instantiate),
      cost("upload", pool, life.upload),
      checked("first_launch", pool, life.first_launch, full, life.first_launch_check),
      checked("relaunch", pool, life.relaunch, full, life.relaunch_check),
      checked("launch_after_upload", pool, life.launch_after_upload, full, life.uploaded_check),
      with_bound(checked("graph_replay", pool, replay.graph_replay, full, replay.graph_check), graph_bound,
                 replay.replay_issue, replay.graph_alone, replay.sums),
      with_bound(checked("stream_pool", pool, replay.stream_pool, full, replay.streams_check), streams_bound,
                 replay.pool_issue, replay.stream_alone, replay.sums, replay.busiest_stream),
      cost("issue_streams_cpu", pool, replay.issue_streams_cpu),
      cost("issue_graph_cpu", pool, replay.issue_graph_cpu),
      cost("issue_kernels_graph_cpu", {{"streams", options.pool.streams}, {"kernel_nodes", work.batches}},
           f.kernels_graph_launch_cpu),
  };
  // What the two bounds are made of: the one-stream sums, and each resource alone.
  const nlohmann::json one_stream = {{"streams", 1}};
  for (const auto& [name, stats] :
       {std::pair{"h2d_sum", &replay.sums.h2d}, std::pair{"kernel_sum", &replay.sums.kernel},
        std::pair{"d2h_sum", &replay.sums.d2h}, std::pair{"h2d_first_op", &replay.sums.h2d_first},
        std::pair{"kernel_first_op", &replay.sums.kernel_first}, std::pair{"d2h_first_op", &replay.sums.d2h_first}}) {
    if (stats->samples > 0) result.measurements.push_back(cost(name, one_stream, *stats));
  }
  static constexpr const char* kResourceNames[] = {"kernels", "h2d", "d2h", "both_ways"};
  for (const auto& [as, alone] : {std::pair{"streams", &replay.stream_alone}, std::pair{"graph", &replay.graph_alone}}) {
    for (std::size_t r = 0; r < alone->size(); ++r) {
      result.measurements.push_back(cost(
          "resource_alone", {{"resource", kResourceNames[r]}, {"streams", options.pool.streams}, {"as", as}},
          (*alone)[r]));
    }
  }
  if (replay.busiest_stream) {
    result.measurements.push_back(cost(
        "busiest_stream",
        {{"streams", 1}, {"batches", busiest_stream_batches(work.batches, options.pool.streams)}},
        *replay.busiest_stream));
  }
  const double capture_ms = life.capture.median_ms, instantiate_ms = life.instantiate.median_ms;
  const double issue_streams_ms = replay.issue_streams_cpu.median_ms, issue_graph_ms = replay.issue_graph_cpu.median_ms;
  const auto even = break_even_replays(capture_ms, instantiate_ms, issue_streams_ms, issue_graph_ms);
  result.bounds = {
      {"break_even_replays", even ? nlohmann::json(*even) : nlohmann::json(nullptr)},
      {"graph_replay_bound_ms", graph_bound.bound_ms},
      {"graph_replay_limited_by", to_string(graph_bound.limited_by)},
      {"graph_replay_percent_of_bound", percent_of_bound(graph_bound, replay.graph_replay.median_ms)},
      {"graph_replay_bound_tolerance", find(result, "graph_replay").bound_tolerance},
      {"stream_pool_bound_ms", streams_bound.bound_ms},
      {"stream_pool_limited_by", to_string(streams_bound.limited_by)},
      {"stream_pool_percent_of_bound", percent_of_bound(streams_bound, replay.stream_pool.median_ms)},
      {"stream_pool_bound_tolerance", find(result, "stream_pool").bound_tolerance},
      {"stream_pool_host_issue_ms",
       replay.pool_issue ? nlohmann::json(replay.pool_issue->median_ms) : nlohmann::json(nullptr)},
      {"replay_over_stream_pool", replay.graph_replay.median_ms / replay.stream_pool.median_ms},
      {"issue_graph_over_streams", issue_graph_ms / issue_streams_ms},
  };
  set_verdict(result, f.six_steps_check,
              {&f.six_steps_check, &life.first_launch_check, &life.relaunch_check, &life.uploaded_check,
               &replay.graph_check, &replay.streams_check});
  report.sections["graph"] = to_json(f.structure);
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << pool_run_text(options.common, options.pool) << "\n\n";
  report.verdict(structure_verdict(f.structure));
  out << "\none-time costs of the graph (host time; launches include waiting for the work):\n";
  print_measurements(out, pick(result, {"capture", "instantiate", "upload", "first_launch", "relaunch",
                                        "launch_after_upload"}));
  out << "\nGPU time of the same work, measured in interleaved rounds in this process:\n";
  print_measurements(out, pick(result, {"graph_replay", "stream_pool"}));
  report.verdict(replay_verdict(replay.graph_replay.median_ms, replay.stream_pool.median_ms,
                                replay.pool_issue ? replay.pool_issue->median_ms : 0.0, 3 * work.batches));
  for (const char* name : {"graph_replay", "stream_pool"}) {
    report.verdict(bound_verdict(find(result, name), work.batches, options.pool.streams));
  }
  out << "\nCPU time to issue the work (" << 3 * work.batches << " operations + fork/join on the streams, "
      << "or one cudaGraphLaunch; the kernels alone as a graph for comparison):\n";
  print_measurements(out, pick(result, {"issue_streams_cpu", "issue_graph_cpu", "issue_kernels_graph_cpu"}));
  report.verdict(launch_cost_verdict(issue_graph_ms, issue_streams_ms));
  report.verdict(copy_node_verdict(issue_graph_ms, f.kernels_graph_launch_cpu.median_ms, work.batches,
                                   2 * work.batches));
  report.verdict(break_even_verdict(capture_ms, instantiate_ms, issue_streams_ms, issue_graph_ms));
}

double costs_seconds(const CommonOptions& options, const Rates& rates) {
  const WorkSeconds t = work_seconds(options.work, rates, options.host_memory == HostMemory::pageable);
  // 3 launches of the one-time costs, the 2 GPU variants, the 2 issue
  // timings, the sums, each resource alone twice (streams, graph), the kernels' launch.
  const double round =
      7.0 * pipeline_seconds(options, rates) + t.serial() + 2.0 * (t.serial() + std::max(t.h2d, t.d2h)) + t.kernels;
  return (options.plan.warmup + options.plan.repeats) * round;
}

extern const Subcommand kCosts = make_subcommand<kExperiment>();

}  // namespace csg::graphs
