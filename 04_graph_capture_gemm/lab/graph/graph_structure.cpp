// 04_graph_capture_gemm graph: the article's six steps once, and what CUDA
// built from the capture: nodes by type, edges, roots and leaves, the
// independent chains the fork and join leave (one per stream used); with
// --dot FILE, the graph as Graphviz DOT (cudaGraphDebugDotPrint). The
// launch's outputs are verified, so the graph shown is one that computes
// the article's result.
#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"
#include "stage.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "The article's six steps once (capture, fork, work, join, end capture and instantiate, launch), and the graph "
    "CUDA built: nodes by type, edges, roots, leaves, the chains the fork and join leave.";

int run_graph(int argc, char** argv) {
  StageCli cli(subcommand_program(kStage, "graph"), kHelp, untimed_defaults());
  cli.add_output("dot", "Write the captured graph as Graphviz DOT (cudaGraphDebugDotPrint) to FILE");
  const std::optional<ArticleOptions> options = parse_article_options(cli, argc, argv);
  if (!options) return kExitOk;  // --help
  refuse_given(cli, {"warmup", "repeats"}, "the graph is captured and launched once, nothing is timed");
  const std::string dot_path = cli.get_string("dot");
  const CommonOptions& common = options->common;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  check_size(*options, gemm, article_memory(*options), nullptr);  // one capture and one launch: no estimate
  ArticleWork article(*options, gemm);

  progress("the six steps, once");
  const Graph graph = capture_batches(batch_ops(article.buffers, gemm), article.pool, common.work.batches);
  const GraphStructure structure = inspect_graph(graph);
  if (!dot_path.empty()) write_graph_dot(graph, dot_path);
  const VerifyResult check = launch_and_verify(instantiate(graph), article.pool, article.buffers, common.seed);

  StageResult result = pool_result(query_device_info(device), common, options->pool);
  set_verdict(result, check, {&check});
  print_title(std::cout, result, "graph");
  std::cout << describe_workload(common.work, common.gemm) << ", " << pool_text(common.host_memory, options->pool)
            << "\n\n"
            << structure_text(structure) << '\n'
            << fork_join_text(structure, options->pool.streams) << '\n';
  if (!dot_path.empty()) std::cout << "DOT file written to " << dot_path << " (render: dot -Tsvg)\n";
  std::cout << '\n' << check.message() << " (the graph launched once, after poisoning the outputs)\n";
  nlohmann::json doc = subcommand_json(result, "graph");
  doc["graph"] = to_json(structure);
  if (!dot_path.empty()) doc["graph"]["dot_file"] = dot_path;
  return finish(std::cout, doc, result.verification.passed, common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // a small graph's structure, drawn: 04_graph_capture_gemm-graph.dot
    {.modes = "qfc", .args = "--batches 6 --streams 3 --dot {results}/04_graph_capture_gemm-graph.dot"},
    {.modes = "t", .name = "tiny", .args = "--batches 7 --m 33 --n 17 --k 65 --streams 3"},
};

const Subcommand kGraph{"graph", "the captured graph: nodes by type, edges, the fork/join chains; --dot FILE",
                        run_graph, kRuns};

}  // namespace csg::graphs
