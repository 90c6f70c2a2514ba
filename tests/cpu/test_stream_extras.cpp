// Stage 03's experiments on stream priorities and contention, without a GPU: every
// sentence about stream priorities and shared-memory contention follows from
// made-up figures, branch by branch and at the thresholds; the JSON carries
// every figure and the conclusion; a result whose check failed prints as a
// failure; --priority-samples takes a count in range and the rounds and seed
// come from the common flags; the estimates count what runs; a bad config is
// refused before any CUDA call.
#include <gtest/gtest.h>

#include <sstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "03_stream_pool_gemm/lab/priorities/priorities.hpp"
#include "03_stream_pool_gemm/lab/priorities/priorities_report.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"

namespace csg::pool {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A wide spread: the p95 is 1.5 x the median.
Summary ms(double median) { return testing::ms(median, 0.9, 1.5); }

// A verified run on an H200-like GPU: the default priority's median latency
// `same_ms`, the greatest priority's `high_ms`, the flood 95% busy both ways.
PriorityResult priorities(double same_ms, double high_ms) {
  PriorityResult r;
  r.least_priority = 0;
  r.greatest_priority = -5;
  r.sm_count = 132;
  r.flood_blocks_per_sm = 8;
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

// A result whose check failed shows as a failure wherever it goes: the
// printed section says "VERIFICATION FAILED: " and `printed_failure`, and
// nothing of `not_printed`; the JSON says verified false, with the failure.
template <class Result>
void expect_shown_as_failed(const Result& r, void (*print)(std::ostream&, const Result&),
                            nlohmann::json (*to_json)(const Result&), const std::string& printed_failure,
                            const std::string& not_printed) {
  std::ostringstream out;
  print(out, r);
  EXPECT_TRUE(has(out.str(), "VERIFICATION FAILED: " + printed_failure)) << out.str();
  EXPECT_FALSE(has(out.str(), not_printed)) << out.str();
  const nlohmann::json doc = to_json(r);
  EXPECT_EQ(doc.at("verified"), false);
  EXPECT_EQ(doc.at("failure"), r.failure);
}

TEST(StreamPriorities, GreatestPriorityCuttingTheLatencyIsTheClaimHolding) {
  const PriorityResult r = priorities(0.160, 0.012);
  EXPECT_EQ(judge_priorities(r), PriorityVerdict::helps);
  EXPECT_NEAR(priority_speedup(r), 0.160 / 0.012, 1e-9);
  const std::string text = priority_conclusion(r);
  for (const char* part : {"priority cut the short kernels' median latency 13.3x",
                           "median 160.0 us at the default priority, 12.0 us at the greatest", "idle GPU 4.0 us",
                           "the article's claim holds here",
                           "priority cost the long kernels nothing measurable (within 3%)"}) {
    EXPECT_TRUE(has(text, part)) << part << " missing from:\n" << text;
  }
  EXPECT_FALSE(has(text, "does not hold")) << text;
}

TEST(StreamPriorities, NoDifferenceOrWorseSaysTheClaimDoesNotHold) {
  const PriorityResult same = priorities(0.100, 0.095);
  EXPECT_EQ(judge_priorities(same), PriorityVerdict::no_difference);
  const std::string same_text = priority_conclusion(same);
  EXPECT_TRUE(has(same_text, "priority made no difference to the short kernels' latency within 10%")) << same_text;
  EXPECT_TRUE(has(same_text, "the article's claim does not hold\n  on this GPU at this size")) << same_text;
  EXPECT_FALSE(has(same_text, "claim holds here")) << same_text;

  const PriorityResult worse = priorities(0.050, 0.080);
  EXPECT_EQ(judge_priorities(worse), PriorityVerdict::worse);
  const std::string worse_text = priority_conclusion(worse);
  EXPECT_TRUE(has(worse_text, "priority made the short kernels' latency worse, 1.60x")) << worse_text;
  EXPECT_TRUE(has(worse_text, "does not hold")) << worse_text;
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
  EXPECT_TRUE(has(priority_conclusion(gaps), "a flood stream ran dry 3 times before the short kernels were done"));
  gaps.flood_gaps = 1;
  EXPECT_TRUE(has(priority_conclusion(gaps), "ran dry 1 time before"));

  PriorityResult one_level = priorities(0.160, 0.012);
  one_level.greatest_priority = 0;
  EXPECT_EQ(judge_priorities(one_level), PriorityVerdict::one_level);
  EXPECT_TRUE(has(priority_conclusion(one_level), "a single stream priority ([0, 0])"));

  PriorityResult not_full = priorities(0.160, 0.012);
  not_full.same_priority.flood_busy = 0.5;
  EXPECT_EQ(judge_priorities(not_full), PriorityVerdict::gpu_not_full);
  const std::string not_full_text = priority_conclusion(not_full);
  EXPECT_TRUE(has(not_full_text, "the flood kept only 50.0% of the GPU's block slots busy (below 75%)"))
      << not_full_text;
  for (const std::string& text : {priority_conclusion(gaps), priority_conclusion(one_level), not_full_text}) {
    EXPECT_FALSE(has(text, "claim holds")) << text;
  }
  not_full.same_priority.flood_busy = kFloodFull;
  EXPECT_EQ(judge_priorities(not_full), PriorityVerdict::helps) << "75% busy is full enough";
}

TEST(StreamPriorities, AFailedCheckWinsOverEveryOtherBranchAndPrintsAsAFailure) {
  PriorityResult r = priorities(0.160, 0.012);
  r.flood_gaps = 2;
  r.greatest_priority = 0;
  r.verified = false;
  r.failure = "short kernel 7, thread 3: expected 12, got 4294967295";
  EXPECT_EQ(judge_priorities(r), PriorityVerdict::not_verified);
  EXPECT_TRUE(has(priority_conclusion(r), "no conclusion about priorities: a check failed (short kernel 7"));
  expect_shown_as_failed(r, print_priorities, priorities_json, "short kernel 7, thread 3", "verified: every");
  EXPECT_EQ(priorities_json(r).at("verdict"), "not_verified");
}

TEST(StreamPriorities, TheFloodsCostIsNamedFromItsThroughputBothWays) {
  PriorityResult r = priorities(0.160, 0.012);
  r.high_priority.flood_blocks_per_ms = 45000;  // 10% fewer blocks per ms beside the high-priority stream
  const std::string text = priority_conclusion(r);
  EXPECT_TRUE(has(text, "the flood ran 45000 blocks/ms beside the high-priority stream and 50000 beside the default"))
      << text;
  EXPECT_TRUE(has(text, "priority cost the long kernels 10% of their throughput")) << text;
  r.high_priority.flood_blocks_per_ms = 49000;  // 2%: within the common 3%
  EXPECT_TRUE(has(priority_conclusion(r), "nothing measurable (within 3%)"));
  r.high_priority.flood_blocks_per_ms = 55000;
  EXPECT_TRUE(has(priority_conclusion(r), "the flood even ran 10% faster beside the high-priority stream"));
}

TEST(StreamPriorities, PrintsEveryRunAndTheVerification) {
  std::ostringstream out;
  print_priorities(out, priorities(0.160, 0.012));
  const std::string text = out.str();
  for (const char* part : {"median us", "p95 us", "flood busy", "alone, idle GPU", "beside the flood, default priority",
                           "beside the flood, greatest priority", "from 0 (least, the default) to -5 (greatest)",
                           "132 SMs x 8 blocks", "verified: every short kernel's output and every flood block's count",
                           "priority cut"}) {
    EXPECT_TRUE(has(text, part)) << part << " missing from:\n" << text;
  }
  EXPECT_FALSE(has(text, "VERIFICATION FAILED")) << text;
  EXPECT_FALSE(has(text, "CUDA_DEVICE_MAX_CONNECTIONS")) << "8 queues are enough for 6 streams:\n" << text;

  PriorityResult shared_queues = priorities(0.160, 0.012);
  shared_queues.hardware_queues = 4;
  std::ostringstream noted;
  print_priorities(noted, shared_queues);
  EXPECT_TRUE(has(noted.str(), "note: CUDA_DEVICE_MAX_CONNECTIONS=4 gives fewer hardware queues than the 6 streams"))
      << noted.str();
}

TEST(StreamPriorities, JsonHoldsTheFiguresAndTheConclusion) {
  const PriorityResult r = priorities(0.160, 0.012);
  const nlohmann::json doc = priorities_json(r);
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
  EXPECT_EQ(doc.at("conclusion"), priority_conclusion(r));
  for (const char* field : {"samples", "flood_streams", "flood_waves", "flood_block_us", "flood_depth", "short_blocks",
                            "short_threads", "short_steps", "gap_us", "warmup", "repeats"}) {
    EXPECT_TRUE(doc.at("config").contains(field)) << field;
  }
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
  const std::string text = contention_conclusion(r);
  EXPECT_TRUE(has(text, "with no shared memory the two streams' kernels ran side by side (concurrency 1.92")) << text;
  EXPECT_TRUE(has(text, "with 118.0 KiB of shared memory per block only one block fits per SM (228.0 KiB per SM)"))
      << text;
  EXPECT_TRUE(has(text, "waited for the first (concurrency 0.96")) << text;
  EXPECT_TRUE(has(text, "The article's claim holds here.")) << text;
}

TEST(SharedMemoryContention, EveryOtherBranchSaysWhatItSaw) {
  const ContentionResult partly = contention(0.104, 0.140);
  EXPECT_EQ(judge_contention(partly), ContentionVerdict::partly);
  EXPECT_TRUE(has(contention_conclusion(partly), "the kernels partly overlapped (concurrency 1.43"));
  EXPECT_TRUE(has(contention_conclusion(partly), "holds only in part"));

  const ContentionResult not_seen = contention(0.104, 0.110);
  EXPECT_EQ(judge_contention(not_seen), ContentionVerdict::not_seen);
  EXPECT_TRUE(has(contention_conclusion(not_seen), "they still ran side by side (concurrency 1.82"));
  EXPECT_TRUE(has(contention_conclusion(not_seen), "the article's claim does not hold on this GPU"));

  const ContentionResult serial = contention(0.200, 0.208);
  EXPECT_EQ(judge_contention(serial), ContentionVerdict::no_concurrency);
  EXPECT_TRUE(has(contention_conclusion(serial), "even with no shared memory the two streams' kernels did not run"));
  EXPECT_TRUE(has(contention_conclusion(serial), "can't be read from this run"));

  ContentionResult shared = contention(0.104, 0.208);
  shared.large.blocks_per_sm = 2;
  EXPECT_EQ(judge_contention(shared), ContentionVerdict::not_exclusive);
  EXPECT_TRUE(has(contention_conclusion(shared), "the large kernel still fits 2 blocks per SM"));

  for (const ContentionResult& r : {partly, not_seen, serial, shared}) {
    EXPECT_FALSE(has(contention_conclusion(r), "claim holds here")) << contention_conclusion(r);
  }
}

TEST(SharedMemoryContention, AFailedCheckPrintsAsAFailureAndConcludesNothing) {
  ContentionResult r = contention(0.104, 0.208);
  r.verified = false;
  r.failure = "contention kernel 1, block 5: marker 4294967295, expected 6";
  EXPECT_EQ(judge_contention(r), ContentionVerdict::not_verified);
  EXPECT_TRUE(has(contention_conclusion(r), "no conclusion about contention: a check failed (contention kernel 1"));
  expect_shown_as_failed(r, print_contention, contention_json, "contention kernel 1, block 5", "claim holds");
}

TEST(SharedMemoryContention, PrintsAndWritesEveryFigure) {
  const ContentionResult r = contention(0.104, 0.208);
  std::ostringstream out;
  print_contention(out, r);
  for (const char* part : {"shared memory per block", "blocks per SM", "alone us", "on two streams us", "concurrency",
                           "132 blocks (one per SM, 132 SMs)", "118.0 KiB", "verified: every block's marker"}) {
    EXPECT_TRUE(has(out.str(), part)) << part << " missing from:\n" << out.str();
  }
  const nlohmann::json doc = contention_json(r);
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
  EXPECT_EQ(doc.at("conclusion"), contention_conclusion(r));
}

// The priorities subcommand's options, as its StageCli has them.
PriorityConfig parse_priorities(const std::vector<std::string>& args) {
  CommonDefaults defaults;
  defaults.gemm_workload = false;
  StageCli cli("test_stage priorities", "test", defaults);
  add_priority_options(cli);
  const std::optional<CommonOptions> options = cli.parse(args);
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
  // The flood is the experiment's own, not the user's.
  EXPECT_EQ(set.flood_streams, PriorityConfig{}.flood_streams);
  EXPECT_EQ(set.flood_block_us, PriorityConfig{}.flood_block_us);
}

TEST(StreamPriorityOptions, ASampleCountOutOfRangeIsAUsageErrorNamingTheFlag) {
  auto refused = [](const std::vector<std::string>& args, const std::string& must_mention) {
    try {
      parse_priorities(args);
    } catch (const UsageError& error) {
      return has(error.what(), must_mention) ? ::testing::AssertionSuccess()
                                             : ::testing::AssertionFailure() << "message: " << error.what();
    }
    return ::testing::AssertionFailure() << "accepted";
  };
  EXPECT_TRUE(refused({"--priority-samples", "0"}, "--priority-samples"));
  EXPECT_TRUE(refused({"--priority-samples", "100001"}, "--priority-samples"));
  EXPECT_TRUE(refused({"--priority-samples", "many"}, "--priority-samples"));
  EXPECT_TRUE(refused({"--priority-samples", "5", "--priority-samples", "6"}, "--priority-samples is given twice"));
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

}  // namespace
}  // namespace csg::pool
