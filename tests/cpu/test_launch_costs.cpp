// Stage 04's launch-cost study on synthetic figures: the line fit, which
// chains each figure's fit uses, the verdicts chosen by the fits, the spread
// and the pairs, the report and its JSON, and the launch-chains subcommand's options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/launch-chains/launch_chains.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "param_names.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "made_up.hpp"

namespace csg::graphs {
namespace cpu_launch_costs {

Summary at(double median_ms, double p95_ms = -1.0) {
  Summary s;
  s.median_ms = s.min_ms = median_ms;
  s.p95_ms = s.max_ms = p95_ms < 0.0 ? median_ms : p95_ms;
  s.samples = 31;
  return s;
}

// Chains whose figures lie on lines: cpu 2 + 3 us/op for streams, 5 + 0.7 us/node queued graph, ...
LaunchCosts synthetic(double stream_us, double node_us, std::vector<int> lengths = {10, 100, 1000, 10000}) {
  LaunchCosts costs;
  costs.config.chains = lengths;
  for (const int ops : lengths) {
    ChainFigures c;
    c.ops = ops;
    c.stream_cpu = at((2.0 + stream_us * ops) / 1000.0);
    c.stream_end_to_end = at((4.0 + stream_us * 1.1 * ops) / 1000.0);
    c.stream_queued_measured = ops <= 1000;
    if (c.stream_queued_measured) c.stream_queued = at((3.0 + 1.5 * ops) / 1000.0);
    c.graph_cpu = at((6.0 + 0.001 * ops) / 1000.0);
    c.graph_queued = at((5.0 + node_us * ops) / 1000.0);
    c.graph_end_to_end = at((9.0 + node_us * ops) / 1000.0);
    costs.chains.push_back(c);
  }
  for (int f = 0; f < kLaunchFigureCount; ++f) costs.fits[f] = fit_figure(costs.chains, f);
  return costs;
}

TEST(LaunchCosts, TheLineFitRecoversALine) {
  const LineFit fit = fit_line({10, 100, 1000, 10000}, {17.0, 107.0, 1007.0, 10007.0});
  EXPECT_NEAR(fit.per_op_us, 1.0, 1e-12);
  EXPECT_NEAR(fit.fixed_us, 7.0, 1e-9);
  EXPECT_NEAR(fit.r2, 1.0, 1e-12);
  EXPECT_EQ(fit.points, 4);
  EXPECT_EQ(fit_line({10}, {17.0}).points, 0);
  EXPECT_EQ(fit_line({10, 10}, {17.0, 18.0}).points, 0);  // one distinct length: no slope
  const LineFit noisy = fit_line({1, 2, 3, 4}, {1.0, 3.0, 2.0, 4.0});
  EXPECT_LT(noisy.r2, 1.0);
  EXPECT_GT(noisy.r2, 0.0);
}

TEST(LaunchCosts, TheFitsR2IsTheSquareOfTheCorrelation) {
  // x 1..4, y 1, 3, 2, 4: sxy 4, sxx = syy = 5, so r = 0.8 and r^2 = 0.64.
  EXPECT_NEAR(fit_line({1, 2, 3, 4}, {1.0, 3.0, 2.0, 4.0}).r2, 0.64, 1e-12);
  // A falling line fits as well as a rising one.
  EXPECT_NEAR(fit_line({1, 2, 3, 4}, {4.0, 2.0, 3.0, 1.0}).r2, 0.64, 1e-12);
}

TEST(LaunchCosts, EveryFigureOfAChainWithoutTheQueuedStreamFigureIsStillFitted) {
  // The longest chain has no stream_queued figure; its other five figures still count.
  const LaunchCosts costs = synthetic(3.0, 0.7, {10, 100, 10000});
  EXPECT_EQ(costs.fits[1].points, 2);  // stream_queued: 10 and 100
  for (int f : {0, 2, 3, 4, 5}) EXPECT_EQ(costs.fits[f].points, 3) << kLaunchFigures[f];
}

TEST(LaunchCosts, EachFigureIsFittedOverTheChainsThatHaveIt) {
  const LaunchCosts costs = synthetic(3.0, 0.7);
  EXPECT_NEAR(costs.fits[0].per_op_us, 3.0, 1e-9);  // stream_cpu
  EXPECT_NEAR(costs.fits[0].fixed_us, 2.0, 1e-6);
  EXPECT_EQ(costs.fits[1].points, 3);  // stream_queued: not at 10,000
  EXPECT_NEAR(costs.fits[1].per_op_us, 1.5, 1e-9);
  EXPECT_NEAR(costs.fits[4].per_op_us, 0.7, 1e-9);  // graph_queued
  EXPECT_NEAR(costs.fits[4].fixed_us, 5.0, 1e-6);
  EXPECT_DOUBLE_EQ(per_op_us(at(3.0), 1000), 3.0);
}

TEST(LaunchCostsVerdict, TheGraphIsCheaperPerOperation) {
  const Verdict verdict = launch_fit_verdict(synthetic(3.0, 0.7));
  EXPECT_EQ(verdict.id, "launch_chains.per_op");
  EXPECT_EQ(verdict.outcome, "graph_cheaper");
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("a graph node costs 0.700 us"), HasSubstr("the graph is 4.7x cheaper")));
  EXPECT_NEAR(verdict.figures.at("graph_node_us").get<double>(), 0.7, 1e-9);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kEqualWithin);
}

TEST(LaunchCostsVerdict, AboutTheSameOrDearerPerOperation) {
  // Streams 0.7 us, 0.77 end to end; nodes 0.77: within 3% of the dearer stream figure.
  const Verdict same = launch_fit_verdict(synthetic(0.7, 0.77));
  EXPECT_EQ(same.outcome, "same");
  EXPECT_THAT(same.sentence, HasSubstr("about the same"));
  const Verdict dearer = launch_fit_verdict(synthetic(0.5, 2.0));
  EXPECT_EQ(dearer.outcome, "graph_dearer");
  EXPECT_THAT(dearer.sentence, HasSubstr("MORE than stream launches"));
}

TEST(LaunchCostsVerdict, OneChainLengthOrAFreeNodeIsSaidAsSuch) {
  const Verdict one = launch_fit_verdict(synthetic(3.0, 0.7, {1000}));
  EXPECT_EQ(one.outcome, "too_few_lengths");
  EXPECT_THAT(one.sentence, HasSubstr("too few chain lengths"));
  const Verdict free = launch_fit_verdict(synthetic(3.0, 0.0));
  EXPECT_EQ(free.outcome, "no_node_cost");
  EXPECT_THAT(free.sentence, Not(HasSubstr("cheaper")));
}

TEST(LaunchCostsVerdict, TheSpreadIsJudgedAgainstItsThreshold) {
  LaunchCosts costs = synthetic(3.0, 0.7);
  EXPECT_EQ(spread_verdict(costs).outcome, "steady");
  EXPECT_THAT(spread_verdict(costs).sentence, HasSubstr("every figure steady"));
  EXPECT_DOUBLE_EQ(spread_verdict(costs).threshold.get<double>(), kSteadySpread);
  costs.chains[1].graph_cpu = at(0.01, 0.0131);  // p95 1.31x the median
  EXPECT_EQ(spread_verdict(costs).outcome, "noisy");
  EXPECT_THAT(spread_verdict(costs).sentence, HasSubstr("NOISY: graph_cpu at 100 ops"));
  costs.chains[1].graph_cpu = at(0.01, 0.0129);
  EXPECT_EQ(spread_verdict(costs).outcome, "steady");
  // Exactly 1.3x is still steady.
  costs.chains[1].graph_cpu = at(1.0, 1.3);
  EXPECT_EQ(spread_verdict(costs).outcome, "steady");
  // The spread is the p95's: one slow outlier (the max) does not make a figure noisy.
  Summary outlier = at(1.0, 1.1);
  outlier.max_ms = 3.0;
  costs.chains[1].graph_cpu = outlier;
  EXPECT_EQ(spread_verdict(costs).outcome, "steady");
  costs.chains[1].graph_cpu = at(0.01, 0.0129);
  // An unmeasured figure never counts, whatever its (empty) summary holds.
  costs.chains[3].stream_queued = at(0.01, 1.0);
  EXPECT_EQ(spread_verdict(costs).outcome, "steady");
  EXPECT_EQ(spread_verdict(LaunchCosts{}).outcome, "no_figures");
}

TEST(LaunchCostsVerdict, APairIsTheSameFasterOrSlower) {
  const Verdict same = pair_verdict("pair", "x", 1.0, "back to back", 1.02, "interleaved");
  EXPECT_EQ(same.id, "launch_chains.pair");
  EXPECT_EQ(same.outcome, "same");
  EXPECT_THAT(same.sentence, HasSubstr("  x: 1.000 ms back to back, 1.020 ms interleaved (the same within 3%)"));
  EXPECT_EQ(pair_verdict("pair", "x", 1.0, "a", 2.0, "b").outcome, "faster");
  const Verdict slower = pair_verdict("pair", "x", 2.0, "a", 1.0, "b");
  EXPECT_EQ(slower.outcome, "slower");
  EXPECT_THAT(slower.sentence, HasSubstr("(2.00x slower than b)"));
}

LaunchChainsFigures made_up_figures() {
  LaunchChainsFigures f;
  f.costs = synthetic(3.0, 0.7);
  f.costs.steady.graph_launch_cpu = at(0.33);
  f.costs.steady.streams_issue_cpu = at(0.75);
  f.costs.steady.blocking_chain_cpu = at(3.0);
  f.costs.steady.non_blocking_chain_cpu = at(2.9);
  f.costs.steady.chain_ops = 1000;
  f.costs.module_loading = "LAZY (default)";
  for (VerifyResult* check : {&f.costs.steady.graph_check, &f.costs.steady.streams_check, &f.interleaved_graph_check,
                              &f.interleaved_streams_check}) {
    check->passed = true;
    check->batches_checked = 100;
  }
  f.interleaved = InterleavedIssue{0.45, 0.85, 3.6, 1000};
  return f;
}

Report reported(const LaunchChainsFigures& figures) {
  return testing::report_of(kStage, "launch-chains", report_launch_chains, LaunchChainsConfig{}, figures);
}

TEST(LaunchCostsReport, TheJsonKeepsEveryChainFitAndPair) {
  LaunchChainsFigures f = made_up_figures();
  const Report report = reported(f);
  const nlohmann::json doc = report.document().at("launch_costs");
  ASSERT_EQ(doc.at("chains").size(), 4U);
  EXPECT_EQ(doc.at("chains")[3].at("stream_queued"), nullptr);
  EXPECT_NEAR(doc.at("chains")[2].at("graph_queued").at("us_per_op").get<double>(), (5.0 + 700.0) / 1000.0, 1e-9);
  // Each chain's figure is the shared summary (report/result.hpp) with its per-op time and spread.
  const nlohmann::json& queued = doc.at("chains")[2].at("graph_queued");
  for (const char* field : {"median_ms", "min_ms", "max_ms", "p95_ms", "samples", "p95_over_median"}) {
    EXPECT_TRUE(queued.contains(field)) << field;
  }
  EXPECT_GT(queued.at("median_ms").get<double>(), 0.0);
  EXPECT_EQ(queued.at("median_ms"), queued.at("min_ms"));  // made up with min = median
  EXPECT_NEAR(doc.at("fits").at("graph_queued").at("per_op_us").get<double>(), 0.7, 1e-9);
  EXPECT_NEAR(doc.at("steady").at("graph_over_streams").get<double>(), 0.44, 1e-9);
  EXPECT_NEAR(doc.at("interleaved").at("streams_issue_cpu_ms").get<double>(), 0.85, 1e-12);
  EXPECT_EQ(doc.at("checked"), true);
  EXPECT_EQ(doc.at("failure"), nullptr);
  EXPECT_EQ(doc.at("conclusion"), launch_fit_verdict(f.costs).sentence);
  EXPECT_EQ(doc.at("spread"), spread_verdict(f.costs).sentence);
  std::vector<std::string> ids;
  for (const Verdict& verdict : report.verdicts()) ids.push_back(verdict.id);
  EXPECT_THAT(ids, ElementsAre("launch_chains.per_op", "launch_chains.spread",
                               "launch_chains.graph_launch.back_to_back_vs_interleaved",
                               "launch_chains.streams_issue.back_to_back_vs_interleaved",
                               "launch_chains.empty_chain.back_to_back_vs_interleaved",
                               "launch_chains.blocking_vs_non_blocking"));
  EXPECT_TRUE(report.passed());
  EXPECT_THAT(report.console(), AllOf(HasSubstr("stream cpu"), HasSubstr("graph_queued"),
                                      HasSubstr("0.44 back to back (0.53 in the interleaved rounds above)")));
}

TEST(LaunchCostsReport, AFailedStudyFailsTheRunAndIsNamed) {
  LaunchChainsFigures f = made_up_figures();
  f.costs.checked = false;
  f.costs.failure = "chain of 10 as a graph counted 9";
  const Report report = reported(f);
  EXPECT_EQ(report.document().at("launch_costs").at("failure"), "chain of 10 as a graph counted 9");
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.console(), HasSubstr("launch-cost check FAILED: chain of 10 as a graph counted 9"));
  EXPECT_THAT(launch_ratio_text(f.costs, InterleavedIssue{0.45, 0.9, std::nullopt, 0}),
              HasSubstr("0.44 back to back (0.50 "));
}

LaunchCostConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm launch-chains", "test");
  add_launch_chains_options(cli);
  std::optional<CommonOptions> common = cli.parse(args);
  if (!common) throw std::logic_error("--help");
  return read_launch_chains_options(cli, *common).chains;
}

TEST(LaunchCostsOptions, TheChainsAreSorted) {
  EXPECT_THAT(parse({}).chains, ElementsAre(10, 100, 1000, 10000));
  EXPECT_THAT(parse({"--launch-chains", "500,5"}).chains, ElementsAre(5, 500));
  EXPECT_EQ(parse({"--launch-repeats", "51"}).repeats, 51);
}

class LaunchCostsBadOptions : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(LaunchCostsBadOptions, AreRefused) { EXPECT_THROW(parse(GetParam()), UsageError); }

INSTANTIATE_TEST_SUITE_P(Each, LaunchCostsBadOptions,
                         ::testing::Values(std::vector<std::string>{"--launch-chains", "0"},
                                           std::vector<std::string>{"--launch-chains", "10,,20"},
                                           std::vector<std::string>{"--launch-chains", "100001"},
                                           std::vector<std::string>{"--launch-chains", "on"},
                                           std::vector<std::string>{"--launch-chains", "off"},
                                           std::vector<std::string>{"--launch-chains", "500,5,500"},
                                           std::vector<std::string>{"--launch-repeats", "4"}),
                         [](const ::testing::TestParamInfo<std::vector<std::string>>& param_info) {
                           return testing::words_name(param_info.index, param_info.param);
                         });

// The estimate launch-chains checks against --max-minutes: every chain
// length's launches, and each run of the article's work (the steady-state
// pairs, twice per repeat; the interleaved rounds, four per round).
TEST(LaunchCosts, TheSteadyChainIsTheLongestChainUpToAThousand) {
  LaunchCostConfig config;  // 10, 100, 1000, 10000
  EXPECT_EQ(steady_chain_ops(config), 1000);
  config.chains = {3, 30};  // a sanitizer's run: no chain of 1,000 beside them
  EXPECT_EQ(steady_chain_ops(config), 30);
  config.chains = {10, 100, 5000};
  EXPECT_EQ(steady_chain_ops(config), 100);
  config.chains = {2000, 5000};
  EXPECT_EQ(steady_chain_ops(config), 2000);
}

TEST(LaunchCosts, TheEstimateCountsEveryChainAndEveryRunOfTheWork) {
  LaunchCostConfig config;
  config.chains = {10, 100};
  const RepeatPlan plan{2, 10};
  const double without_work = launch_chains_seconds(config, plan, 0.0);
  EXPECT_GT(without_work, 0.0) << "the chains' launches and the interleaved chain";
  LaunchCostConfig longer = config;
  longer.chains = {10, 100, 1000};
  EXPECT_GT(launch_chains_seconds(longer, plan, 0.0), without_work);
  const double runs_of_the_work = (config.warmup + config.repeats) * 2.0 + (plan.warmup + plan.repeats) * 4.0;
  EXPECT_NEAR(launch_chains_seconds(config, plan, 0.5) - without_work, 0.5 * runs_of_the_work, 1e-9);
}

}  // namespace cpu_launch_costs
}  // namespace csg::graphs
