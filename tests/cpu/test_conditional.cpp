// Stage 04's conditional subcommand on made-up figures: every branch of the
// WHILE node's comparison with each rival and of the SWITCH part's sentence,
// the buckets and requests, the version check, the JSON and the options.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "04_graph_capture_gemm/lab/conditional/conditional_report.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "base/errors.hpp"

namespace csg::graphs {
namespace {

Summary at(double median_ms) {
  Summary s;
  s.median_ms = s.min_ms = s.max_ms = s.p95_ms = median_ms;
  s.samples = 10;
  return s;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A loop whose WHILE node takes `while_ms` per iteration and `rival` (the
// host-decided loop here) `rival_ms[i]` / N at each N; every other variant
// as fast as the node.
LoopFigures figures_with(const std::vector<int>& ns, const std::vector<double>& ratios,
                         LoopVariant rival = kHostDecided) {
  LoopFigures figures;
  figures.body = LoopBody::gemm;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    LoopPoint point;
    point.iterations = ns[i];
    point.unrolled_measured = true;
    const double node_ms = 0.002 * ns[i];
    for (int v = 0; v < kLoopVariants; ++v) point.variant[v] = at(node_ms);
    point.variant[rival] = at(node_ms * ratios[i]);
    figures.points.push_back(point);
  }
  return figures;
}

const std::vector<int> kNs = {10, 100, 1000, 10000};

TEST(Conditional, AClearDifferenceIsTenPercentEitherWay) {
  EXPECT_EQ(outcome_of(1.10, 1.0), Outcome::wins);
  EXPECT_EQ(outcome_of(1.09, 1.0), Outcome::even);
  EXPECT_EQ(outcome_of(1.0 / 1.09, 1.0), Outcome::even);
  EXPECT_EQ(outcome_of(1.0, 1.10), Outcome::costs_more);
}

TEST(Conditional, TheWhileNodeWinsAtEveryN) {
  const LoopFigures f = figures_with(kNs, {12.0, 10.0, 9.5, 9.1});
  EXPECT_EQ(versus_word(f, kHostDecided), "wins");
  EXPECT_EQ(versus_text(f, kHostDecided), "wins at every N (9.10x to 12.00x)");
}

TEST(Conditional, TheWhileNodeCostsMoreAtEveryN) {
  const LoopFigures f = figures_with(kNs, {0.62, 0.7, 0.8, 0.85}, kKernelLoop);
  EXPECT_EQ(versus_word(f, kKernelLoop), "costs_more");
  EXPECT_EQ(versus_text(f, kKernelLoop), "costs more at every N (0.62x to 0.85x)");
}

TEST(Conditional, TheWhileNodeIsEvenAtEveryN) {
  const LoopFigures f = figures_with(kNs, {1.05, 0.95, 1.0, 1.0}, kGraphLoop);
  EXPECT_EQ(versus_word(f, kGraphLoop), "even");
  EXPECT_TRUE(has(versus_text(f, kGraphLoop), "within 10% at every N"));
}

TEST(Conditional, TheWhileNodeWinsFromSomeNOn) {
  // Its fixed cost loses at short loops; its per-iteration cost wins at long ones.
  const LoopFigures f = figures_with(kNs, {0.5, 1.0, 1.5, 2.0}, kKernelLoop);
  EXPECT_EQ(versus_word(f, kKernelLoop), "wins_from");
  EXPECT_EQ(versus_text(f, kKernelLoop), "wins from N = 1000 on (1.50x to 2.00x)");
}

TEST(Conditional, TheWhileNodeCostsMoreFromSomeNOn) {
  const LoopFigures f = figures_with(kNs, {1.5, 1.0, 0.8, 0.7}, kUnrolled);
  EXPECT_EQ(versus_word(f, kUnrolled), "costs_more_from");
  EXPECT_EQ(versus_text(f, kUnrolled), "costs more from N = 1000 on (0.70x to 0.80x)");
}

TEST(Conditional, AMixedPatternSaysWhereEachHappened) {
  const LoopFigures f = figures_with(kNs, {1.5, 0.5, 1.5, 1.0}, kGraphLoop);
  EXPECT_EQ(versus_word(f, kGraphLoop), "mixed");
  EXPECT_EQ(versus_text(f, kGraphLoop), "mixed: wins at N = 10, 1000; costs more at N = 100; within 10% at N = 10000 "
                                        "(0.50x to 1.50x)");
  // A win before a loss is no "from N on", even where the last ones all win.
  EXPECT_EQ(versus_word(figures_with(kNs, {1.5, 0.5, 1.5, 2.0}, kGraphLoop), kGraphLoop), "mixed");
}

TEST(Conditional, AnUnrolledGraphNeverBuiltIsNotMeasured) {
  LoopFigures f = figures_with(kNs, {1.0, 1.0, 1.0, 1.0});
  for (LoopPoint& point : f.points) point.unrolled_measured = false;
  EXPECT_EQ(versus_word(f, kUnrolled), "not_measured");
  EXPECT_TRUE(has(versus_text(f, kUnrolled), "not measured"));
  EXPECT_EQ(loop_fit(f, kUnrolled).points, 0);
  // Only the Ns where it was built count.
  f.points[0].unrolled_measured = true;
  f.points[0].variant[kUnrolled] = at(10.0);
  EXPECT_EQ(versus_word(f, kUnrolled), "wins");
}

TEST(Conditional, ThePerIterationCostIsTheFitsSlope) {
  LoopFigures f = figures_with(kNs, {1.0, 1.0, 1.0, 1.0});
  for (LoopPoint& point : f.points) point.variant[kWhileNode] = at((5.0 + 1.5 * point.iterations) / 1000.0);
  const LineFit fit = loop_fit(f, kWhileNode);
  EXPECT_NEAR(fit.per_op_us, 1.5, 1e-9);
  EXPECT_NEAR(fit.fixed_us, 5.0, 1e-6);
  EXPECT_DOUBLE_EQ(per_iteration_us(at(3.0), 1000), 3.0);
}

SwitchFigures switch_with(double device_ms, double host_ms) {
  SwitchFigures s;
  s.measured = true;
  s.requests = 200;
  s.device_chosen = at(device_ms);
  s.host_chosen = at(host_ms);
  s.per_bucket = {25, 25, 50, 100};
  return s;
}

TEST(Conditional, TheSwitchNodeWins) {
  const SwitchFigures s = switch_with(2.0, 6.4);
  EXPECT_EQ(switch_word(s), "wins");
  EXPECT_EQ(switch_text(s), "the SWITCH node wins, with no host round trip: 10.0 µs per request against 32.0 µs when "
                            "the host reads the size back and launches the bucket's graph (3.20x)");
}

TEST(Conditional, TheSwitchNodeCostsMore) {
  const SwitchFigures s = switch_with(4.0, 2.0);
  EXPECT_EQ(switch_word(s), "costs_more");
  EXPECT_TRUE(has(switch_text(s), "the SWITCH node costs more than the host's choice"));
}

TEST(Conditional, TheSwitchNodeDoesNotPayOff) {
  const SwitchFigures s = switch_with(4.0, 4.2);
  EXPECT_EQ(switch_word(s), "even");
  EXPECT_TRUE(has(switch_text(s), "does not pay off here"));
}

TEST(Conditional, TheSwitchPartNotRun) {
  EXPECT_EQ(switch_word(SwitchFigures{}), "not_run");
  EXPECT_TRUE(has(switch_text(SwitchFigures{}), "--cond-requests 0"));
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
  for (const int count : per_bucket) EXPECT_GT(count, 0);  // every bucket serves some
}

TEST(Conditional, ANodeTypeTheDriverLacksIsNamed) {
  const ConditionalConfig config;
  EXPECT_EQ(unsupported_reason(config, 13000, 13000), "");
  EXPECT_EQ(unsupported_reason(config, 12020, 13000), "WHILE nodes need CUDA 12.3 or newer: the driver supports 12.2");
  EXPECT_TRUE(has(unsupported_reason(config, 12060, 13000), "SWITCH nodes need CUDA 12.8 or newer: the driver "
                                                            "supports 12.6 (--cond-requests 0"));
  ConditionalConfig one_request;
  one_request.requests = 1;
  EXPECT_NE(unsupported_reason(one_request, 12060, 13000), "");
  ConditionalConfig no_switch;
  no_switch.requests = 0;
  EXPECT_EQ(unsupported_reason(no_switch, 12060, 13000), "");
  EXPECT_TRUE(has(unsupported_reason(config, 13000, 12020), "the runtime is 12.2"));
}

TEST(Conditional, TheEstimateGrowsWithTheLoopsAndRounds) {
  ConditionalConfig config;
  const double base = conditional_seconds(config, {2, 10}, 1e-6);
  EXPECT_GT(base, 0.0);
  EXPECT_LT(base, 30.0);  // the defaults stay short
  EXPECT_GT(conditional_seconds(config, {2, 20}, 1e-6), base);
  config.iterations.push_back(100000);
  EXPECT_GT(conditional_seconds(config, {2, 10}, 1e-6), 5.0 * base);
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

TEST(Conditional, TheResultAndItsJsonHoldEveryFigure) {
  const ConditionalCosts costs = made_up_costs();
  const ConditionalConfig config = small_config();
  CommonOptions options;
  const StageResult result = conditional_result(DeviceInfo{}, options, config, costs);
  EXPECT_TRUE(result.verification.passed);
  // 2 bodies x 2 N x 5 variants, less one unrolled, and the two SWITCH runs.
  EXPECT_EQ(result.measurements.size(), 2u * 2u * 5u - 1u + 2u);
  EXPECT_TRUE(result.bounds.contains("gemm_while_node_us_per_iteration"));
  const nlohmann::json doc = conditional_json(result, config, costs);
  EXPECT_EQ(doc["subcommand"], "conditional");
  const nlohmann::json& section = doc["conditional"];
  EXPECT_EQ(section["iterations"], nlohmann::json({10, 100}));
  EXPECT_EQ(section["counter_checks"], 24);
  EXPECT_EQ(section["loops"]["empty"]["while_node_versus"]["host_decided"], "wins");
  EXPECT_EQ(section["loops"]["gemm"]["while_node_versus"]["kernel_loop"], "wins");
  EXPECT_FALSE(section["loops"]["gemm"]["points"][1].contains("unrolled_ms"));
  EXPECT_TRUE(section["loops"]["gemm"]["points"][0].contains("unrolled_instantiate_ms"));
  EXPECT_DOUBLE_EQ(section["loops"]["empty"]["points"][1]["host_decided_us_per_iteration"].get<double>(), 18.0);
  EXPECT_EQ(section["switch"]["verdict"], "wins");
  EXPECT_EQ(section["switch"]["per_bucket"], nlohmann::json({25, 25, 50, 100}));
  EXPECT_FALSE(section.contains("failure"));
}

TEST(Conditional, AWrongCounterOrOutputFailsTheVerdict) {
  ConditionalCosts costs = made_up_costs();
  costs.checked = false;
  costs.failure = "gemm body, N = 10, while_node: the counter reads 11 after a loop of 10";
  CommonOptions options;
  const StageResult counted = conditional_result(DeviceInfo{}, options, small_config(), costs);
  EXPECT_FALSE(counted.verification.passed);
  EXPECT_TRUE(has(counted.verification.method, "the counter reads 11"));
  std::ostringstream out;
  print_conditional(out, counted, options, small_config(), costs);
  EXPECT_TRUE(has(out.str(), "counter WRONG: gemm body, N = 10, while_node"));
  EXPECT_EQ(conditional_json(counted, small_config(), costs)["conditional"]["failure"], costs.failure);

  ConditionalCosts wrong_output = made_up_costs();
  wrong_output.gemm_checks[1].passed = false;
  wrong_output.gemm_checks[1].method = "gemm body, N = 100, unrolled: freivalds+sampled";
  const StageResult wrong = conditional_result(DeviceInfo{}, options, small_config(), wrong_output);
  EXPECT_FALSE(wrong.verification.passed);
  std::ostringstream wrong_out;
  print_conditional(wrong_out, wrong, options, small_config(), wrong_output);
  EXPECT_TRUE(has(wrong_out.str(), "output WRONG: gemm body, N = 100, unrolled"));
}

TEST(Conditional, TheScreenSaysWhereTheWhileNodeWinsAndWhereItCostsMore) {
  const ConditionalCosts costs = made_up_costs();
  CommonOptions options;
  const StageResult result = conditional_result(DeviceInfo{}, options, small_config(), costs);
  std::ostringstream out;
  print_conditional(out, result, options, small_config(), costs);
  const std::string text = out.str();
  EXPECT_TRUE(has(text, "vs the host deciding each iteration: wins at every N"));
  EXPECT_TRUE(has(text, "the SWITCH node wins"));
  EXPECT_TRUE(has(text, "unrolled up to N = 10"));
}

TEST(Conditional, AFitWhoseFixedPartFellBelowZeroShowsNoneAndSaysWhy) {
  ConditionalCosts costs = made_up_costs();
  // Ratios that shrink with N: every line meets N = 0 at or above zero.
  costs.loops[0].points[0].variant[kHostDecided] = at(0.02 * 9.0);
  costs.loops[1].points[0].variant[kKernelLoop] = at(0.02 * 5.0);
  costs.loops[1].points[1].variant[kKernelLoop] = at(0.2 * 4.0);
  CommonOptions options;
  std::ostringstream plain;
  print_conditional(plain, conditional_result(DeviceInfo{}, options, small_config(), costs), options, small_config(),
                    costs);
  EXPECT_FALSE(has(plain.str(), "crosses zero")) << plain.str();
  // The host loop of graph launches: 0.5 ms at N = 10, 20.4 ms at N = 100 (a line through -1.7 ms at N = 0).
  costs.loops[1].points[0].variant[kGraphLoop] = at(0.5);
  costs.loops[1].points[1].variant[kGraphLoop] = at(20.4);
  ASSERT_LT(loop_fit(costs.loops[1], kGraphLoop).fixed_us, 0.0);
  std::ostringstream out;
  print_conditional(out, conditional_result(DeviceInfo{}, options, small_config(), costs), options, small_config(),
                    costs);
  const std::string text = out.str();
  EXPECT_TRUE(has(text, "fixed us -: the fitted line crosses zero above N = 0")) << text;
  EXPECT_FALSE(has(text, "-1711")) << text;
  EXPECT_FALSE(has(text, "-1,711")) << text;
}

ConditionalConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm conditional", "test", own_workload_defaults());
  add_conditional_options(cli);
  if (!cli.parse(args)) throw std::logic_error("--help");
  return read_conditional_options(cli);
}

TEST(Conditional, OptionsAreParsedAndSorted) {
  const ConditionalConfig defaults = parse({});
  EXPECT_EQ(defaults.iterations, (std::vector<int>{10, 100, 1000, 10000}));
  EXPECT_EQ(defaults.buckets, (std::vector<int>{32, 64, 128, 256}));
  EXPECT_EQ(defaults.size, 64);
  EXPECT_EQ(defaults.requests, 200);
  const ConditionalConfig given =
      parse({"--cond-iterations", "50,5", "--cond-buckets", "64,16", "--cond-requests", "0", "--cond-size", "8"});
  EXPECT_EQ(given.iterations, (std::vector<int>{5, 50}));
  EXPECT_EQ(given.buckets, (std::vector<int>{16, 64}));
  EXPECT_EQ(given.requests, 0);
  EXPECT_EQ(given.size, 8);
}

TEST(Conditional, BadOptionsAreUsageErrors) {
  EXPECT_THROW(parse({"--cond-iterations", "0"}), UsageError);
  EXPECT_THROW(parse({"--cond-iterations", "10,10"}), UsageError);
  EXPECT_THROW(parse({"--cond-iterations", "100001"}), UsageError);
  EXPECT_THROW(parse({"--cond-buckets", ""}), UsageError);
  EXPECT_THROW(parse({"--cond-buckets", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}), UsageError);
  EXPECT_THROW(parse({"--cond-size", "0"}), UsageError);
  EXPECT_THROW(parse({"--cond-requests", "-1"}), UsageError);
}

}  // namespace
}  // namespace csg::graphs
