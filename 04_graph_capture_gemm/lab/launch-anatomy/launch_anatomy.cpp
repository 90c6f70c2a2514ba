// 04_graph_capture_gemm launch-anatomy: what one cudaGraphLaunch costs by
// the kind of its nodes and the shape of the graph, beside NVIDIA's
// published figure, and the article's graph built five ways, launched in the
// same rounds (launch_anatomy.hpp says what and how; the chains are in
// launch_anatomy.cu, the words in launch_anatomy_report.cpp).
#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy.hpp"

#include <algorithm>
#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/laboratory.hpp"
#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy_report.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/device_info.hpp"

namespace csg::graphs {

// The first lines of its --help.
constexpr const char* kHelp =
    "The anatomy of a graph launch: chains of kernel, memcpy, memset and host-copy nodes, as one line and as a fork "
    "into --streams lines, each launched back to back (host time of the call, GPU time of the graph, a line fitted "
    "over the node counts, beside NVIDIA's constant-time figure); then the article's graph built five ways "
    "(its own layout, a slot per stream, breadth-first, registered host memory, the device-launch flag) launched "
    "in the same rounds.";

namespace {

constexpr int kMaxNodes = 100000;
constexpr int kDefaultAnatomyRepeats = 21;
// Per node and launch, for the estimate: a host-copy node's host and GPU
// time together are ~3 us on the H200; 5 us errs long. Each launch's
// poison, check and synchronisations: ~0.2 ms.
constexpr double kSecondsPerNodeLaunch = 5e-6;
constexpr double kSecondsPerChainRound = 2e-4;
constexpr double kPoisonBytesPerSecond = 5e9;  // the host's memset of C, and the verify's read

AnatomyConfig read_anatomy_options(const StageCli& cli, int streams) {
  AnatomyConfig config;
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
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string word = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<NodeKind> kind = parse_node_kind(word);
    if (!kind) {
      throw UsageError("--anatomy-kinds: " + in_quotes(word) + " is not one of kernel, memcpy, memset, host-copy");
    }
    if (std::find(config.kinds.begin(), config.kinds.end(), *kind) != config.kinds.end()) {
      throw UsageError("--anatomy-kinds: " + word + " is given twice");
    }
    config.kinds.push_back(*kind);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return config;
}

double anatomy_seconds(const AnatomyConfig& config, const CommonOptions& options, const Rates& rates) {
  double chains = 0.0;
  for (const int n : config.nodes) {
    chains += 2.0 * double(config.kinds.size()) *
              ((config.warmup + config.repeats) * (n * kSecondsPerNodeLaunch + kSecondsPerChainRound) +
               n * kSecondsPerNodeLaunch);
  }
  const double poison = double(options.work.batches) * double(options.work.c_bytes()) / kPoisonBytesPerSecond;
  const double article = (options.plan.warmup + options.plan.repeats) * 5.0 *
                         (pipeline_seconds(options, rates) + poison);
  return chains + article + 5.0 * poison;  // and each variant's verification
}

struct VariantRun {
  ArticleVariant variant;
  BatchBuffers* buffers;
  GraphExec exec;
  Millis last_launch{};
};

}  // namespace

int run_launch_anatomy(int argc, char** argv) {
  CommonDefaults defaults = pinned_defaults();
  defaults.host_memory_choice = false;  // the variants choose their own
  StageCli cli(subcommand_program(kStage, "launch-anatomy"), kHelp, defaults);
  cli.add_text("anatomy-nodes",
               "Node counts of the chains, comma-separated, each a multiple of --streams, in [1, " +
                   std::to_string(kMaxNodes) + "]",
               "8,80,800,8000", "LIST");
  cli.add_text("anatomy-kinds", "Node kinds of the chains: kernel, memcpy, memset, host-copy, comma-separated",
               "kernel,memcpy,memset,host-copy", "LIST");
  cli.add_int("anatomy-repeats", "Timed launches of each chain graph", kDefaultAnatomyRepeats, 3, 10000);
  add_pool_options(cli, PoolFlags{.device_buffers = false});
  const std::optional<CommonOptions> parsed = cli.parse_or_help(argc, argv);  // all checked before any CUDA call
  if (!parsed) return kExitOk;  // --help
  const CommonOptions& common = *parsed;
  const PoolConfig pool_config = read_pool_options(cli, common, PoolFlags{.device_buffers = false});
  Anatomy anatomy;
  anatomy.config = read_anatomy_options(cli, pool_config.streams);
  const Workload& work = common.work;

  const int device = require_device();
  const Gemm gemm(common.gemm);
  MemoryNeeds needs = memory_needs(work, HostMemory::pinned, 0);                               // the article's
  needs = combined(needs, memory_needs(work, HostMemory::pinned, pool_config.streams));        // slots
  needs = combined(needs, memory_needs(work, HostMemory::registered, 0));                      // registered
  needs.device_bytes += gemm_device_bytes(common.gemm, pool_config.streams);
  check_fits(needs, "try fewer --batches");
  check_estimate(anatomy_seconds(anatomy.config, common, measure_rates(gemm, work.shape)), common.max_minutes,
                 "the launch anatomy");
  for (const std::string& warning : pool_config.warnings) std::cerr << warning << '\n';

  progress("chains of " + plural(anatomy.config.nodes.back(), "node") + " at most, " +
           plural(static_cast<long long>(anatomy.config.kinds.size()), "kind") + ", two shapes");
  measure_chain_launches(anatomy);

  progress("the article's graph built five ways: filling " + plural(3 * work.batches, "batch"));
  const StreamPool pool(pool_config.streams);
  prepare_pool(gemm, pool);
  BatchBuffers article_buffers(work, HostMemory::pinned, 0);
  BatchBuffers slot_buffers(work, HostMemory::pinned, pool_config.streams);
  BatchBuffers registered_buffers(work, HostMemory::registered, 0);
  for (BatchBuffers* b : {&article_buffers, &slot_buffers, &registered_buffers}) b->fill_inputs(common.seed);
  auto exec_of = [&](BatchBuffers& b, BatchOrder order, unsigned long long flags = 0) {
    const Graph graph = capture_batches(batch_ops(b, gemm), pool, work.batches, Join::yes, order);
    return flags == 0 ? instantiate(graph) : GraphExec::instantiate(graph, {.flags = flags});
  };
  std::vector<VariantRun> runs;
  runs.push_back({ArticleVariant::article, &article_buffers, exec_of(article_buffers, BatchOrder::depth_first)});
  runs.push_back({ArticleVariant::slots, &slot_buffers, exec_of(slot_buffers, BatchOrder::depth_first)});
  runs.push_back(
      {ArticleVariant::breadth_first, &article_buffers, exec_of(article_buffers, BatchOrder::breadth_first)});
  runs.push_back(
      {ArticleVariant::registered, &registered_buffers, exec_of(registered_buffers, BatchOrder::depth_first)});
  runs.push_back({ArticleVariant::device_launch_flag, &article_buffers,
                  exec_of(article_buffers, BatchOrder::depth_first, cudaGraphInstantiateFlagDeviceLaunch)});
  for (VariantRun& r : runs) CUDA_CHECK(cudaGraphUpload(r.exec.get(), pool[0]));
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));

  progress("the article's graph built five ways, launched in " + plural(common.plan.warmup + common.plan.repeats, "round"));
  EventTimer timer;
  std::vector<VerifyResult> checks(runs.size());
  std::vector<TimedVariant> variants;
  for (std::size_t v = 0; v < runs.size(); ++v) {
    VariantRun* r = &runs[v];
    VerifyResult* check = &checks[v];
    variants.push_back(TimedVariant{
        .prepare = [r, &pool] { r->buffers->poison_outputs(pool[0]); },
        .run =
            [r, &pool, &timer] {
              timer.start(pool[0]);
              const HostTimer host;
              CUDA_CHECK(cudaGraphLaunch(r->exec.get(), pool[0]));
              r->last_launch = host.elapsed();
              return timer.stop();
            },
        .after_last = [r, check, &common] { *check = r->buffers->verify(common.seed); },
        .side = [r] { return r->last_launch; }});
  }
  const std::vector<Measured> measured = measure_rounds(common.plan, variants);
  for (std::size_t v = 0; v < runs.size(); ++v) {
    anatomy.article.push_back(ArticleLaunch{runs[v].variant, measured[v].side.value_or(Summary{}),
                                            measured[v].primary, checks[v]});
  }

  StageResult result = pool_result(query_device_info(device), common, pool_config);
  result.config["anatomy_nodes"] = anatomy.config.nodes;
  result.config["anatomy_repeats"] = anatomy.config.repeats;
  for (const ChainLaunch& c : anatomy.chains) {
    const nlohmann::json params = {{"kind", to_string(c.kind)},
                                   {"shape", c.shape == GraphShape::line ? "line" : "fork"},
                                   {"nodes", c.nodes}};
    result.measurements.push_back(cost("anatomy_chain_launch_cpu", params, c.host));
    result.measurements.push_back(checked_without_digest("anatomy_chain_gpu", params, c.gpu, Work{},
                                                         anatomy.chains_checked));
  }
  std::vector<const VerifyResult*> all_checks;
  for (const ArticleLaunch& a : anatomy.article) {
    const nlohmann::json params = {{"variant", to_string(a.variant)}, {"batches", work.batches}};
    result.measurements.push_back(cost("anatomy_article_launch_cpu", params, a.launch));
    result.measurements.push_back(checked("anatomy_article_replay", params, a.gpu, work_of(work), a.check));
  }
  for (const ArticleLaunch& a : anatomy.article) all_checks.push_back(&a.check);
  set_verdict(result, anatomy.article.front().check, all_checks);
  add_failure(result, anatomy.chains_checked, "launch chains: " + anatomy.chains_failure);
  print_title(std::cout, result, "launch-anatomy");
  std::cout << "chains of " << plural(anatomy.config.nodes.size(), "node count") << " (" << anatomy.config.nodes.front()
            << " to " << anatomy.config.nodes.back() << "), as one line and as a fork into "
            << plural(anatomy.config.chains, "line") << "; then " << describe_workload(work, common.gemm) << " on "
            << plural(pool_config.streams, "stream") << ", median of " << plural(common.plan.repeats, "round")
            << " after " << common.plan.warmup << " warm-up\n";
  print_anatomy(std::cout, anatomy);
  if (!anatomy.chains_checked) std::cout << "launch chains WRONG: " << anatomy.chains_failure << '\n';
  print_verification(std::cout, result);
  nlohmann::json doc = subcommand_json(result, "launch-anatomy");
  doc["launch_anatomy"] = anatomy_json(anatomy);
  return finish(std::cout, doc, result.verification.passed, common.json_path);
}

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // after the article: the launch by node kind and shape   after-the-article table, after_article.png
    {.modes = "q", .args = "--anatomy-nodes 8,80,800 --warmup 1 --repeats 5"},
    {.modes = "fc"},
    {.modes = "t", .name = "tiny", .args = "--anatomy-nodes 3,6 --anatomy-repeats 3 --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 2"},
    {.modes = "t", .name = "one_kind", .args = "--anatomy-kinds host-copy --anatomy-nodes 2,4,8 --anatomy-repeats 3 --batches 3 --m 16 --n 16 --k 16 --streams 2 --warmup 0 --repeats 1"},
    {.modes = "s", .args = "--anatomy-nodes 3,6 --anatomy-repeats 3 --batches 3 --m 16 --n 16 --k 16 --streams 3 --warmup 0 --repeats 1"},
};

const Subcommand kLaunchAnatomy{"launch-anatomy",
                                "a launch by node kind and shape vs NVIDIA's figure; the article's graph 5 ways",
                                run_launch_anatomy, kRuns};

}  // namespace csg::graphs
