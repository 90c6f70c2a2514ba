// Stage 04's launch-cost study on synthetic figures: the line fit, which
// chains each figure's fit uses, the sentences chosen by the fits and the
// spread, the JSON, and the launch-chains subcommand's options.
#include <gtest/gtest.h>

#include "04_graph_capture_gemm/lab/launch-chains/launch_report.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "base/errors.hpp"

namespace csg::graphs {
namespace {

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

TEST(LaunchCosts, TheSentenceFollowsTheFits) {
  EXPECT_NE(launch_fit_text(synthetic(3.0, 0.7)).find("the graph is 4.7x cheaper"), std::string::npos)
      << launch_fit_text(synthetic(3.0, 0.7));
  EXPECT_NE(launch_fit_text(synthetic(0.7, 0.77)).find("about the same"), std::string::npos)
      << launch_fit_text(synthetic(0.7, 0.77));
  EXPECT_NE(launch_fit_text(synthetic(0.5, 2.0)).find("MORE than stream launches"), std::string::npos);
  EXPECT_NE(launch_fit_text(synthetic(3.0, 0.7, {1000})).find("too few chain lengths"), std::string::npos);
}

TEST(LaunchCosts, TheSpreadIsJudgedAgainstItsThreshold) {
  LaunchCosts costs = synthetic(3.0, 0.7);
  EXPECT_NE(spread_text(costs).find("every figure steady"), std::string::npos) << spread_text(costs);
  costs.chains[1].graph_cpu = at(0.01, 0.0131);  // p95 1.31x the median
  EXPECT_NE(spread_text(costs).find("NOISY: graph_cpu at 100 ops"), std::string::npos) << spread_text(costs);
  costs.chains[1].graph_cpu = at(0.01, 0.0129);
  EXPECT_NE(spread_text(costs).find("every figure steady"), std::string::npos);
  // Exactly 1.3x is still steady.
  costs.chains[1].graph_cpu = at(1.0, 1.3);
  EXPECT_NE(spread_text(costs).find("every figure steady"), std::string::npos) << spread_text(costs);
  // The spread is the p95's: one slow outlier (the max) does not make a figure noisy.
  Summary outlier = at(1.0, 1.1);
  outlier.max_ms = 3.0;
  costs.chains[1].graph_cpu = outlier;
  EXPECT_NE(spread_text(costs).find("every figure steady"), std::string::npos) << spread_text(costs);
  costs.chains[1].graph_cpu = at(0.01, 0.0129);
  // An unmeasured figure never counts, whatever its (empty) summary holds.
  costs.chains[3].stream_queued = at(0.01, 1.0);
  EXPECT_NE(spread_text(costs).find("every figure steady"), std::string::npos);
}

TEST(LaunchCosts, TheJsonKeepsEveryChainFitAndPair) {
  LaunchCosts costs = synthetic(3.0, 0.7);
  costs.steady.graph_launch_cpu = at(0.33);
  costs.steady.streams_issue_cpu = at(0.75);
  const nlohmann::json doc = launch_costs_json(costs, InterleavedIssue{0.45, 0.85, 3.6, 1000});
  ASSERT_EQ(doc.at("chains").size(), 4U);
  EXPECT_EQ(doc.at("chains")[3].at("stream_queued"), nullptr);
  EXPECT_NEAR(doc.at("chains")[2].at("graph_queued").at("us_per_op").get<double>(), (5.0 + 700.0) / 1000.0, 1e-9);
  EXPECT_NEAR(doc.at("fits").at("graph_queued").at("per_op_us").get<double>(), 0.7, 1e-9);
  EXPECT_NEAR(doc.at("steady").at("graph_over_streams").get<double>(), 0.44, 1e-9);
  EXPECT_NEAR(doc.at("interleaved").at("streams_issue_cpu_ms").get<double>(), 0.85, 1e-12);
  EXPECT_EQ(doc.at("checked"), true);
  EXPECT_EQ(doc.at("failure"), nullptr);
  costs.checked = false;
  costs.failure = "chain of 10 as a graph counted 9";
  EXPECT_EQ(launch_costs_json(costs, {}).at("failure"), "chain of 10 as a graph counted 9");
  EXPECT_NE(launch_ratio_text(costs, InterleavedIssue{0.45, 0.9, std::nullopt, 0}).find("0.44 back to back (0.50 "),
            std::string::npos)
      << launch_ratio_text(costs, InterleavedIssue{0.45, 0.9, std::nullopt, 0});
}

LaunchCostConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm launch-chains", "test");
  add_launch_options(cli);
  if (!cli.parse(args)) throw std::logic_error("--help");
  return read_launch_options(cli);
}

TEST(LaunchCosts, OptionsAreSortedAndBadOnesRefused) {
  EXPECT_EQ(parse({}).chains, (std::vector<int>{10, 100, 1000, 10000}));
  EXPECT_EQ(parse({"--launch-chains", "500,5"}).chains, (std::vector<int>{5, 500}));
  EXPECT_EQ(parse({"--launch-repeats", "51"}).repeats, 51);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--launch-chains", "0"}, {"--launch-chains", "10,,20"}, {"--launch-chains", "100001"},
           {"--launch-chains", "on"}, {"--launch-chains", "off"}, {"--launch-chains", "500,5,500"},
           {"--launch-repeats", "4"}}) {
    EXPECT_THROW(parse(bad), UsageError) << ::testing::PrintToString(bad);
  }
}

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

}  // namespace
}  // namespace csg::graphs
