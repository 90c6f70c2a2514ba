// Stage 04's conditional subcommand on made-up figures: every branch of the
// WHILE node's verdict against each rival and of the SWITCH part's, their
// figures and thresholds, the buckets and requests, the version check, the
// report (its tables, its verdicts in the JSON, a wrong counter or output
// failing the run) and the options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/conditional/conditional.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "declaration_checks.hpp"
#include "subcommand_checks.hpp"
#include "made_up.hpp"

namespace csg::graphs {
namespace cpu_conditional {

using testing::flat;

// A loop whose WHILE node takes 2 µs per iteration and `rival` `ratios[i]`
// times as long at each N; every other variant as fast as the node.
LoopFigures figures_with(const std::vector<int>& ns, const std::vector<double>& ratios,
                         LoopVariant rival = kHostDecided) {
  LoopFigures figures;
  figures.body = LoopBody::gemm;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    LoopPoint point;
    point.iterations = ns[i];
    point.unrolled_measured = true;
    const double node_ms = 0.002 * ns[i];
    for (int v = 0; v < kLoopVariants; ++v) point.variant[v] = flat(node_ms);
    point.variant[rival] = flat(node_ms * ratios[i]);
    figures.points.push_back(point);
  }
  return figures;
}

const std::vector<int> kNs = {10, 100, 1000, 10000};

struct VersusCase {
  const char* name;
  LoopVariant rival;
  std::vector<double> ratios;  // rival / WHILE node at N = 10, 100, 1000, 10000
  const char* outcome;
  const char* phrase;  // what the sentence says after the rival
};

class ConditionalVersus : public ::testing::TestWithParam<VersusCase> {};

TEST_P(ConditionalVersus, OutcomeAndSentence) {
  const VersusCase& c = GetParam();
  const Verdict verdict = versus_verdict(figures_with(kNs, c.ratios, c.rival), c.rival);
  EXPECT_THAT(verdict, IsVerdict(std::string("conditional.gemm.") + kLoopVariantNames[c.rival], c.outcome,
                                 {"gemm body, the WHILE node vs ", c.phrase}));
}

// A clear difference is 10% either way (1.10 wins, 1.09 does not).
INSTANTIATE_TEST_SUITE_P(
    Verdicts, ConditionalVersus,
    ::testing::Values(
        VersusCase{"WinsEverywhere", kHostDecided, {12.0, 10.0, 9.5, 9.1}, "wins",
                   "the host deciding each iteration: wins at every N (9.10x to 12.00x)"},
        VersusCase{"WinsAtTheMargin", kHostDecided, {1.10, 1.10, 1.10, 1.10}, "wins", "wins at every N (1.10x)"},
        VersusCase{"EvenUnderTheMargin", kHostDecided, {1.09, 1.0, 0.92, 1.0}, "even", "within 10% at every N"},
        VersusCase{"CostsMoreEverywhere", kKernelLoop, {0.62, 0.7, 0.8, 0.85}, "costs_more",
                   "a host loop of kernel launches: costs more at every N (0.62x to 0.85x)"},
        VersusCase{"EvenEverywhere", kGraphLoop, {1.05, 0.95, 1.0, 1.0}, "even", "within 10% at every N"},
        // Its fixed cost loses at short loops; its per-iteration cost wins at long ones.
        VersusCase{"WinsFromSomeN", kKernelLoop, {0.5, 1.0, 1.5, 2.0}, "wins_from",
                   "wins from N = 1000 on (1.50x to 2.00x)"},
        VersusCase{"CostsMoreFromSomeN", kUnrolled, {1.5, 1.0, 0.8, 0.7}, "costs_more_from",
                   "one unrolled graph: costs more from N = 1000 on (0.70x to 0.80x)"},
        VersusCase{"Mixed", kGraphLoop, {1.5, 0.5, 1.5, 1.0}, "mixed",
                   "mixed: wins at N = 10, 1000; costs more at N = 100; within 10% at N = 10000 (0.50x to 1.50x)"},
        // A win before a loss is no "from N on", even where the last ones all win.
        VersusCase{"WinBeforeALossIsMixed", kGraphLoop, {1.5, 0.5, 1.5, 2.0}, "mixed", "mixed: "}),
    [](const ::testing::TestParamInfo<VersusCase>& param_info) { return std::string(param_info.param.name); });

TEST(ConditionalVerdicts, CarryTheRatiosAtEveryNTheFitsAndTheMargin) {
  LoopFigures f = figures_with(kNs, {12.0, 10.0, 9.5, 9.1});
  const Verdict verdict = versus_verdict(f, kHostDecided);
  EXPECT_NEAR(verdict.figures.at("rival_over_while_node_at_10").get<double>(), 12.0, 1e-9);
  EXPECT_NEAR(verdict.figures.at("rival_over_while_node_at_10000").get<double>(), 9.1, 1e-9);
  EXPECT_NEAR(verdict.figures.at("while_node_us_per_iteration").get<double>(), 2.0, 1e-6);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("clear_margin").get<double>(), kClearMargin);
}

TEST(ConditionalVerdicts, AnUnrolledGraphNeverBuiltIsNotMeasured) {
  LoopFigures f = figures_with(kNs, {1.0, 1.0, 1.0, 1.0});
  for (LoopPoint& point : f.points) point.unrolled_measured = false;
  const Verdict none = versus_verdict(f, kUnrolled);
  EXPECT_EQ(none.outcome, "not_measured");
  EXPECT_THAT(none.sentence, HasSubstr("not measured (every N above --cond-unroll-max)"));
  EXPECT_FALSE(none.figures.contains("rival_over_while_node_at_10"));
  EXPECT_EQ(loop_fit(f, kUnrolled).points, 0);
  // Only the Ns where it was built count.
  f.points[0].unrolled_measured = true;
  f.points[0].variant[kUnrolled] = flat(10.0);
  EXPECT_EQ(versus_verdict(f, kUnrolled).outcome, "wins");
}

TEST(ConditionalVerdicts, ThePerIterationCostIsTheFitsSlope) {
  LoopFigures f = figures_with(kNs, {1.0, 1.0, 1.0, 1.0});
  for (LoopPoint& point : f.points) point.variant[kWhileNode] = flat((5.0 + 1.5 * point.iterations) / 1000.0);
  const LineFit fit = loop_fit(f, kWhileNode);
  EXPECT_NEAR(fit.per_op_us, 1.5, 1e-9);
  EXPECT_NEAR(fit.fixed_us, 5.0, 1e-6);
  EXPECT_DOUBLE_EQ(per_op_us(flat(3.0), 1000), 3.0);
}

SwitchFigures switch_with(double device_ms, double host_ms) {
  return {.measured = true, .requests = 200, .device_chosen = flat(device_ms), .host_chosen = flat(host_ms),
          .per_bucket = {25, 25, 50, 100}};
}

struct SwitchCase {
  const char* name;
  SwitchFigures figures;
  const char* outcome;
  const char* words;
};

class ConditionalSwitch : public ::testing::TestWithParam<SwitchCase> {};

TEST_P(ConditionalSwitch, OutcomeAndSentence) {
  EXPECT_THAT(switch_verdict(GetParam().figures), IsVerdict("conditional.switch", GetParam().outcome, {GetParam().words}));
}

INSTANTIATE_TEST_SUITE_P(
    Verdicts, ConditionalSwitch,
    ::testing::Values(SwitchCase{"Wins", switch_with(2.0, 6.4), "wins",
                                 "the SWITCH node wins, with no host round trip: 10.0 µs per request against 32.0 µs "
                                 "when the host reads the size back and launches the bucket's graph (3.20x)"},
                      SwitchCase{"CostsMore", switch_with(4.0, 2.0), "costs_more",
                                 "the SWITCH node costs more than the host's choice"},
                      SwitchCase{"Even", switch_with(4.0, 4.2), "even", "does not pay off here"},
                      SwitchCase{"NotRun", SwitchFigures{}, "not_run", "--cond-requests 0"}),
    [](const ::testing::TestParamInfo<SwitchCase>& param_info) { return std::string(param_info.param.name); });

TEST(ConditionalVerdicts, TheSwitchCarriesItsFiguresPerRequest) {
  const Verdict verdict = switch_verdict(switch_with(2.0, 6.4));
  EXPECT_DOUBLE_EQ(verdict.figures.at("device_us_per_request").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("host_us_per_request").get<double>(), 32.0);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("clear_margin").get<double>(), kClearMargin);
  EXPECT_TRUE(switch_verdict(SwitchFigures{}).threshold.is_null());
}

TEST(Conditional, ARequestGoesToTheSmallestBucketThatHoldsIt) {
  const std::vector<int> buckets = {32, 64, 128, 256};
  EXPECT_EQ(bucket_of(1, buckets), 0);
  EXPECT_EQ(bucket_of(32, buckets), 0);
  EXPECT_EQ(bucket_of(33, buckets), 1);
  EXPECT_EQ(bucket_of(256, buckets), 3);
  EXPECT_EQ(bucket_of(257, buckets), -1);
}

TEST(Conditional, RequestSizesAreReproducibleAndInRange) {
  const std::vector<int> sizes = request_sizes(500, 256, 1);
  EXPECT_EQ(sizes, request_sizes(500, 256, 1));
  EXPECT_NE(sizes, request_sizes(500, 256, 2));
  std::vector<int> per_bucket(4, 0);
  for (const int size : sizes) {
    ASSERT_GE(size, 1);
    ASSERT_LE(size, 256);
    ++per_bucket[bucket_of(size, {32, 64, 128, 256})];
  }
  EXPECT_THAT(per_bucket, ::testing::Each(::testing::Gt(0))) << "every bucket serves some";
}

TEST(Conditional, ANodeTypeTheDriverLacksIsNamed) {
  const ConditionalConfig config;
  EXPECT_EQ(unsupported_reason(config, 13000, 13000), "");
  EXPECT_EQ(unsupported_reason(config, 12020, 13000), "WHILE nodes need CUDA 12.3 or newer: the driver supports 12.2");
  EXPECT_THAT(unsupported_reason(config, 12060, 13000),
              HasSubstr("SWITCH nodes need CUDA 12.8 or newer: the driver supports 12.6 (--cond-requests 0"));
  ConditionalConfig one_request;
  one_request.requests = 1;
  EXPECT_NE(unsupported_reason(one_request, 12060, 13000), "");
  ConditionalConfig no_switch;
  no_switch.requests = 0;
  EXPECT_EQ(unsupported_reason(no_switch, 12060, 13000), "");
  EXPECT_THAT(unsupported_reason(config, 13000, 12020), HasSubstr("the runtime is 12.2"));
}

TEST(Conditional, TheEstimateGrowsWithTheLoopsAndRounds) {
  ConditionalConfig config;
  config.common.plan = {2, 10};
  const double base = conditional_seconds(config, 1e-6);
  EXPECT_GT(base, 0.0);
  EXPECT_LT(base, 30.0);  // the defaults stay short
  config.common.plan = {2, 20};
  EXPECT_GT(conditional_seconds(config, 1e-6), base);
  config.common.plan = {2, 10};
  config.iterations.push_back(100000);
  EXPECT_GT(conditional_seconds(config, 1e-6), 5.0 * base);
}

ConditionalCosts made_up_costs() {
  ConditionalCosts costs;
  costs.loops[0] = figures_with({10, 100}, {8.0, 9.0});
  costs.loops[0].body = LoopBody::empty;
  costs.loops[1] = figures_with({10, 100}, {4.0, 5.0}, kKernelLoop);
  costs.loops[1].points[1].unrolled_measured = false;
  costs.switch_node = switch_with(2.0, 6.0);
  VerifyResult check;
  check.passed = true;
  check.batches_checked = 1;
  costs.gemm_checks = {check, check};
  costs.counter_checks = 24;
  return costs;
}

ConditionalConfig small_config() {
  ConditionalConfig config;
  config.iterations = {10, 100};
  config.unroll_max = 10;
  return config;
}

Report reported(const ConditionalCosts& costs) {
  return testing::report_of(kStage, "conditional", report_conditional, small_config(), costs);
}

TEST(ConditionalReport, PrintsTheTablesAndEveryVerdictAndCarriesThemInTheJson) {
  const Report report = reported(made_up_costs());
  EXPECT_TRUE(report.passed());
  const std::string text = report.console();
  EXPECT_THAT(text, AllOf(HasSubstr("unrolled up to N = 10"), HasSubstr("empty body"), HasSubstr("N=100 ms"),
                          HasSubstr("us/iter (fit)"), HasSubstr("the WHILE node against each"),
                          HasSubstr("  empty body, the WHILE node vs the host deciding each iteration: wins at every N"),
                          HasSubstr("requests per bucket 32: 25, 64: 25, 128: 50, 256: 100"),
                          HasSubstr("the SWITCH node wins")));
  EXPECT_THAT(testing::printed_verdict_ids(report), ElementsAre("conditional.empty.host_decided", "conditional.empty.kernel_loop",
                               "conditional.empty.graph_loop", "conditional.empty.unrolled",
                               "conditional.gemm.host_decided", "conditional.gemm.kernel_loop",
                               "conditional.gemm.graph_loop", "conditional.gemm.unrolled", "conditional.switch"));
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("subcommand"), "conditional");
  EXPECT_EQ(doc.at("verdicts").size(), 9u);
  // 2 bodies x 2 N x 5 variants, less one unrolled, and the two SWITCH runs.
  EXPECT_EQ(doc.at("measurements").size(), 2u * 2u * 5u - 1u + 2u);
  EXPECT_TRUE(doc.at("bounds").contains("gemm_while_node_us_per_iteration"));
  EXPECT_EQ(doc.at("config").at("cond_iterations"), nlohmann::json({10, 100}));
  const nlohmann::json& section = doc.at("conditional");
  EXPECT_EQ(section.at("iterations"), nlohmann::json({10, 100}));
  EXPECT_EQ(section.at("counter_checks"), 24);
  EXPECT_EQ(section.at("loops").at("empty").at("while_node_versus").at("host_decided"), "wins");
  EXPECT_EQ(section.at("loops").at("gemm").at("while_node_versus").at("kernel_loop"), "wins");
  EXPECT_FALSE(section.at("loops").at("gemm").at("points").at(1).contains("unrolled_ms"));
  EXPECT_TRUE(section.at("loops").at("gemm").at("points").at(0).contains("unrolled_instantiate_ms"));
  EXPECT_DOUBLE_EQ(section.at("loops").at("empty").at("points").at(1).at("host_decided_us_per_iteration").get<double>(),
                   18.0);
  EXPECT_EQ(section.at("switch").at("verdict"), "wins");
  EXPECT_EQ(section.at("switch").at("per_bucket"), nlohmann::json({25, 25, 50, 100}));
  EXPECT_FALSE(section.contains("failure"));
}

TEST(ConditionalReport, AWrongCounterOrOutputFailsTheRunAndIsNamed) {
  ConditionalCosts costs = made_up_costs();
  costs.checked = false;
  costs.failure = "gemm body, N = 10, while_node: the counter reads 11 after a loop of 10";
  const Report counted = reported(costs);
  testing::expect_failed(counted, "the counter reads 11", "counter WRONG: gemm body, N = 10, while_node");
  EXPECT_EQ(counted.document().at("conditional").at("failure"), costs.failure);

  ConditionalCosts wrong_output = made_up_costs();
  wrong_output.gemm_checks[1].passed = false;
  wrong_output.gemm_checks[1].method = "gemm body, N = 100, unrolled: freivalds+sampled";
  const Report wrong = reported(wrong_output);
  EXPECT_FALSE(wrong.passed());
  EXPECT_THAT(wrong.console(), HasSubstr("output WRONG: gemm body, N = 100, unrolled"));
}

TEST(ConditionalReport, AFitWhoseFixedPartFellBelowZeroShowsNoneAndSaysWhy) {
  ConditionalCosts costs = made_up_costs();
  // Ratios that shrink with N: every line meets N = 0 at or above zero.
  costs.loops[0].points[0].variant[kHostDecided] = flat(0.02 * 9.0);
  costs.loops[1].points[0].variant[kKernelLoop] = flat(0.02 * 5.0);
  costs.loops[1].points[1].variant[kKernelLoop] = flat(0.2 * 4.0);
  EXPECT_THAT(reported(costs).console(), Not(HasSubstr("crosses zero")));
  // The host loop of graph launches: 0.5 ms at N = 10, 20.4 ms at N = 100 (a line through -1.7 ms at N = 0).
  costs.loops[1].points[0].variant[kGraphLoop] = flat(0.5);
  costs.loops[1].points[1].variant[kGraphLoop] = flat(20.4);
  ASSERT_LT(loop_fit(costs.loops[1], kGraphLoop).fixed_us, 0.0);
  EXPECT_THAT(reported(costs).console(), AllOf(HasSubstr("fixed us -: the fitted line crosses zero above N = 0"),
                                               Not(HasSubstr("-1711")), Not(HasSubstr("-1,711"))));
}

ConditionalConfig parse(const std::vector<std::string>& args) {
  return testing::read_declared(own_workload_defaults(), conditional_options, read_conditional, args);
}

TEST(ConditionalOptions, AreParsedAndSorted) {
  const ConditionalConfig defaults = parse({});
  EXPECT_EQ(defaults.iterations, (std::vector<int>{10, 100, 1000, 10000}));
  EXPECT_EQ(defaults.buckets, (std::vector<int>{32, 64, 128, 256}));
  EXPECT_EQ(defaults.size, 64);
  EXPECT_EQ(defaults.requests, 200);
  EXPECT_EQ(defaults.common.work.shape.k, 64);
  const ConditionalConfig given =
      parse({"--cond-iterations", "50,5", "--cond-buckets", "64,16", "--cond-requests", "0", "--cond-size", "8"});
  EXPECT_EQ(given.iterations, (std::vector<int>{5, 50}));
  EXPECT_EQ(given.buckets, (std::vector<int>{16, 64}));
  EXPECT_EQ(given.requests, 0);
  EXPECT_EQ(given.size, 8);
  EXPECT_EQ(given.common.work.shape.m, 8);
}

}  // namespace cpu_conditional
}  // namespace csg::graphs
