#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
launch-anatomy: a launch by node kind and shape vs NVIDIA's figure; the article's graph 5 ways

The anatomy of a graph launch: chains of kernel, memcpy, memset and host-copy nodes, as one line and
as a fork into --streams lines, each launched back to back (host time of the call, GPU time of the
graph, a line fitted over the node counts, beside NVIDIA's constant-time figure); then the article's
graph built five ways (its own layout, a slot per stream, breadth-first, registered host memory, the
device-launch flag) launched in the same rounds.
)";

constexpr const char* kRuns = R"(
# after the article: the launch by node kind and shape   after-the-article table, after_article.png
q   -         --anatomy-nodes 8,80,400 --warmup 1 --repeats 3
fc  -
t   tiny      --anatomy-nodes 3,6 --anatomy-repeats 3 --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 2
t   one_kind  --anatomy-kinds host-copy --anatomy-nodes 2,4,8 --anatomy-repeats 3 --batches 3 --m 16 --n 16 --k 16 --streams 2 --warmup 0 --repeats 1
m   -         --anatomy-nodes 3,6 --anatomy-repeats 3 --batches 3 --m 16 --n 16 --k 16 --streams 3 --warmup 0 --repeats 1
)";

constexpr int kMaxNodes = 100000;
// Per node and launch, for the estimate: a host-copy node's host and GPU
// time together are ~3 us on the H200; 5 us errs long. Each launch's
// poison, check and synchronisations: ~0.2 ms.
constexpr double kSecondsPerNodeLaunch = 5e-6;
constexpr double kSecondsPerChainRound = 2e-4;
constexpr double kPoisonBytesPerSecond = 5e9;  // the host's memset of C, and the verify's read

std::string shape_name(GraphShape shape) { return shape == GraphShape::line ? "line" : "fork"; }

double us(const Summary& s) { return 1000.0 * s.median_ms; }

std::string ns(double us_value) { return fixed(1000.0 * us_value, 1) + " ns"; }

std::string name(NodeKind kind) { return std::string(to_string(kind)); }

// ---- the declaration ------------------------------------------------------------

void options(StageCli& cli) {
  cli.add_text("anatomy-nodes",
               "Node counts of the chains, comma-separated, each a multiple of --streams, in [1, " +
                   std::to_string(kMaxNodes) + "]",
               "8,80,800,8000", "LIST");
  cli.add_text("anatomy-kinds", "Node kinds of the chains: kernel, memcpy, memset, host-copy, comma-separated",
               "kernel,memcpy,memset,host-copy", "LIST");
  cli.add_int("anatomy-repeats", "Timed launches of each chain graph", AnatomyConfig{}.repeats, 3, 10000);
  add_pool_options(cli, PoolFlags{.device_buffers = false});
}

LaunchAnatomyOptions read(const StageCli& cli, CommonOptions& common) {
  LaunchAnatomyOptions options{common, read_pool_options(cli, common, PoolFlags{.device_buffers = false}), {}};
  AnatomyConfig& config = options.anatomy;
  const int streams = options.pool.streams;
  config.chains = streams;
  config.repeats = static_cast<int>(cli.get_int("anatomy-repeats"));
  config.nodes.clear();
  for (const long long n : parse_distinct_int_list("anatomy-nodes", cli.get_string("anatomy-nodes"), 1, kMaxNodes)) {
    if (n % streams != 0) {
      throw UsageError("--anatomy-nodes: " + std::to_string(n) + " is not a multiple of --streams " +
                       std::to_string(streams) + " (the fork splits each count into that many equal lines)");
    }
    config.nodes.push_back(static_cast<int>(n));
  }
  std::sort(config.nodes.begin(), config.nodes.end());
  config.kinds.clear();
  const std::string text = cli.get_string("anatomy-kinds");
  for (std::size_t start = 0, comma = 0; comma != std::string::npos; start = comma + 1) {
    comma = text.find(',', start);
    const std::string word = text.substr(start, comma - start);
    const std::optional<NodeKind> kind = parse_node_kind(word);
    if (!kind) throw UsageError("--anatomy-kinds: " + in_quotes(word) + " is not one of kernel, memcpy, memset, host-copy");
    if (std::ranges::find(config.kinds, *kind) != config.kinds.end()) {
      throw UsageError("--anatomy-kinds: " + word + " is given twice");
    }
    config.kinds.push_back(*kind);
  }
  return options;
}

Needs needs(const LaunchAnatomyOptions& options) {
  const Workload& work = options.common.work;
  MemoryNeeds memory = memory_needs(work, HostMemory::pinned, 0);                           // the article's
  memory = combined(memory, memory_needs(work, HostMemory::pinned, options.pool.streams));  // slots
  memory = combined(memory, memory_needs(work, HostMemory::registered, 0));                 // registered
  memory.device_bytes += gemm_device_bytes(options.common.gemm, options.pool.streams);
  return {memory, "try fewer --batches"};
}

Estimate estimate(const LaunchAnatomyOptions& options, int) {
  const AnatomyConfig& config = options.anatomy;
  const CommonOptions& common = options.common;
  for (const std::string& warning : options.pool.warnings) std::cerr << warning << '\n';
  double chains = 0.0;
  for (const int n : config.nodes) {
    chains += 2.0 * double(config.kinds.size()) *
              ((config.warmup + config.repeats) * (n * kSecondsPerNodeLaunch + kSecondsPerChainRound) +
               n * kSecondsPerNodeLaunch);
  }
  const Rates rates = measure_rates(Gemm(common.gemm), common.work.shape);
  const double poison = double(common.work.batches) * double(common.work.c_bytes()) / kPoisonBytesPerSecond;
  const double article = (common.plan.warmup + common.plan.repeats) * 5.0 * (pipeline_seconds(common, rates) + poison);
  return {chains + article + 5.0 * poison, "the launch anatomy"};  // and each variant's verification
}

struct VariantRun {
  ArticleVariant variant;
  BatchBuffers* buffers;
  GraphExec exec;
  Millis last_launch{};
  VerifyResult check{};  // after its last round
};

Anatomy measure(const LaunchAnatomyOptions& options) {
  const CommonOptions& common = options.common;
  const Workload& work = common.work;
  Anatomy anatomy;
  anatomy.config = options.anatomy;
  progress("chains of " + plural(anatomy.config.nodes.back(), "node") + " at most, " +
           plural(static_cast<long long>(anatomy.config.kinds.size()), "kind") + ", two shapes");
  measure_chain_launches(anatomy);

  progress("the article's graph built five ways: filling " + plural(3 * work.batches, "batch"));
  const Gemm gemm(common.gemm);
  const StreamPool pool(options.pool.streams);
  prepare_pool(gemm, pool);
  BatchBuffers article_buffers(work, HostMemory::pinned, 0);
  BatchBuffers slot_buffers(work, HostMemory::pinned, options.pool.streams);
  BatchBuffers registered_buffers(work, HostMemory::registered, 0);
  for (BatchBuffers* b : {&article_buffers, &slot_buffers, &registered_buffers}) b->fill_inputs(common.seed);
  auto run_of = [&](ArticleVariant variant, BatchBuffers& b, IssueOrder order = IssueOrder::depth_first,
                    unsigned long long flags = 0) {
    const Graph graph = capture_batches(batch_ops(b, gemm), pool, work.batches, Join::yes, order);
    return VariantRun{variant, &b, GraphExec::instantiate(graph, {.flags = flags})};
  };
  std::vector<VariantRun> runs;
  runs.push_back(run_of(ArticleVariant::article, article_buffers));
  runs.push_back(run_of(ArticleVariant::slots, slot_buffers));
  runs.push_back(run_of(ArticleVariant::breadth_first, article_buffers, IssueOrder::breadth_first));
  runs.push_back(run_of(ArticleVariant::registered, registered_buffers));
  runs.push_back(run_of(ArticleVariant::device_launch_flag, article_buffers, IssueOrder::depth_first,
                        cudaGraphInstantiateFlagDeviceLaunch));
  for (VariantRun& r : runs) CUDA_CHECK(cudaGraphUpload(r.exec.get(), pool[0]));
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));

  progress("the article's graph built five ways, launched in " + plural(common.plan.warmup + common.plan.repeats, "round"));
  EventTimer timer;
  std::vector<TimedVariant> variants;
  for (VariantRun& run : runs) {
    VariantRun* r = &run;
    variants.push_back(TimedVariant{
        .prepare = [r, &pool] { r->buffers->poison_outputs(pool[0]); },
        .run =
            [r, &pool, &timer] {
              return gpu_and_issue_time(timer, pool[0], r->last_launch,
                                        [&] { CUDA_CHECK(cudaGraphLaunch(r->exec.get(), pool[0])); });
            },
        .after_last = [r, &common] { r->check = r->buffers->verify(common.seed); },
        .side = [r] { return r->last_launch; }});
  }
  const std::vector<Measured> measured = measure_rounds(common.plan, variants);
  for (std::size_t v = 0; v < runs.size(); ++v) {
    anatomy.article.push_back(ArticleLaunch{runs[v].variant, measured[v].side.value_or(Summary{}),
                                            measured[v].primary, runs[v].check});
  }
  return anatomy;
}

// No --host-memory: the variants choose their own.
const Experiment<LaunchAnatomyOptions, Anatomy> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = {.host_memory = HostMemory::pinned, .host_memory_choice = false},
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure,
    .report = report_launch_anatomy};

}  // namespace

std::string_view to_string(NodeKind kind) { return name_of(kind, {"kernel", "memcpy", "memset", "host-copy"}); }

std::optional<NodeKind> parse_node_kind(const std::string& word) {
  for (const NodeKind kind : kNodeKinds) {
    if (word == to_string(kind)) return kind;
  }
  return std::nullopt;
}

std::string_view to_string(ArticleVariant variant) {
  return name_of(variant, {"article", "slots", "breadth_first", "registered", "device_launch_flag"});
}

const char* describe(ArticleVariant variant) {
  static constexpr const char* kWhat[] = {
      "as the article and the lesson build it: a device buffer per batch, depth-first, cudaMallocHost",
      "a device slot per stream (the laboratory's default layout)",
      "issued breadth-first (a wave of copies in, kernels, copies out)",
      "host memory malloc'd and cudaHostRegister'ed",
      "instantiated with cudaGraphInstantiateFlagDeviceLaunch",
  };
  return kWhat[static_cast<int>(variant)];
}

LineFit fit_chains(const Anatomy& anatomy, NodeKind kind, GraphShape shape, bool host) {
  std::vector<double> nodes, figures;
  for (const ChainLaunch& c : anatomy.chains) {
    if (c.kind != kind || c.shape != shape) continue;
    nodes.push_back(c.nodes);
    figures.push_back(us(host ? c.host : c.gpu));
  }
  return fit_line(nodes, figures);
}

double quartile_ms(const Summary& summary, int quarter) {
  if (summary.samples_ms.empty()) return summary.median_ms;
  std::vector<double> sorted = summary.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  const auto rank = static_cast<std::size_t>(std::ceil(quarter / 4.0 * double(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// ---- the verdicts -------------------------------------------------------------

Verdict nvidia_verdict(const LineFit& line) {
  // A fixed part below zero: the node counts measured lie on no line through
  // small graphs, so only the per-node cost is quoted, and nothing matches.
  const bool has_fixed = has_fixed_part(line);
  Verdict verdict{.id = "launch_anatomy.nvidia",
                  .figures = {{"fixed_us", has_fixed ? nlohmann::json(line.fixed_us) : nlohmann::json()},
                              {"per_node_us", line.per_op_us}, {"nvidia_fixed_us", kNvidiaFixedUs},
                              {"nvidia_per_node_us", kNvidiaPerNodeUs}},
                  .threshold = {{"within", 2.0}, {"constant_time_per_node_us", kConstantTimePerNodeUs}}};
  verdict.sentence = "a straight line of kernel nodes cost the host " +
                     (has_fixed ? fixed(line.fixed_us, 1) + " us + " : std::string()) + ns(line.per_op_us) +
                     " per node to launch" + (has_fixed ? "" : " (no fixed part: the fit's is below zero)") +
                     "; NVIDIA publishes about " + fixed(kNvidiaFixedUs, 1) + " us + " + ns(kNvidiaPerNodeUs) +
                     " per node";
  if (has_fixed && line.per_op_us <= 2.0 * kNvidiaPerNodeUs && line.fixed_us <= 2.0 * kNvidiaFixedUs) {
    verdict.outcome = "matches";
    verdict.sentence += ": this system matches it (within 2x of both).";
  } else if (line.per_op_us <= kConstantTimePerNodeUs) {
    verdict.outcome = "close_to_constant_time";
    verdict.sentence += ": close to constant time (at most " + ns(kConstantTimePerNodeUs) + " per node), though " +
                        fixed(line.per_op_us / kNvidiaPerNodeUs, 0) + "x NVIDIA's per node: a 10,000-node line costs " +
                        fixed(std::max(0.0, line.fixed_us) + 1e4 * line.per_op_us, 0) + " us to launch.";
  } else {
    verdict.outcome = "not_constant_time";
    verdict.sentence += ": NOT constant time on this system (" + ns(line.per_op_us) + " per node, more than " +
                        ns(kConstantTimePerNodeUs) + ").";
  }
  return verdict;
}

Verdict kind_verdict(NodeKind kind, const LineFit& line_host, const LineFit& kernel_line_host) {
  const bool constant = line_host.per_op_us <= kConstantTimePerNodeUs;
  Verdict verdict{.id = "launch_anatomy.kind." + name(kind),
                  .outcome = constant ? "constant_time" : "not_constant_time",
                  .figures = {{"per_node_us", line_host.per_op_us}, {"kernel_per_node_us", kernel_line_host.per_op_us}},
                  .threshold = kConstantTimePerNodeUs,
                  .sentence = name(kind) + " nodes: " + fixed(line_host.per_op_us, 3) + " us of host time per node"};
  if (constant) {
    verdict.sentence += ": launched in constant time, like kernels.";
    return verdict;
  }
  verdict.sentence += ": not launched in constant time";
  if (kernel_line_host.points > 0 && kernel_line_host.per_op_us > 0.0) {
    verdict.sentence += " (" + fixed(line_host.per_op_us / kernel_line_host.per_op_us, 0) + "x a kernel node's)";
  }
  verdict.sentence += "; each such node costs the launch about as much as a call on a stream would.";
  return verdict;
}

Verdict fork_verdict(NodeKind kind, int chains, const LineFit& line_host, const LineFit& fork_host,
                     const LineFit& line_gpu, const LineFit& fork_gpu) {
  const double line_node = line_gpu.per_op_us, fork_node = fork_gpu.per_op_us;
  const double ratio = fork_node > 0.0 ? line_node / fork_node : 0.0;
  Verdict verdict{.id = "launch_anatomy.fork." + name(kind),
                  .figures = {{"line_gpu_per_node_us", line_node}, {"fork_gpu_per_node_us", fork_node},
                              {"line_over_fork", ratio}, {"lines", chains}},
                  .threshold = {{"side_by_side", kForkSideBySide}, {"partly", kForkPartly}}};
  std::string& text = verdict.sentence;
  text = name(kind) + ", a fork into " + plural(chains, "line") + " against one line: ";
  const std::string figures = " (" + figure(fork_node, 3) + " against " + figure(line_node, 3) + " us per node";
  if (ratio >= kForkSideBySide) {
    verdict.outcome = "side_by_side";
    text += "the GPU ran its nodes " + fixed(ratio, 1) + "x faster" + figures + ": the lines ran side by side)";
  } else if (ratio >= kForkPartly) {
    verdict.outcome = "partly_overlapped";
    text += "the GPU ran its nodes " + fixed(ratio, 1) + "x faster" + figures + ": the lines partly overlapped)";
  } else if (ratio > 1.0 / kForkPartly) {
    verdict.outcome = "no_overlap";
    text += "the GPU took about as long per node" + figures + ": the lines did not overlap)";
  } else {
    verdict.outcome = "longer";
    text += "the GPU took longer per node" + figures + ")";
  }
  // A fixed part means something only where the launch is constant time
  // (elsewhere the line through the node counts is no line) and the fit has one.
  if (line_host.per_op_us <= kConstantTimePerNodeUs && fork_host.per_op_us <= kConstantTimePerNodeUs &&
      has_fixed_part(line_host) && has_fixed_part(fork_host)) {
    text += "; the launch's fixed host cost " + fixed(fork_host.fixed_us, 1) + " against " +
            fixed(line_host.fixed_us, 1) + " us";
  }
  text += ".";
  return verdict;
}

Verdict article_verdict(const Anatomy& anatomy) {
  const auto base = std::find_if(anatomy.article.begin(), anatomy.article.end(),
                                 [](const ArticleLaunch& a) { return a.variant == ArticleVariant::article; });
  if (base == anatomy.article.end()) throw std::logic_error("article_verdict: no launch of the article's own graph");
  const double median = base->launch.median_ms;
  const double q1 = quartile_ms(base->launch, 1), q3 = quartile_ms(base->launch, 3);
  Verdict verdict{.id = "launch_anatomy.article",
                  .figures = {{"article_launch_us", 1000.0 * median}, {"article_q1_us", 1000.0 * q1},
                              {"article_q3_us", 1000.0 * q3}},
                  .threshold = {{"launch", kArticleLaunchNoise}, {"replay", kArticleReplayNoise}}};
  std::string differs;
  for (const ArticleLaunch& a : anatomy.article) {
    if (a.variant == ArticleVariant::article) continue;
    const double m = a.launch.median_ms;
    verdict.figures[std::string(to_string(a.variant)) + "_launch_us"] = 1000.0 * m;
    // Clear of each other: the variant's middle half all below or all above the article's.
    const bool clear = quartile_ms(a.launch, 3) < q1 || quartile_ms(a.launch, 1) > q3;
    if (!clear || std::abs(m / median - 1.0) <= kArticleLaunchNoise) continue;
    if (!differs.empty()) differs += "; ";
    differs += std::string(describe(a.variant)) + ": " + fixed(1000.0 * m, 0) + " us, " +
               (m < median ? fixed(median / m, 2) + "x cheaper" : fixed(m / median, 2) + "x dearer");
    const double gpu = a.gpu.median_ms, base_gpu = base->gpu.median_ms;
    if (gpu > 0.0 && base_gpu > 0.0 && std::abs(gpu / base_gpu - 1.0) > kArticleReplayNoise) {
      differs += ", but its replay took " + fixed(gpu, 2) + " ms on the GPU against " + fixed(base_gpu, 2) + " ms (" +
                 (gpu > base_gpu ? fixed(gpu / base_gpu, 2) + "x slower" : fixed(base_gpu / gpu, 2) + "x faster") + ")";
    }
  }
  const std::string noise = "the article's graph: median " + fixed(1000.0 * median, 0) + " us, middle half " +
                            fixed(1000.0 * q1, 0) + " to " + fixed(1000.0 * q3, 0) + " us";
  verdict.outcome = differs.empty() ? "no_difference" : "differs";
  verdict.sentence =
      differs.empty()
          ? "no way of building the graph changed what its launch costs beyond the noise (" + noise +
                "; a variant counts when its own middle half is clear of that one and its median more than " +
                fixed(100.0 * kArticleLaunchNoise, 0) + "% away): the laboratory's graph launches as cheaply as the article's."
          : "beyond the noise (" + noise + "), " + differs + ".";
  return verdict;
}

// ---- the report -------------------------------------------------------------

void report_launch_anatomy(const LaunchAnatomyOptions& options, const Anatomy& anatomy, Report& report) {
  const AnatomyConfig& config = anatomy.config;
  const Workload& work = options.common.work;
  StageResult& result = report.result;
  result = pool_result(result.device, options.common, options.pool);
  result.config.update({{"anatomy_nodes", config.nodes}, {"anatomy_repeats", config.repeats}});
  nlohmann::json launches = nlohmann::json::array();
  for (const ChainLaunch& c : anatomy.chains) {
    nlohmann::json params = {{"kind", name(c.kind)}, {"shape", shape_name(c.shape)}, {"nodes", c.nodes}};
    result.measurements.push_back(cost("anatomy_chain_launch_cpu", params, c.host));
    result.measurements.push_back(
        checked_without_digest("anatomy_chain_gpu", params, c.gpu, Work{}, anatomy.chains_checked));
    params.update({{"host_us", us(c.host)}, {"gpu_us", us(c.gpu)}});
    launches.push_back(std::move(params));
  }
  std::vector<const VerifyResult*> checks;
  nlohmann::json article = nlohmann::json::array();
  for (const ArticleLaunch& a : anatomy.article) {
    const nlohmann::json params = {{"variant", to_string(a.variant)}, {"batches", work.batches}};
    result.measurements.push_back(cost("anatomy_article_launch_cpu", params, a.launch));
    result.measurements.push_back(checked("anatomy_article_replay", params, a.gpu, work_of(work), a.check));
    checks.push_back(&a.check);
    article.push_back({{"variant", to_string(a.variant)},
                       {"launch_us", 1000.0 * a.launch.median_ms},
                       {"launch_q1_us", 1000.0 * quartile_ms(a.launch, 1)},
                       {"launch_q3_us", 1000.0 * quartile_ms(a.launch, 3)},
                       {"gpu_ms", a.gpu.median_ms},
                       {"verified", a.check.passed}});
  }
  if (!checks.empty()) set_verdict(result, *checks.front(), checks);
  add_failure(result, anatomy.chains_checked, "launch chains: " + anatomy.chains_failure);
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << "chains of " << plural(config.nodes.size(), "node count") << " (" << config.nodes.front() << " to "
      << config.nodes.back() << "), as one line and as a fork into " << plural(config.chains, "line") << "; then "
      << describe_workload(work, options.common.gemm) << " on " << plural(options.pool.streams, "stream")
      << ", median of " << plural(options.common.plan.repeats, "round") << " after " << options.common.plan.warmup
      << " warm-up\n\nchains of small nodes, each graph launched back to back (median of " << config.repeats
      << " after " << config.warmup << " warm-up): host us of the cudaGraphLaunch call, GPU us of the graph\n";
  struct Row {
    NodeKind kind;
    GraphShape shape;
    LineFit host, gpu;
  };
  std::vector<Row> rows;
  nlohmann::json fits = nlohmann::json::array();
  std::vector<std::string> kinds;
  for (const NodeKind kind : config.kinds) {
    kinds.push_back(name(kind));
    for (const GraphShape shape : {GraphShape::line, GraphShape::fork}) {
      const Row row{kind, shape, fit_chains(anatomy, kind, shape, true), fit_chains(anatomy, kind, shape, false)};
      rows.push_back(row);
      if (row.host.points == 0) continue;
      fits.push_back({{"kind", name(kind)},
                      {"shape", shape_name(shape)},
                      {"host_fixed_us", row.host.fixed_us},
                      {"host_per_node_us", row.host.per_op_us},
                      {"host_r2", row.host.r2},
                      {"gpu_fixed_us", row.gpu.fixed_us},
                      {"gpu_per_node_us", row.gpu.per_op_us}});
    }
  }
  std::vector<Column<Row>> columns = {
      {"kind", [](const Row& r) { return name(r.kind); }},
      {"shape", [&config](const Row& r) {
         return r.shape == GraphShape::line ? std::string("line") : plural(config.chains, "line");
       }}};
  for (const int n : config.nodes) {
    columns.push_back({plural(n, "node") + " host/GPU", [&anatomy, n](const Row& r) {
                         for (const ChainLaunch& c : anatomy.chains) {
                           if (c.kind == r.kind && c.shape == r.shape && c.nodes == n) {
                             return figure(us(c.host), 1) + " / " + figure(us(c.gpu), 1);
                           }
                         }
                         return std::string("-");
                       }});
  }
  columns.push_back({"host us/node", [](const Row& r) { return r.host.points ? figure(r.host.per_op_us, 4) : "-"; }});
  columns.push_back(
      {"host fixed us", [](const Row& r) { return has_fixed_part(r.host) ? figure(r.host.fixed_us, 1) : "-"; }});
  columns.push_back({"GPU us/node", [](const Row& r) { return r.gpu.points ? figure(r.gpu.per_op_us, 3) : "-"; }});
  report.table(table_of(columns, rows));

  const LineFit kernel_line = fit_chains(anatomy, NodeKind::kernel, GraphShape::line, true);
  const bool kernels = std::find(config.kinds.begin(), config.kinds.end(), NodeKind::kernel) != config.kinds.end();
  if (kernels && kernel_line.points > 0) report.verdict(nvidia_verdict(kernel_line));
  for (const Row& row : rows) {
    if (row.kind != NodeKind::kernel && row.shape == GraphShape::line && row.host.points > 0) {
      report.verdict(kind_verdict(row.kind, row.host, kernel_line));
    }
  }
  for (std::size_t i = 0; i < rows.size(); i += 2) {  // each kind's line, then its fork
    const Row& line = rows[i];
    const Row& fork = rows[i + 1];
    if (line.gpu.points == 0 || fork.gpu.points == 0) continue;
    report.verdict(fork_verdict(line.kind, config.chains, line.host, fork.host, line.gpu, fork.gpu));
  }
  if (!anatomy.article.empty()) {
    out << "\nthe article's graph built " << anatomy.article.size()
        << " ways, launched in the same interleaved rounds (host us of one cudaGraphLaunch; the GPU ms of the "
           "replay):\n";
    report.table(table_of<ArticleLaunch>(
        {{"variant", [](const ArticleLaunch& a) { return std::string(to_string(a.variant)); }},
         {"launch us", [](const ArticleLaunch& a) { return figure(1000.0 * a.launch.median_ms, 0); }},
         {"middle half us", [](const ArticleLaunch& a) {
            return figure(1000.0 * quartile_ms(a.launch, 1), 0) + "-" + figure(1000.0 * quartile_ms(a.launch, 3), 0);
          }},
         {"GPU ms", [](const ArticleLaunch& a) { return figure(a.gpu.median_ms, 2); }},
         {"verified", [](const ArticleLaunch& a) { return std::string(a.check.passed ? "yes" : "NO"); }},
         {"what changed", [](const ArticleLaunch& a) { return std::string(describe(a.variant)); }}},
        anatomy.article));
    report.verdict(article_verdict(anatomy));
  }
  if (!anatomy.chains_checked) out << "launch chains WRONG: " << anatomy.chains_failure << '\n';

  report.sections["launch_anatomy"] = {{"nodes", config.nodes},
                                       {"chains", config.chains},
                                       {"repeats", config.repeats},
                                       {"nvidia", {{"fixed_us", kNvidiaFixedUs}, {"per_node_us", kNvidiaPerNodeUs}}},
                                       {"launches", launches},
                                       {"fits", fits},
                                       {"article", article},
                                       {"chains_checked", anatomy.chains_checked},
                                       {"kinds", kinds}};
  if (!anatomy.chains_checked) report.sections["launch_anatomy"]["chains_failure"] = anatomy.chains_failure;
}

extern const Subcommand kLaunchAnatomy = make_subcommand<kExperiment>();

}  // namespace csg::graphs
