// The launch's outputs are verified, so the graph shown is one that
// computes the article's result.
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
graph: the captured graph: nodes by type, edges, the fork/join chains; --dot FILE

The article's six steps once (capture, fork, work, join, end capture and instantiate, launch), and
the graph CUDA built: nodes by type, edges, roots, leaves, the chains the fork and join leave.
)";

constexpr const char* kRuns = R"(
# a small graph's structure, drawn: 04_graph_capture_gemm-graph.dot
qfc  -     --batches 6 --streams 3 --dot {results}/04_graph_capture_gemm-graph.dot
t    tiny  --batches 7 --m 33 --n 17 --k 65 --streams 3
)";

struct Config {
  ArticleOptions article;
  std::string dot_path;  // --dot; empty: no DOT file
};

struct Figures {
  GraphStructure structure;
  VerifyResult check;  // the graph launched once
};

void options(StageCli& cli) {
  cli.add_output("dot", "Write the captured graph as Graphviz DOT (cudaGraphDebugDotPrint) to FILE");
  add_article_options(cli);
}

Config read(const StageCli& cli, CommonOptions& common) {
  return {read_article_options(cli, common), cli.get_string("dot")};
}

Needs needs(const Config& config) { return article_needs(config.article); }

Estimate estimate(const Config& config, int) { return article_estimate(config.article, nullptr); }

Figures measure(const Config& config) {
  const CommonOptions& common = config.article.common;
  const Gemm gemm(common.gemm);
  ArticleWork article(config.article, gemm);
  progress("the six steps, once");
  const Graph graph = capture_batches(batch_ops(article.buffers, gemm), article.pool, common.work.batches);
  Figures f{inspect_graph(graph), {}};
  if (!config.dot_path.empty()) write_graph_dot(graph, config.dot_path);
  f.check = launch_and_verify(instantiate(graph), article.pool, article.buffers, common.seed);
  return f;
}

void report(const Config& config, const Figures& f, Report& report) {
  const CommonOptions& common = config.article.common;
  report.result = pool_result(report.result.device, common, config.article.pool);
  set_verdict(report.result, f.check, {&f.check});
  report.checked_runs("(the graph launched once, after poisoning the outputs)");
  report.sections["graph"] = to_json(f.structure);
  if (!config.dot_path.empty()) report.sections["graph"]["dot_file"] = config.dot_path;
  report.out() << describe_workload(common.work, common.gemm) << ", "
               << pool_text(common.host_memory, config.article.pool) << "\n\n";
  report.verdict(structure_verdict(f.structure));
  report.verdict(fork_join_verdict(f.structure, config.article.pool.streams));
  if (!config.dot_path.empty()) report.out() << "DOT file written to " << config.dot_path << " (render: dot -Tsvg)\n";
}

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = untimed_defaults(),
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report};

}  // namespace

extern const Subcommand kGraph = make_subcommand<kExperiment>();

}  // namespace csg::graphs
