#include "04_graph_capture_gemm/lab/tiny-work/tiny_work.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/launch_costs.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
tiny-work: where graphs win: many empty kernels and tiny GEMMs, launched vs replayed

Where graphs win: a chain of empty kernels on one stream and tiny GEMMs on the pool (the article's
naive kernel, no copies), each launched one by one and replayed as one graph.
)";

constexpr const char* kRuns = R"(
# where graphs win: many tiny operations: graph costs table, graph_costs.png
qfc  -
t    tiny  --tiny-count 20 --tiny-size 8 --streams 3 --warmup 1 --repeats 2
m    -     --tiny-count 8 --tiny-size 16 --streams 3 --warmup 0 --repeats 1
)";

constexpr int kDefaultTinyCount = 1000;  // tiny operations per run: enough that per-op costs dominate
constexpr int kMaxTinyCount = 10000;
constexpr int kDefaultTinySize = 64;  // 64³ GEMM: 0.5 MFLOP, a few µs of GPU work
constexpr int kMaxTinySize = 1024;
// A launch on a stream costs the host about 4 µs (H200: 3.4-4.1 µs for an
// empty kernel), and no operation of a stream takes less on the GPU.
constexpr double kSecondsPerLaunch = 4e-6;

// --tiny-count N, --tiny-size N, and the pool's --streams N alone: the tiny
// GEMMs have one device slot each.
void options(StageCli& cli) {
  cli.add_int("tiny-count", "Empty kernels in the chain, and tiny GEMMs", kDefaultTinyCount, 1, kMaxTinyCount);
  cli.add_int("tiny-size", "m = n = k of the tiny GEMMs", kDefaultTinySize, 1, kMaxTinySize);
  add_pool_options(cli, PoolFlags{.device_buffers = false});
}

TinyRun read(const StageCli& cli, CommonOptions& common) {
  TinyRun run{common, TinyConfig{static_cast<int>(cli.get_int("tiny-count")), static_cast<int>(cli.get_int("tiny-size")),
                                 read_pool_options(cli, common, PoolFlags{.device_buffers = false}).streams,
                                 common.host_memory, common.seed}};
  run.options.work = tiny_gemm_workload(run.config);
  return run;
}

Needs needs(const TinyRun& run) {
  const Workload& work = run.options.work;
  return {memory_needs(work, run.options.host_memory, work.batches), "try a smaller --tiny-count or --tiny-size"};
}

// Every round at `rates` (the naive kernel at the tiny size): the two empty
// chains and the three GEMM runs, each at least one launch's cost (~4 µs)
// per operation.
double tiny_seconds(const TinyConfig& config, const RepeatPlan& plan, const Rates& rates) {
  const double launches = config.count * kSecondsPerLaunch;
  const double gemms = std::max(work_seconds(tiny_gemm_workload(config), rates, false).kernels, launches);
  return (plan.warmup + plan.repeats) * (2.0 * launches + 3.0 * gemms);
}

Estimate estimate(const TinyRun& run, int) {
  const Gemm naive;
  return {tiny_seconds(run.config, run.options.plan, measure_rates(naive, run.options.work.shape)),
          std::to_string(run.config.count) + " empty kernels and tiny GEMMs"};
}

// Batch i on stream i % pool, between the laboratory's fork and join.
void issue_tiny_gemms(BatchBuffers& gemms, const StreamPool& pool, const Gemm& gemm) {
  csg::fork(pool);
  for (int batch = 0; batch < gemms.work().batches; ++batch) {
    gemm.run(gemms.device_a(batch), gemms.device_b(), gemms.device_c(batch), gemms.work().shape,
             pool.for_batch(batch));
  }
  csg::join(pool);
}

TinyCosts measure(const TinyRun& run) {
  const TinyConfig& config = run.config;
  // The article's naive kernel, whatever the article's work runs with: a 64³
  // GEMM is a few µs of GPU work with any kernel, and this run measures launch costs.
  const Gemm gemm;
  const StreamPool pool(config.streams);
  progress("where graphs win: " + std::to_string(config.count) + " empty kernels and " +
           std::to_string(config.count) + " tiny GEMMs");
  const cudaStream_t stream = pool[0];
  TinyCosts costs;

  // The empty chain, and its counting twin.
  DeviceBuffer<unsigned long long> counter(1);
  const Graph empty_graph = capture_on(stream, [&] { issue_chain(config.count, stream); });
  costs.empty_graph_nodes = empty_graph.node_count();
  const GraphExec empty_exec = GraphExec::instantiate(empty_graph);
  CUDA_CHECK(cudaGraphUpload(empty_exec.get(), stream));
  const Graph counting_graph = capture_on(stream, [&] { issue_counting_chain(counter.data(), config.count, stream); });
  const GraphExec counting_exec = GraphExec::instantiate(counting_graph);

  // The tiny GEMMs: one device slot per GEMM, so every output stays to be
  // verified; their inputs go to the device once, before any timing.
  const Workload& gemm_work = run.options.work;
  BatchBuffers gemms(gemm_work, config.host_memory, gemm_work.batches);
  gemms.fill_inputs(config.seed);
  for (int batch = 0; batch < gemm_work.batches; ++batch) {
    CUDA_CHECK(cudaMemcpyAsync(gemms.device_a(batch), gemms.host_a(batch), gemm_work.a_bytes(),
                               cudaMemcpyHostToDevice, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const Graph gemm_graph = capture_on(pool[0], [&] { issue_tiny_gemms(gemms, pool, gemm); });
  costs.gemm_graph_nodes = gemm_graph.node_count();
  const GraphExec gemm_exec = GraphExec::instantiate(gemm_graph);
  CUDA_CHECK(cudaGraphUpload(gemm_exec.get(), stream));

  costs.empty_checked = true;
  int empty_runs = 0;
  // The counting twin, once on the stream and once as a graph: the counter,
  // zeroed before, must show every launch.
  auto counted_run = [&](const char* variant, auto&& issue) {
    CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    issue();
    unsigned long long value = 0;
    CUDA_CHECK(cudaMemcpyAsync(&value, counter.data(), sizeof value, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    ++empty_runs;
    if (value != static_cast<unsigned long long>(config.count) && costs.empty_checked) {
      costs.empty_checked = false;
      costs.empty_failure = std::string(variant) + " run " + std::to_string(empty_runs) + ": the counter reads " +
                            std::to_string(value) + ", expected " + std::to_string(config.count);
    }
  };
  counted_run("counting chain on a stream", [&] { issue_counting_chain(counter.data(), config.count, stream); });
  counted_run("counting chain as a graph", [&] { CUDA_CHECK(cudaGraphLaunch(counting_exec.get(), stream)); });
  if (costs.empty_graph_nodes != static_cast<std::size_t>(config.count) && costs.empty_checked) {
    costs.empty_checked = false;
    costs.empty_failure = "the empty chain's graph has " + plural(costs.empty_graph_nodes, "node") + ", expected " +
                          std::to_string(config.count);
  }
  auto poison_gemms = [&] { gemms.poison_outputs(stream); };
  // Outputs stay on the device in the timed runs; copy them back to check them.
  auto verify_gemms = [&] {
    for (int batch = 0; batch < gemm_work.batches; ++batch) {
      CUDA_CHECK(cudaMemcpyAsync(gemms.host_c(batch), gemms.device_c(batch), gemm_work.c_bytes(),
                                 cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return gemms.verify(config.seed);
  };

  EventTimer timer;
  auto replay = [&](const GraphExec& exec) { CUDA_CHECK(cudaGraphLaunch(exec.get(), stream)); };
  const std::vector<TimedVariant> variants = {
      {.prepare = nullptr,
       .run = [&] { return gpu_time(timer, stream, [&] { issue_chain(config.count, stream); }); },
       .after_last = nullptr},
      {.prepare = nullptr,
       .run = [&] { return gpu_time(timer, stream, [&] { replay(empty_exec); }); },
       .after_last = nullptr},
      {.prepare = poison_gemms,
       .run = [&] { return gpu_time(timer, stream, [&] { issue_tiny_gemms(gemms, pool, gemm); }); },
       .after_last = [&] { costs.gemm_streams_check = verify_gemms(); }},
      {.prepare = poison_gemms,
       .run = [&] { return gpu_time(timer, stream, [&] { replay(gemm_exec); }); },
       .after_last = [&] { costs.gemm_graph_check = verify_gemms(); }},
      {.prepare = poison_gemms,
       .run = [&] { return host_issue_time(stream, [&] { replay(gemm_exec); }); },
       .after_last = [&] { costs.gemm_launch_check = verify_gemms(); }},
  };
  measure_interleaved_into(run.options.plan, variants, {&costs.empty_streams, &costs.empty_graph, &costs.gemm_streams,
                                                        &costs.gemm_graph, &costs.gemm_graph_launch_cpu});
  return costs;
}

const Experiment<TinyRun, TinyCosts> kExperiment{.about = kAbout, .runs = kRuns, .defaults = own_workload_defaults(),
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report_tiny};

}  // namespace

Workload tiny_gemm_workload(const TinyConfig& config) {
  return Workload{config.count, GemmShape{config.size, config.size, config.size}};
}

Verdict per_op_verdict(const std::string& id, const std::string& what, double stream_us, double graph_us) {
  std::string text = what + ": " + fixed(stream_us, 2) + " us each on a stream vs " + fixed(graph_us, 2) +
                     " us each as graph nodes: the graph was " + compare_phrase(graph_us, stream_us) + " the stream";
  if (compare_times(graph_us, stream_us) != Comparison::faster) text += " (no win for the graph at this size)";
  Verdict verdict = comparison_verdict(id, graph_us, stream_us, std::move(text));
  verdict.figures["stream_us"] = stream_us;
  verdict.figures["graph_us"] = graph_us;
  return verdict;
}

void report_tiny(const TinyRun& run, const TinyCosts& tiny, Report& report) {
  const int count = run.config.count;
  const Workload& gemms = run.options.work;
  const Work tiny_flops{0.0, double(gemms.batches) * gemms.flops_per_batch()};
  const nlohmann::json empty_params = {{"kernels", count}};
  const nlohmann::json gemm_params = {{"gemms", count}, {"size", run.config.size}, {"streams", run.config.streams}};
  StageResult& result = report.result;
  result.config = config_json(run.options);
  result.config.update({{"streams", run.config.streams}, {"tiny_count", count}, {"tiny_size", run.config.size}});
  result.measurements = {
      checked_without_digest("tiny_empty_streams", empty_params, tiny.empty_streams, Work{}, tiny.empty_checked),
      checked_without_digest("tiny_empty_graph", empty_params, tiny.empty_graph, Work{}, tiny.empty_checked),
      checked("tiny_gemm_streams", gemm_params, tiny.gemm_streams, tiny_flops, tiny.gemm_streams_check),
      checked("tiny_gemm_graph", gemm_params, tiny.gemm_graph, tiny_flops, tiny.gemm_graph_check),
      checked("tiny_gemm_graph_launch_cpu", gemm_params, tiny.gemm_graph_launch_cpu, Work{}, tiny.gemm_launch_check),
  };
  const double empty_stream_us = per_op_us(tiny.empty_streams, count), empty_graph_us = per_op_us(tiny.empty_graph, count);
  const double gemm_stream_us = per_op_us(tiny.gemm_streams, count), gemm_graph_us = per_op_us(tiny.gemm_graph, count);
  result.bounds = {
      {"tiny_empty_stream_us_per_launch", empty_stream_us},
      {"tiny_empty_graph_us_per_node", empty_graph_us},
      {"tiny_gemm_stream_us_per_gemm", gemm_stream_us},
      {"tiny_gemm_graph_us_per_gemm", gemm_graph_us},
      {"tiny_gemm_graph_launch_cpu_us", 1000.0 * tiny.gemm_graph_launch_cpu.median_ms},
  };
  set_verdict(result, tiny.gemm_streams_check,
              {&tiny.gemm_streams_check, &tiny.gemm_graph_check, &tiny.gemm_launch_check});
  add_failure(result, tiny.empty_checked, "empty-kernel counter: " + tiny.empty_failure);
  count_checked_runs(report);
  report.sections["tiny"] = {{"count", count},
                             {"size", run.config.size},
                             {"empty_graph_nodes", tiny.empty_graph_nodes},
                             {"gemm_graph_nodes", tiny.gemm_graph_nodes}};
  if (!tiny.empty_checked) report.sections["tiny"]["empty_failure"] = tiny.empty_failure;

  std::ostream& out = report.out();
  out << plural(count, "empty kernel") << " (<<<1, 1>>>, no body) on one stream, and " << count << " naive "
      << run.config.size << "^3 " << noun(count, "GEMM") << " without copies on a pool of "
      << plural(run.config.streams, "stream") << "; each launched one by one and replayed as one graph; median of "
      << plural(run.options.plan.repeats, "run") << " after " << run.options.plan.warmup << " warm-up\n"
      << "\nwhere graphs win: " << plural(count, "tiny operation") << " (GPU time, interleaved):\n";
  report.measurements();
  report.verdict(per_op_verdict("tiny_work.empty_kernels", "empty kernels", empty_stream_us, empty_graph_us));
  report.verdict(per_op_verdict("tiny_work.gemms", std::to_string(run.config.size) + "^3 GEMMs", gemm_stream_us,
                                gemm_graph_us));
  if (!tiny.empty_checked) out << "empty-kernel counter WRONG: " << tiny.empty_failure << '\n';
}

extern const Subcommand kTinyWork = make_subcommand<kExperiment>();

}  // namespace csg::graphs
