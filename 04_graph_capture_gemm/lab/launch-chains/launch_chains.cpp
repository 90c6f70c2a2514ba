#include "04_graph_capture_gemm/lab/launch-chains/launch_chains.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
launch-chains: what one launch costs: chains of empty kernels, launches vs graph nodes, fitted

What one launch costs: chains of empty kernels, each length timed back to back launch by launch and
as one graph (host time, GPU time behind a latch, end to end), a line fitted through each; beside
them the article's work issued back to back and in interleaved rounds.
)";

constexpr const char* kRuns = R"(
# what one launch costs: appendix
q  -      --launch-chains 10,100,1000 --launch-repeats 5
# ... up to 10,000 kernels (--full)
c  -      --launch-chains 10,100,1000
# ... with every kernel loaded at start
f  -
c  eager  env=CUDA_MODULE_LOADING=EAGER
t  tiny   --launch-chains 3,30 --launch-repeats 5 --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
m  -      --launch-chains 2,5 --launch-repeats 5 --batches 3 --m 16 --n 16 --k 16 --streams 2 --warmup 0 --repeats 1
)";

constexpr int kMaxChain = 100000;  // empty kernels in one launch-cost chain
constexpr int kDefaultLaunchRepeats = 31;
constexpr int kMinLaunchRepeats = 5;  // fewer, and a p95 means nothing

double spread(const Summary& s) { return s.median_ms > 0.0 ? s.p95_ms / s.median_ms : 0.0; }

// The shared summary (report/result.hpp), per op and with its spread.
nlohmann::json summary_json(const Summary& s, int ops) {
  nlohmann::json doc = csg::summary_json(s);
  doc["us_per_op"] = per_op_us(s, ops);
  doc["p95_over_median"] = spread(s);
  return doc;
}

nlohmann::json fit_json(const LineFit& fit) {
  if (fit.points == 0) return nullptr;
  return {{"fixed_us", fit.fixed_us}, {"per_op_us", fit.per_op_us}, {"r2", fit.r2}, {"points", fit.points}};
}

Needs needs(const LaunchChainsConfig& config) { return article_needs(config.article); }

Estimate estimate(const LaunchChainsConfig& config, int) {
  const Estimate pipeline = article_estimate(config.article, pipeline_seconds);
  return {launch_chains_seconds(config.chains, config.article.common.plan, pipeline.seconds),
          "chains of " + std::to_string(config.chains.chains.front()) + " to " +
              std::to_string(config.chains.chains.back()) + " empty kernels"};
}

LaunchChainsFigures measure(const LaunchChainsConfig& config) {
  const CommonOptions& common = config.article.common;
  const Workload& work = common.work;
  const Gemm gemm(common.gemm);
  ArticleWork article(config.article, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  const BatchOps ops = batch_ops(buffers, gemm);
  const GraphExec exec = instantiate(capture_batches(ops, pool, work.batches));
  auto poison = [&] { buffers.poison_outputs(pool[0]); };
  auto verify = [&] { return buffers.verify(common.seed); };
  auto launch_step = [&pool](const GraphExec& e) { launch(e, pool); };
  auto issue_step = [&] { issue_on_streams(ops, pool, work.batches); };

  // The article's work in interleaved rounds, as the costs subcommand times
  // it, with a chain of empty kernels among them: the "interleaved" halves
  // of the pairs.
  progress("the article's work in interleaved rounds, and a chain of empty kernels among them");
  EventTimer chain_timer;
  const int chain_ops = steady_chain_ops(config.chains);
  const TimedVariant empty_chain{
      .prepare = nullptr,
      .run = [&] { return gpu_time(chain_timer, pool[0], [&] { issue_chain(chain_ops, pool[0]); }); },
      .after_last = nullptr};
  const ReplayComparison comparison{&exec, launch_step, issue_step, poison, verify, pool[0], {}, {}, {}, {empty_chain}};
  const ReplayCosts interleaved = measure_replay_vs_streams(common.plan, comparison);
  LaunchChainsFigures f;
  f.interleaved = {.graph_launch_cpu_ms = interleaved.issue_graph_cpu.median_ms,
                   .streams_issue_cpu_ms = interleaved.issue_streams_cpu.median_ms,
                   .empty_chain_end_to_end_ms = interleaved.also.at(0).median_ms,
                   .empty_chain_ops = chain_ops};
  f.interleaved_graph_check = interleaved.graph_check;
  f.interleaved_streams_check = interleaved.streams_check;

  progress("what one launch costs: chains of " + std::to_string(config.chains.chains.front()) + " to " +
           std::to_string(config.chains.chains.back()) + " empty kernels, back to back");
  f.costs = measure_launch_costs(config.chains, comparison);
  return f;
}

const Experiment<LaunchChainsConfig, LaunchChainsFigures> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = pinned_defaults(), .options = add_launch_chains_options, .read = read_launch_chains_options,
    .needs = needs, .estimate = estimate, .measure = measure, .report = report_launch_chains};

}  // namespace

void add_launch_chains_options(StageCli& cli) {
  cli.add_text("launch-chains",
               "Chain lengths of empty kernels, comma-separated, in [1, " + std::to_string(kMaxChain) + "]",
               "10,100,1000,10000", "LIST");
  cli.add_int("launch-repeats", "Timed repeats per chain length and figure (three times as many up to 1000 ops)",
              kDefaultLaunchRepeats, kMinLaunchRepeats, 10000);
  add_article_options(cli);
}

LaunchChainsConfig read_launch_chains_options(const StageCli& cli, CommonOptions& common) {
  LaunchChainsConfig config{read_article_options(cli, common), {}};
  const std::vector<long long> lengths =
      parse_distinct_int_list("launch-chains", cli.get_string("launch-chains"), 1, kMaxChain);
  config.chains.chains.assign(lengths.begin(), lengths.end());
  std::ranges::sort(config.chains.chains);
  config.chains.repeats = static_cast<int>(cli.get_int("launch-repeats"));
  return config;
}

Verdict launch_fit_verdict(const LaunchCosts& costs) {
  const LineFit& node = costs.fits[4];    // graph_queued
  const LineFit& launch = costs.fits[0];  // stream_cpu
  const LineFit& paced = costs.fits[2];   // stream_end_to_end
  Verdict verdict{.id = "launch_chains.per_op", .threshold = kEqualWithin};
  if (node.points == 0 || launch.points == 0) {
    return decided(verdict, "too_few_lengths", "too few chain lengths to fit a per-operation cost (need 2)");
  }
  const double stream_us = std::max(launch.per_op_us, paced.per_op_us);
  verdict.figures = {{"graph_node_us", node.per_op_us},
                     {"graph_launch_fixed_us", costs.fits[3].fixed_us},
                     {"stream_launch_us", launch.per_op_us},
                     {"stream_end_to_end_us", paced.points > 0 ? nlohmann::json(paced.per_op_us) : nlohmann::json()}};
  std::string& text = verdict.sentence;
  text = "a graph node costs " + fixed(node.per_op_us, 3) + " us of GPU time once queued (the graph launch " +
         fixed(costs.fits[3].fixed_us, 1) + " us of host time on top); a stream launch costs " +
         fixed(launch.per_op_us, 3) + " us of host time";
  if (paced.points > 0) text += " (" + fixed(paced.per_op_us, 3) + " us each end to end, the GPU waiting for the host)";
  if (node.per_op_us <= 0.0) return decided(verdict, "no_node_cost", text + ".");
  const Comparison graph = compare_times(node.per_op_us, stream_us);
  verdict.outcome = std::string(name_of(graph, {"graph_cheaper", "same", "graph_dearer"}));
  const std::string said =
      graph == Comparison::faster ? "the graph is " + fixed(stream_us / node.per_op_us, 1) + "x cheaper."
      : graph == Comparison::same ? "graph nodes and stream launches cost about the same here."
                                  : "graph nodes cost MORE than stream launches here, against the article.";
  text += ": per operation, " + said;
  return verdict;
}

Verdict spread_verdict(const LaunchCosts& costs) {
  double worst = 0.0;
  std::string where;
  for (const ChainFigures& chain : costs.chains) {
    for (int f = 0; f < kLaunchFigureCount; ++f) {
      if (!has_figure(chain, f)) continue;
      const double s = spread(figure_of(chain, f));
      if (s > worst) {
        worst = s;
        where = std::string(kLaunchFigures[f]) + " at " + plural(chain.ops, "op");
      }
    }
  }
  Verdict verdict{.id = "launch_chains.spread",
                  .figures = {{"widest_p95_over_median", worst}, {"where", where}},
                  .threshold = kSteadySpread};
  if (where.empty()) return decided(verdict, "no_figures", "no figures");
  if (worst <= kSteadySpread) {
    return decided(verdict, "steady", "every figure steady: p95 within " + fixed(kSteadySpread, 1) +
                                          "x of its median (widest: " + where + ", " + fixed(worst, 2) + "x)");
  }
  return decided(verdict, "noisy", "NOISY: " + where + " has a p95 " + fixed(worst, 2) +
                                       "x its median (steady means within " + fixed(kSteadySpread, 1) +
                                       "x); take its median with care");
}

Verdict pair_verdict(const std::string& id, const std::string& what, double a_ms, const std::string& a, double b_ms,
                     const std::string& b) {
  return comparison_verdict(
      "launch_chains." + id, a_ms, b_ms,
      "  " + what + ": " + fixed(a_ms, 3) + " ms " + a + ", " + fixed(b_ms, 3) + " ms " + b + " (" +
          (compare_times(a_ms, b_ms) == Comparison::same ? "the same within 3%" : compare_phrase(a_ms, b_ms) + " " + b) +
          ")");
}

std::string launch_ratio_text(const LaunchCosts& costs, const InterleavedIssue& interleaved) {
  const SteadyIssue& s = costs.steady;
  if (s.streams_issue_cpu.median_ms <= 0.0) return "";
  std::string text = "one graph launch of the stage's work takes " + fixed(s.graph_launch_cpu.median_ms, 3) +
                     " ms of host time, issuing it on the streams " + fixed(s.streams_issue_cpu.median_ms, 3) +
                     " ms: graph / streams = " + fixed(s.graph_launch_cpu.median_ms / s.streams_issue_cpu.median_ms, 2) +
                     " back to back";
  if (interleaved.streams_issue_cpu_ms > 0.0) {
    text += " (" + fixed(interleaved.graph_launch_cpu_ms / interleaved.streams_issue_cpu_ms, 2) +
            " in the interleaved rounds above)";
  }
  return text;
}

void report_launch_chains(const LaunchChainsConfig& config, const LaunchChainsFigures& f, Report& report) {
  const LaunchCosts& costs = f.costs;
  const InterleavedIssue& interleaved = f.interleaved;
  const SteadyIssue& s = costs.steady;
  StageResult& result = report.result;
  result = pool_result(result.device, config.article.common, config.article.pool);
  result.config.update({{"launch_chains", costs.config.chains}, {"launch_repeats", costs.config.repeats}});
  set_verdict(result, s.graph_check,
              {&s.graph_check, &s.streams_check, &f.interleaved_graph_check, &f.interleaved_streams_check});
  add_failure(result, costs.checked, "launch-cost study: " + costs.failure);
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << "beside the chains: " << pool_run_text(config.article.common, config.article.pool) << '\n'
      << "\nwhat one launch costs: chains of empty kernels, each length timed back to back (median of "
      << repeats_for(costs.config, kShortChain) << " up to " << kShortChain << " ops, of " << costs.config.repeats
      << " above, after " << costs.config.warmup << " warm-up; us per operation)\n"
      << "  cpu: host time of the calls; queued: GPU time behind a latch, the host out of the way; "
         "end to end: events around the chain\n";
  const auto us = [](int figure) {
    return [figure](const ChainFigures& c) {
      return has_figure(c, figure) ? fixed(per_op_us(figure_of(c, figure), c.ops), 3) : std::string("-");
    };
  };
  report.table(table_of<ChainFigures>({{"ops", [](const ChainFigures& c) { return std::to_string(c.ops); }},
                                       {"stream cpu", us(0)},
                                       {"queued", us(1)},
                                       {"end2end", us(2)},
                                       {"graph cpu", us(3)},
                                       {"queued", us(4)},
                                       {"end2end", us(5)}},
                                      costs.chains));
  out << "fit fixed + per-op x ops (us):\n";
  std::vector<int> fitted;
  for (int figure = 0; figure < kLaunchFigureCount; ++figure) {
    if (costs.fits[figure].points > 0) fitted.push_back(figure);
  }
  const LineFit* fit = costs.fits;
  report.table(table_of<int>({{"figure", [](int figure) { return std::string(kLaunchFigures[figure]); }},
                              {"per op", [fit](int figure) { return fixed(fit[figure].per_op_us, 3); }},
                              {"fixed", [fit](int figure) { return fixed(fit[figure].fixed_us, 2); }},
                              {"r^2", [fit](int figure) { return fixed(fit[figure].r2, 4); }},
                              {"lengths", [fit](int figure) { return std::to_string(fit[figure].points); }}},
                             fitted));
  const std::string conclusion = report.verdict(launch_fit_verdict(costs)).sentence;
  const std::string steadiness = report.verdict(spread_verdict(costs)).sentence;

  // What changes the figures: the same thing measured two ways in this run.
  out << "what changes the figures (host time, same run):\n";
  if (interleaved.graph_launch_cpu_ms > 0.0) {
    report.verdict(pair_verdict("graph_launch.back_to_back_vs_interleaved", "one graph launch of the stage's work",
                                s.graph_launch_cpu.median_ms, "back to back", interleaved.graph_launch_cpu_ms,
                                "interleaved"));
    report.verdict(pair_verdict("streams_issue.back_to_back_vs_interleaved", "issuing it on the streams",
                                s.streams_issue_cpu.median_ms, "back to back", interleaved.streams_issue_cpu_ms,
                                "interleaved"));
  }
  if (interleaved.empty_chain_end_to_end_ms) {
    for (const ChainFigures& c : costs.chains) {
      if (c.ops != interleaved.empty_chain_ops) continue;
      report.verdict(pair_verdict("empty_chain.back_to_back_vs_interleaved",
                                  "a chain of " + std::to_string(c.ops) + " empty launches, GPU time (events around it)",
                                  c.stream_end_to_end.median_ms, "back to back", *interleaved.empty_chain_end_to_end_ms,
                                  "interleaved"));
    }
  }
  report.verdict(pair_verdict("blocking_vs_non_blocking", std::to_string(s.chain_ops) + " empty launches",
                              s.blocking_chain_cpu.median_ms, "on a blocking stream", s.non_blocking_chain_cpu.median_ms,
                              "on a non-blocking stream"));
  out << "  module loading: CUDA_MODULE_LOADING=" << costs.module_loading << '\n'
      << launch_ratio_text(costs, interleaved) << '\n';
  if (!costs.checked) out << "launch-cost check FAILED: " << costs.failure << '\n';

  nlohmann::json chains = nlohmann::json::array();
  for (const ChainFigures& c : costs.chains) {
    nlohmann::json chain = {{"ops", c.ops}};
    for (int figure = 0; figure < kLaunchFigureCount; ++figure) {
      chain[kLaunchFigures[figure]] =
          has_figure(c, figure) ? summary_json(figure_of(c, figure), c.ops) : nlohmann::json(nullptr);
    }
    chains.push_back(chain);
  }
  nlohmann::json fits = nlohmann::json::object();
  for (int figure = 0; figure < kLaunchFigureCount; ++figure) fits[kLaunchFigures[figure]] = fit_json(costs.fits[figure]);
  report.sections["launch_costs"] = {
      {"chains", chains},
      {"fits", fits},
      {"warmup", costs.config.warmup},
      {"repeats", costs.config.repeats},
      {"module_loading", costs.module_loading},
      {"checked", costs.checked},
      {"failure", costs.checked ? nlohmann::json(nullptr) : nlohmann::json(costs.failure)},
      {"steady",
       {{"graph_launch_cpu", summary_json(s.graph_launch_cpu, 1)},
        {"streams_issue_cpu", summary_json(s.streams_issue_cpu, 1)},
        {"graph_over_streams",
         s.streams_issue_cpu.median_ms > 0.0 ? s.graph_launch_cpu.median_ms / s.streams_issue_cpu.median_ms : 0.0},
        {"blocking_chain_cpu", summary_json(s.blocking_chain_cpu, s.chain_ops)},
        {"non_blocking_chain_cpu", summary_json(s.non_blocking_chain_cpu, s.chain_ops)},
        {"chain_ops", s.chain_ops}}},
      {"interleaved",
       {{"graph_launch_cpu_ms", interleaved.graph_launch_cpu_ms},
        {"streams_issue_cpu_ms", interleaved.streams_issue_cpu_ms}}},
      {"conclusion", conclusion},
      {"spread", steadiness},
  };
}

extern const Subcommand kLaunchChains = make_subcommand<kExperiment>();

}  // namespace csg::graphs
