// Stage 03's experiments on stream priorities and contention, without a GPU: every
// verdict about stream priorities and shared-memory contention follows from
// made-up figures, branch by branch and at the thresholds; the report prints
// its sentences and carries them, and every figure, in the JSON; a result
// whose check failed fails the run; --priority-samples takes a count in range
// and the rounds and seed come from the common flags; the estimates count
// what runs; a bad config is refused before any CUDA call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "03_stream_pool_gemm/lab/competition.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"

namespace csg::pool {
namespace cpu_stream_extras {

// A wide spread: the p95 is 1.5 x the median.
Summary ms(double median) { return testing::ms(median, 0.9, 1.5); }

// A verified run on an H200-like GPU: the default priority's median latency
// `same_ms`, the greatest priority's `high_ms`, the flood 95% busy both ways.
PriorityResult priorities(double same_ms, double high_ms) {
  PriorityResult r;
  r.device = {.least_priority = 0, .greatest_priority = -5, .sm_count = 132, .flood_blocks_per_sm = 8,
              .hardware_queues = 8};
  r.flood_blocks_per_kernel = 132 * 8 * 4;
  r.idle.latency = ms(0.004);
  r.same_priority.latency = ms(same_ms);
  r.same_priority.flood_busy = 0.95;
  r.same_priority.flood_blocks_per_ms = 50000;
  r.high_priority.short_priority = -5;
  r.high_priority.latency = ms(high_ms);
  r.high_priority.flood_busy = 0.95;
  r.high_priority.flood_blocks_per_ms = 50000;
  r.verified = true;
  return r;
}

// Small kernels `small_together_ms` and large ones `large_together_ms` on two
// streams, each 0.1 ms alone; the large kernel one block per SM.
ContentionResult contention(double small_together_ms, double large_together_ms) {
  ContentionResult r;
  r.sm_count = 132;
  r.blocks = 132;
  r.shared_per_sm_bytes = 233472;
  r.shared_per_block_max_bytes = 232448;
  r.small.shared_bytes = 0;
  r.small.blocks_per_sm = 16;
  r.small.alone = ms(0.1);
  r.small.together = ms(small_together_ms);
  r.large.shared_bytes = 120832;
  r.large.blocks_per_sm = 1;
  r.large.alone = ms(0.1);
  r.large.together = ms(large_together_ms);
  r.verified = true;
  return r;
}

std::string priority_text(const PriorityResult& r) { return priorities_verdict(r).sentence; }
std::string contention_text(const ContentionResult& r) { return contention_verdict(r).sentence; }

Report priorities_report(const PriorityResult& r) {
  return testing::report_of("03_stream_pool_gemm", "priorities", report_priorities, r.config, r);
}

Report contention_report(const ContentionResult& r) {
  return testing::report_of("03_stream_pool_gemm", "contention", report_contention, r.config, r);
}

// A result whose check failed fails the run: the verification line names
// `printed_failure`, the console says nothing of `not_printed`; the JSON's
// section says verified false, with the failure, under `key`.
void expect_shown_as_failed(const Report& report, const std::string& key, const std::string& failure,
                            const std::string& printed_failure, const std::string& not_printed) {
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("verification failed: " + printed_failure), Not(HasSubstr(not_printed))));
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("verification").at("passed"), false);
  EXPECT_EQ(doc.at(key).at("verified"), false);
  EXPECT_EQ(doc.at(key).at("failure"), failure);
}

TEST(StreamPriorities, GreatestPriorityCuttingTheLatencyIsTheClaimHolding) {
  const PriorityResult r = priorities(0.160, 0.012);
  EXPECT_EQ(judge_priorities(r), PriorityVerdict::helps);
  EXPECT_NEAR(priority_speedup(r), 0.160 / 0.012, 1e-9);
  const Verdict verdict = priorities_verdict(r);
  EXPECT_EQ(verdict.id, "priorities.latency");
  EXPECT_EQ(verdict.outcome, "helps");
  EXPECT_NEAR(verdict.figures.at("median_latency_speedup").get<double>(), 0.160 / 0.012, 1e-9);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("priority_within").get<double>(), kPriorityWithin);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("flood_full").get<double>(), kFloodFull);
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("priority cut the short kernels' median latency 13.3x"),
                                      HasSubstr("median 160.0 us at the default priority, 12.0 us at the greatest"),
                                      HasSubstr("idle GPU 4.0 us"), HasSubstr("the article's claim holds here"),
                                      Not(HasSubstr("does not hold"))));
  const std::optional<Verdict> cost = flood_cost_verdict(r);
  ASSERT_TRUE(cost.has_value());
  EXPECT_EQ(cost->id, "priorities.flood_cost");
  EXPECT_EQ(cost->outcome, "same");
  EXPECT_THAT(cost->sentence, HasSubstr("priority cost the long kernels nothing measurable (within 3%)"));
}

TEST(StreamPriorities, NoDifferenceOrWorseSaysTheClaimDoesNotHold) {
  const PriorityResult same = priorities(0.100, 0.095);
  EXPECT_EQ(judge_priorities(same), PriorityVerdict::no_difference);
  EXPECT_EQ(priorities_verdict(same).outcome, "no_difference");
  EXPECT_THAT(priority_text(same),
              AllOf(HasSubstr("priority made no difference to the short kernels' latency within 10%"),
                    HasSubstr("the article's claim does not hold\n  on this GPU at this size"),
                    Not(HasSubstr("claim holds here"))));

  const PriorityResult worse = priorities(0.050, 0.080);
  EXPECT_EQ(judge_priorities(worse), PriorityVerdict::worse);
  EXPECT_EQ(priorities_verdict(worse).outcome, "worse");
  EXPECT_THAT(priority_text(worse),
              AllOf(HasSubstr("priority made the short kernels' latency worse, 1.60x"), HasSubstr("does not hold")));
}

TEST(StreamPriorities, TenPercentEitherWayIsNoDifference) {
  EXPECT_EQ(judge_priorities(priorities(0.111, 0.100)), PriorityVerdict::helps);
  EXPECT_EQ(judge_priorities(priorities(0.109, 0.100)), PriorityVerdict::no_difference);
  EXPECT_EQ(judge_priorities(priorities(0.100, 0.109)), PriorityVerdict::no_difference);
  EXPECT_EQ(judge_priorities(priorities(0.100, 0.111)), PriorityVerdict::worse);
}

TEST(StreamPriorities, RunsThatCantTestPrioritiesSaySoInsteadOfConcluding) {
  PriorityResult gaps = priorities(0.160, 0.012);
  gaps.flood_gaps = 3;
  EXPECT_EQ(judge_priorities(gaps), PriorityVerdict::flood_gaps);
  EXPECT_THAT(priority_text(gaps), HasSubstr("a flood stream ran dry 3 times before the short kernels were done"));
  EXPECT_FALSE(flood_cost_verdict(gaps).has_value()) << "no comparison, no cost";
  gaps.flood_gaps = 1;
  EXPECT_THAT(priority_text(gaps), HasSubstr("ran dry 1 time before"));
  EXPECT_THAT(priority_text(gaps), HasSubstr("fewer or shorter kernels than\n  the default --flood-depth and --flood-waves"))
      << "a small flood the user asked for runs dry too";

  PriorityResult one_level = priorities(0.160, 0.012);
  one_level.device.greatest_priority = 0;
  EXPECT_EQ(judge_priorities(one_level), PriorityVerdict::one_level);
  EXPECT_THAT(priority_text(one_level), HasSubstr("a single stream priority ([0, 0])"));

  PriorityResult not_full = priorities(0.160, 0.012);
  not_full.same_priority.flood_busy = 0.5;
  EXPECT_EQ(judge_priorities(not_full), PriorityVerdict::gpu_not_full);
  EXPECT_EQ(priorities_verdict(not_full).outcome, "gpu_not_full");
  EXPECT_THAT(priority_text(not_full),
              HasSubstr("the flood kept only 50.0% of the GPU's block slots busy (below 75%)"));
  for (const std::string& text : {priority_text(gaps), priority_text(one_level), priority_text(not_full)}) {
    EXPECT_THAT(text, Not(HasSubstr("claim holds")));
  }
  not_full.same_priority.flood_busy = kFloodFull;
  EXPECT_EQ(judge_priorities(not_full), PriorityVerdict::helps) << "75% busy is full enough";
}

TEST(StreamPriorities, AFailedCheckWinsOverEveryOtherBranchAndFailsTheRun) {
  PriorityResult r = priorities(0.160, 0.012);
  r.flood_gaps = 2;
  r.device.greatest_priority = 0;
  r.verified = false;
  r.failure = "short kernel 7, thread 3: expected 12, got 4294967295";
  EXPECT_EQ(judge_priorities(r), PriorityVerdict::not_verified);
  EXPECT_THAT(priority_text(r), HasSubstr("no conclusion about priorities: a check failed (short kernel 7"));
  const Report report = priorities_report(r);
  expect_shown_as_failed(report, "stream_priorities", r.failure, "short kernel 7, thread 3", "runs verified");
  EXPECT_EQ(report.document().at("stream_priorities").at("verdict"), "not_verified");
}

struct FloodCostCase {
  double high_blocks_per_ms;
  std::string outcome, words;
};

class StreamPriorityFloodCost : public ::testing::TestWithParam<FloodCostCase> {};

TEST_P(StreamPriorityFloodCost, IsNamedFromItsThroughputBothWays) {
  PriorityResult r = priorities(0.160, 0.012);
  r.high_priority.flood_blocks_per_ms = GetParam().high_blocks_per_ms;
  const std::optional<Verdict> cost = flood_cost_verdict(r);
  ASSERT_TRUE(cost.has_value());
  EXPECT_EQ(cost->outcome, GetParam().outcome);
  EXPECT_THAT(cost->sentence, HasSubstr(GetParam().words));
  EXPECT_DOUBLE_EQ(cost->figures.at("high_priority_blocks_per_ms").get<double>(), GetParam().high_blocks_per_ms);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, StreamPriorityFloodCost,
    ::testing::Values(FloodCostCase{45000, "slower", "priority cost the long kernels 10% of their throughput"},
                      FloodCostCase{49000, "same", "nothing measurable (within 3%)"},  // 2%: within the common 3%
                      FloodCostCase{55000, "faster", "the flood even ran 10% faster beside the high-priority stream"},
                      FloodCostCase{0, "not_measured", "no figure to compare"}),
    [](const ::testing::TestParamInfo<FloodCostCase>& param_info) { return param_info.param.outcome; });

TEST(StreamPriorities, PrintsEveryRunItsVerdictsAndTheVerification) {
  const Report report = priorities_report(priorities(0.160, 0.012));
  EXPECT_TRUE(report.passed());
  const std::string text = report.console();
  EXPECT_THAT(text, AllOf(HasSubstr("median us"), HasSubstr("p95 us"), HasSubstr("flood busy"),
                          HasSubstr("alone, idle GPU"), HasSubstr("beside the flood, default priority"),
                          HasSubstr("beside the flood, greatest priority"),
                          HasSubstr("from 0 (least, the default) to -5 (greatest)"), HasSubstr("132 SMs x 8 blocks"),
                          HasSubstr("all 36 runs verified (every short kernel's output and every flood block's count)"),
                          HasSubstr("priority cut"), Not(HasSubstr("verification failed"))));
  EXPECT_THAT(text, Not(HasSubstr("CUDA_DEVICE_MAX_CONNECTIONS"))) << "8 queues are enough for 6 streams";
  ASSERT_EQ(report.verdicts().size(), 2U);
  EXPECT_EQ(report.verdicts()[0].id, "priorities.latency");
  EXPECT_EQ(report.verdicts()[1].id, "priorities.flood_cost");

  PriorityResult shared_queues = priorities(0.160, 0.012);
  shared_queues.device.hardware_queues = 4;
  EXPECT_THAT(priorities_report(shared_queues).console(),
              HasSubstr("note: CUDA_DEVICE_MAX_CONNECTIONS=4 gives fewer hardware queues than the 6 streams"));
}

TEST(StreamPriorities, JsonHoldsTheFiguresAndTheConclusion) {
  const PriorityResult r = priorities(0.160, 0.012);
  const Report report = priorities_report(r);
  const nlohmann::json doc = report.document().at("stream_priorities");
  EXPECT_EQ(doc.at("name"), "stream_priorities");
  EXPECT_EQ(doc.at("priority_range").at("least"), 0);
  EXPECT_EQ(doc.at("priority_range").at("greatest"), -5);
  EXPECT_EQ(doc.at("sm_count"), 132);
  EXPECT_EQ(doc.at("flood_blocks_per_sm"), 8);
  EXPECT_EQ(doc.at("flood_blocks_per_kernel"), 132 * 8 * 4);
  EXPECT_EQ(doc.at("cuda_device_max_connections"), 8);
  const auto& modes = doc.at("modes");
  EXPECT_DOUBLE_EQ(modes.at("same_priority").at("latency").at("median_ms").get<double>(), 0.160);
  EXPECT_DOUBLE_EQ(modes.at("high_priority").at("latency").at("median_ms").get<double>(), 0.012);
  EXPECT_DOUBLE_EQ(modes.at("high_priority").at("latency").at("p95_ms").get<double>(), 0.012 * 1.5);
  EXPECT_EQ(modes.at("high_priority").at("short_priority"), -5);
  EXPECT_EQ(modes.at("same_priority").at("short_priority"), 0);
  EXPECT_DOUBLE_EQ(modes.at("same_priority").at("flood_busy").get<double>(), 0.95);
  EXPECT_TRUE(modes.at("idle").at("flood_busy").is_null()) << "no flood when idle";
  EXPECT_EQ(modes.at("idle").at("latency").at("samples"), 3);
  EXPECT_NEAR(doc.at("median_latency_speedup").get<double>(), 0.160 / 0.012, 1e-9);
  EXPECT_EQ(doc.at("flood_covered"), true);
  EXPECT_EQ(doc.at("verified"), true);
  EXPECT_TRUE(doc.at("failure").is_null());
  EXPECT_EQ(doc.at("verdict"), "helps");
  EXPECT_EQ(doc.at("conclusion"), report.verdicts()[0].sentence + "\n  " + report.verdicts()[1].sentence);
  for (const char* field : {"samples", "flood_streams", "flood_waves", "flood_block_us", "flood_depth", "short_blocks",
                            "short_threads", "short_steps", "gap_us", "warmup", "repeats"}) {
    EXPECT_TRUE(doc.at("config").contains(field)) << field;
  }
  EXPECT_EQ(report.document().at("verification").at("method"),
            "every short kernel's output and every flood block's count");
}

TEST(SharedMemoryContention, ConcurrencyIsTwiceAloneOverTogether) {
  const ContentionResult r = contention(0.104, 0.208);
  EXPECT_NEAR(concurrency(r.small), 2.0 * 0.1 / 0.104, 1e-9);
  EXPECT_NEAR(concurrency(r.large), 2.0 * 0.1 / 0.208, 1e-9);
  EXPECT_EQ(concurrency(ContentionVariant{}), 0.0) << "not measured";
  EXPECT_EQ(classify_concurrency(1.7), Overlap::side_by_side);
  EXPECT_EQ(classify_concurrency(1.69), Overlap::partly);
  EXPECT_EQ(classify_concurrency(1.31), Overlap::partly);
  EXPECT_EQ(classify_concurrency(1.3), Overlap::serialised);
}

TEST(SharedMemoryContention, SmallSideBySideLargeQueuedIsTheClaimHolding) {
  const ContentionResult r = contention(0.104, 0.208);
  EXPECT_EQ(judge_contention(r), ContentionVerdict::holds);
  const Verdict verdict = contention_verdict(r);
  EXPECT_EQ(verdict.id, "contention.shared_memory");
  EXPECT_EQ(verdict.outcome, "holds");
  EXPECT_NEAR(verdict.figures.at("large_concurrency").get<double>(), 2.0 * 0.1 / 0.208, 1e-9);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("side_by_side").get<double>(), kSideBySide);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("serialised").get<double>(), kSerialised);
  EXPECT_THAT(verdict.sentence,
              AllOf(HasSubstr("with no shared memory the two streams' kernels ran side by side (concurrency 1.92"),
                    HasSubstr("with 118.0 KiB of shared memory per block only one block fits per SM (228.0 KiB per "
                              "SM)"),
                    HasSubstr("waited for the first (concurrency 0.96"), HasSubstr("The article's claim holds here.")));
}

struct ContentionCase {
  double small_together_ms, large_together_ms;
  int large_blocks_per_sm;
  std::string outcome, words;
};

class ContentionBranch : public ::testing::TestWithParam<ContentionCase> {};

// Says what it saw, and never that the claim holds.
TEST_P(ContentionBranch, SaysWhatItSaw) {
  ContentionResult r = contention(GetParam().small_together_ms, GetParam().large_together_ms);
  r.large.blocks_per_sm = GetParam().large_blocks_per_sm;
  const Verdict verdict = contention_verdict(r);
  EXPECT_EQ(verdict.outcome, GetParam().outcome);
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr(GetParam().words), Not(HasSubstr("claim holds here"))));
}

INSTANTIATE_TEST_SUITE_P(
    Branches, ContentionBranch,
    ::testing::Values(
        ContentionCase{0.104, 0.140, 1, "partly", "the kernels partly overlapped (concurrency 1.43"},
        ContentionCase{0.104, 0.110, 1, "not_seen", "they still ran side by side (concurrency 1.82"},
        ContentionCase{0.200, 0.208, 1, "no_concurrency", "even with no shared memory the two streams' kernels did not "
                                                          "run"},
        ContentionCase{0.104, 0.208, 2, "not_exclusive", "the large kernel still fits 2 blocks per SM"}),
    [](const ::testing::TestParamInfo<ContentionCase>& param_info) { return param_info.param.outcome; });

TEST(SharedMemoryContention, AFailedCheckFailsTheRunAndConcludesNothing) {
  ContentionResult r = contention(0.104, 0.208);
  r.verified = false;
  r.failure = "contention kernel 1, block 5: marker 4294967295, expected 6";
  EXPECT_EQ(judge_contention(r), ContentionVerdict::not_verified);
  EXPECT_THAT(contention_text(r), HasSubstr("no conclusion about contention: a check failed (contention kernel 1"));
  expect_shown_as_failed(contention_report(r), "shared_memory_contention", r.failure, "contention kernel 1, block 5",
                         "claim holds");
}

TEST(SharedMemoryContention, PrintsAndWritesEveryFigure) {
  const ContentionResult r = contention(0.104, 0.208);
  const Report report = contention_report(r);
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("shared memory per block"), HasSubstr("blocks per SM"), HasSubstr("alone us"),
                    HasSubstr("on two streams us"), HasSubstr("concurrency"),
                    HasSubstr("132 blocks (one per SM, 132 SMs)"), HasSubstr("118.0 KiB"),
                    HasSubstr("all 48 runs verified (every block's marker)")));
  const nlohmann::json doc = report.document().at("shared_memory_contention");
  EXPECT_EQ(doc.at("name"), "shared_memory_contention");
  EXPECT_EQ(doc.at("sm_count"), 132);
  EXPECT_EQ(doc.at("blocks_per_kernel"), 132);
  EXPECT_EQ(doc.at("shared_per_sm_bytes"), 233472);
  EXPECT_EQ(doc.at("shared_per_block_max_bytes"), 232448);
  const auto& large = doc.at("variants").at("large");
  EXPECT_EQ(large.at("shared_bytes"), 120832);
  EXPECT_EQ(large.at("blocks_per_sm"), 1);
  EXPECT_DOUBLE_EQ(large.at("alone").at("median_ms").get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(large.at("together").at("p95_ms").get<double>(), 0.208 * 1.5);
  EXPECT_NEAR(large.at("concurrency").get<double>(), concurrency(r.large), 1e-12);
  EXPECT_EQ(doc.at("variants").at("small").at("blocks_per_sm"), 16);
  EXPECT_EQ(doc.at("verified"), true);
  EXPECT_TRUE(doc.at("failure").is_null());
  EXPECT_EQ(doc.at("verdict"), "holds");
  EXPECT_EQ(doc.at("conclusion"), contention_text(r));
}

// The priorities subcommand's options, as its StageCli has them.
PriorityConfig parse_priorities(const std::vector<std::string>& args) {
  CommonDefaults defaults;
  defaults.gemm_workload = false;
  StageCli cli("test_stage priorities", "test", defaults);
  add_priority_options(cli);
  std::optional<CommonOptions> options = cli.parse(args);
  if (!options) throw std::logic_error("--help in a test");
  return read_priority_options(cli, *options);
}

TEST(StreamPriorityOptions, SamplesRoundsAndSeedComeFromTheFlags) {
  const PriorityConfig defaults = parse_priorities({});
  EXPECT_EQ(defaults.samples, PriorityConfig{}.samples);
  EXPECT_EQ(defaults.plan.warmup, 2);
  EXPECT_EQ(defaults.plan.repeats, 10);
  EXPECT_EQ(defaults.seed, 1U);
  const PriorityConfig set = parse_priorities({"--priority-samples", "20", "--warmup", "0", "--repeats", "3", "--seed", "9"});
  EXPECT_EQ(set.samples, 20);
  EXPECT_EQ(set.plan.warmup, 0);
  EXPECT_EQ(set.plan.repeats, 3);
  EXPECT_EQ(set.seed, 9U);
  // The flood's streams and blocks are the experiment's own; its kernels'
  // length and queue are the user's, the experiment's by default.
  EXPECT_EQ(set.flood_streams, PriorityConfig{}.flood_streams);
  EXPECT_EQ(set.flood_block_us, PriorityConfig{}.flood_block_us);
  EXPECT_EQ(set.flood_waves, PriorityConfig{}.flood_waves);
  EXPECT_EQ(set.flood_depth, PriorityConfig{}.flood_depth);
  const PriorityConfig small = parse_priorities({"--flood-waves", "1", "--flood-depth", "2"});
  EXPECT_EQ(small.flood_waves, 1);
  EXPECT_EQ(small.flood_depth, 2);
  EXPECT_LT(priorities_seconds(small), priorities_seconds(defaults)) << "a smaller flood is a shorter estimate";
}

TEST(StreamPriorityOptions, ASampleCountOutOfRangeIsAUsageErrorNamingTheFlag) {
  auto refused = [](const std::vector<std::string>& args, const std::string& must_mention) {
    try {
      parse_priorities(args);
    } catch (const UsageError& error) {
      return ::testing::Value(error.what(), HasSubstr(must_mention)) ? ::testing::AssertionSuccess()
                                             : ::testing::AssertionFailure() << "message: " << error.what();
    }
    return ::testing::AssertionFailure() << "accepted";
  };
  EXPECT_TRUE(refused({"--priority-samples", "0"}, "--priority-samples"));
  EXPECT_TRUE(refused({"--priority-samples", "100001"}, "--priority-samples"));
  EXPECT_TRUE(refused({"--priority-samples", "many"}, "--priority-samples"));
  EXPECT_TRUE(refused({"--priority-samples", "5", "--priority-samples", "6"}, "--priority-samples is given twice"));
  EXPECT_TRUE(refused({"--flood-waves", "0"}, "--flood-waves"));
  EXPECT_TRUE(refused({"--flood-waves", "65"}, "--flood-waves"));
  EXPECT_TRUE(refused({"--flood-depth", "1"}, "--flood-depth")) << "the stop must find a queued flood kernel";
  EXPECT_TRUE(refused({"--flood-depth", "65"}, "--flood-depth"));
  EXPECT_TRUE(refused({"--priorities", "on"}, "--priorities")) << "one experiment per subcommand: nothing to turn on";
}

TEST(StreamExtrasEstimate, EachGrowsWithItsOwnWork) {
  const PriorityConfig priorities;
  const ContentionConfig contention;
  EXPECT_GT(priorities_seconds(priorities), kExperimentSetupSeconds);
  EXPECT_GT(contention_seconds(contention), kExperimentSetupSeconds);
  // The defaults are meant to take about a second in all.
  EXPECT_LT(priorities_seconds(priorities) + contention_seconds(contention), 2.0);
  // The short kernels, one at a time, are nearly all of the priorities' time.
  PriorityConfig more = priorities;
  more.samples *= 10;
  EXPECT_GT(priorities_seconds(more), 5.0 * priorities_seconds(priorities));
  // Every round counts, warm-up or timed.
  PriorityConfig fewer_rounds = priorities;
  fewer_rounds.plan = {0, 1};
  EXPECT_NEAR(priorities_seconds(fewer_rounds) - kExperimentSetupSeconds,
              (priorities_seconds(priorities) - kExperimentSetupSeconds) / 12.0, 1e-12);
  ContentionConfig longer = contention;
  longer.plan.repeats *= 2;
  EXPECT_GT(contention_seconds(longer), contention_seconds(contention));
  longer = contention;
  longer.kernel_us *= 10;
  EXPECT_GT(contention_seconds(longer), 2.0 * contention_seconds(contention) - kExperimentSetupSeconds);
}

TEST(StreamExtrasConfigs, BadSizesAreRefusedBeforeAnyCudaCall) {
  // No GPU needed: the checks come first.
  PriorityConfig no_samples;
  no_samples.samples = 0;
  EXPECT_THROW(measure_priorities(no_samples), std::invalid_argument);
  PriorityConfig shallow;
  shallow.flood_depth = 1;
  EXPECT_THROW(measure_priorities(shallow), std::invalid_argument);
  PriorityConfig negative_gap;
  negative_gap.gap_us = -1;
  EXPECT_THROW(measure_priorities(negative_gap), std::invalid_argument);
  ContentionConfig no_time;
  no_time.kernel_us = 0;
  EXPECT_THROW(measure_contention(no_time), std::invalid_argument);
  ContentionConfig no_repeats;
  no_repeats.plan.repeats = 0;
  EXPECT_THROW(measure_contention(no_repeats), std::invalid_argument);
}

}  // namespace cpu_stream_extras
}  // namespace csg::pool
