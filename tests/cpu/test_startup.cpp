// The startup experiment's pieces that need no GPU: the evenly spaced bucket
// layouts, the two request mixes and their padding waste, the estimate, every
// branch of every verdict on made-up figures, the report (its table, its
// verdicts in the JSON, the measurements, checks and bounds) and the options
// (refusals are UsageError, before any CUDA call).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "04_graph_capture_gemm/lab/startup/startup.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "declaration_checks.hpp"
#include "subcommand_checks.hpp"

namespace csg::graphs {
namespace cpu_startup {

using csg::testing::ms;

// ---- the plan ---------------------------------------------------------------

TEST(StartupPlan, BucketsAreSpacedEvenlyUpToMax) {
  EXPECT_EQ(even_buckets(8, 256), (std::vector<int>{32, 64, 96, 128, 160, 192, 224, 256}));
  EXPECT_EQ(even_buckets(3, 10), (std::vector<int>{4, 7, 10}));  // ceil(10/3), ceil(20/3), 10
  EXPECT_EQ(even_buckets(1, 7), std::vector<int>{7});
  std::vector<int> every(256);
  for (int i = 0; i < 256; ++i) every[std::size_t(i)] = i + 1;
  EXPECT_EQ(even_buckets(256, 256), every) << "K = max: one graph per batch count";
  for (int k : {5, 17, 100, 255}) {
    const std::vector<int> sizes = even_buckets(k, 256);
    ASSERT_EQ(sizes.size(), std::size_t(k));
    EXPECT_EQ(sizes.back(), 256);
    EXPECT_TRUE(std::adjacent_find(sizes.begin(), sizes.end(), std::greater_equal<int>()) == sizes.end())
        << "strictly ascending at K = " << k;
  }
  EXPECT_THROW(even_buckets(0, 8), std::invalid_argument);
  EXPECT_THROW(even_buckets(9, 8), std::invalid_argument);
  EXPECT_EQ(captured_batches(8, 256), 1152);  // 8 * (32 + 256) / 2
  EXPECT_EQ(captured_batches(256, 256), 32896);  // 256 * 257 / 2
}

TEST(StartupPlan, RequestMixesAreSeededWithinRangeAndShaped) {
  const std::vector<int> uniform = request_sizes(RequestMix::uniform, 20000, 256, 3);
  const std::vector<int> skewed = request_sizes(RequestMix::skewed, 20000, 256, 3);
  EXPECT_EQ(uniform, request_sizes(RequestMix::uniform, 20000, 256, 3));
  EXPECT_EQ(skewed, request_sizes(RequestMix::skewed, 20000, 256, 3));
  EXPECT_NE(skewed, request_sizes(RequestMix::skewed, 20000, 256, 4));
  for (const std::vector<int>* mix : {&uniform, &skewed}) {
    ASSERT_EQ(mix->size(), 20000u);
    EXPECT_GE(*std::min_element(mix->begin(), mix->end()), 1);
    EXPECT_LE(*std::max_element(mix->begin(), mix->end()), 256);
  }
  std::vector<int> sorted = skewed;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_NEAR(sorted[sorted.size() / 2], 32, 4) << "the skewed mix's median is max/8";
  double uniform_mean = 0.0, skewed_mean = 0.0;
  for (int b : uniform) uniform_mean += b / 20000.0;
  for (int b : skewed) skewed_mean += b / 20000.0;
  EXPECT_NEAR(uniform_mean, 128.5, 3.0);
  EXPECT_NEAR(skewed_mean, 64.5, 3.0) << "ceil(256 u^3): mean 256/4 + about 1/2";
  EXPECT_TRUE(request_sizes(RequestMix::skewed, 0, 8, 1).empty());
  EXPECT_THROW(request_sizes(RequestMix::skewed, -1, 8, 1), std::invalid_argument);
  EXPECT_THROW(request_sizes(RequestMix::skewed, 5, 0, 1), std::invalid_argument);
}

TEST(StartupPlan, PaddingWasteIsPaddedOverRequestedMinusOne) {
  EXPECT_DOUBLE_EQ(padding_waste({1, 2, 3}, {2, 4}), 8.0 / 6.0 - 1.0);  // padded 2 + 2 + 4
  const std::vector<int> requests = request_sizes(RequestMix::uniform, 5000, 64, 1);
  EXPECT_DOUBLE_EQ(padding_waste(requests, even_buckets(64, 64)), 0.0) << "one bucket per count wastes nothing";
  EXPECT_GT(padding_waste(requests, even_buckets(8, 64)), padding_waste(requests, even_buckets(32, 64)));
  // One bucket of 64 for uniform 1..64 requests: 64 / 32.5 - 1, about 97%.
  EXPECT_NEAR(padding_waste(requests, even_buckets(1, 64)), 64.0 / 32.5 - 1.0, 0.05);
}

TEST(StartupPlan, TheEstimateCountsEveryBatchCapturedBothWaysEveryRound) {
  StartupConfig config;
  config.bucket_counts = {8};
  config.max_batches = 256;
  const double one = startup_seconds(config, 0.0);
  EXPECT_GT(one, 3.0 * 1152 * 20e-6) << "1152 batches captured both ways and by the first build, at ~25 us each";
  EXPECT_LT(one, 1.0);
  EXPECT_NEAR(startup_seconds(config, 1e-3) - one, 3.0 * 1152 * 1e-3, 1e-9)
      << "each batch launched once per way, and once more by the first build";
  config.rounds = 3;
  const double three = startup_seconds(config, 0.0);
  EXPECT_NEAR(startup_seconds(config, 1e-3) - three, 7.0 * 1152 * 1e-3, 1e-9)
      << "three rounds both ways, and the first build once";
  EXPECT_GT(three, 2.0 * one);
  EXPECT_LT(three, 3.0 * one);
  config.rounds = 1;
  config.bucket_counts = {8, 256};
  EXPECT_GT(startup_seconds(config, 0.0), 20.0 * one);
}

StartupConfig parse(const std::vector<std::string>& args) {
  return testing::read_declared(own_workload_defaults(), startup_options, read_startup, args);
}

TEST(StartupOptions, DefaultsAndValues) {
  const StartupConfig defaults = parse({});
  EXPECT_EQ(defaults.bucket_counts, (std::vector<int>{8, 64, 256}));  // the whole doubling list took 36 s on an H200
  EXPECT_EQ(defaults.max_batches, 256);
  EXPECT_EQ(defaults.size, 64);
  EXPECT_EQ(defaults.budget_ms, 250.0);
  EXPECT_EQ(defaults.requests, 10000);
  EXPECT_EQ(defaults.rounds, 1);
  EXPECT_EQ(defaults.pool.streams, 8);
  EXPECT_EQ(defaults.common.work.batches, 256) << "the shared pool holds the top bucket";
  const StartupConfig given = parse({"--startup-buckets", "9,2", "--startup-max-batches", "9", "--startup-size", "8",
                                     "--startup-budget-ms", "20", "--startup-requests", "7", "--startup-rounds", "3",
                                     "--seed", "5", "--streams", "3"});
  EXPECT_EQ(given.bucket_counts, (std::vector<int>{2, 9}));
  EXPECT_EQ(given.max_batches, 9);
  EXPECT_EQ(given.size, 8);
  EXPECT_EQ(given.budget_ms, 20.0);
  EXPECT_EQ(given.requests, 7);
  EXPECT_EQ(given.rounds, 3);
  EXPECT_EQ(given.common.seed, 5u);
  EXPECT_EQ(given.pool.streams, 3);
  EXPECT_EQ(given.common.work.shape.k, 8);
  EXPECT_NO_THROW(parse({"--startup-max-batches", "100", "--startup-buckets", "4,100"}));
}

// ---- made-up figures --------------------------------------------------------

// Rows of bucket counts `ks` over 1..256 whose shared-pool totals are
// `shared_ms` (capture 30%, instantiate 60%, upload 10%) and whose separate
// totals are `separate_ms`.
StartupFigures made_up(const std::vector<int>& ks, const std::vector<double>& shared_ms,
                       const std::vector<double>& separate_ms, double budget_ms = 500.0) {
  StartupFigures f;
  f.config.bucket_counts = ks;
  f.config.max_batches = 256;
  f.config.budget_ms = budget_ms;
  f.config.requests = 2000;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    StartupRow row;
    row.buckets = ks[i];
    row.sizes = even_buckets(ks[i], 256);
    row.batches_captured = captured_batches(ks[i], 256);
    for (BufferLayout layout : kAllBufferLayouts) {
      const double total = layout == BufferLayout::shared ? shared_ms[i] : separate_ms[i];
      StartupCell& c = row.cell(layout);
      c.capture = ms(0.3 * total);
      c.instantiate = ms(0.6 * total);
      c.upload = ms(0.1 * total);
      c.total = ms(total);
      c.launches = ms(0.5 * total);
      c.check.passed = true;
      c.check.batches_checked = int(row.batches_captured);
    }
    row.shared.buffer_bytes = 8 << 20;
    row.separate.buffer_bytes = std::int64_t(row.batches_captured) * 32 * 1024;
    f.rows.push_back(row);
  }
  // The first build: the most buckets, as dear as the last row's shared pool
  // built again, its 256 execs 64 KiB each.
  FirstBuild& first = f.first;
  first.buckets = ks.back();
  first.batches_captured = f.rows.back().batches_captured;
  first.capture_ms = 0.3 * shared_ms.back();
  first.instantiate_ms = 0.6 * shared_ms.back();
  first.upload_ms = 0.1 * shared_ms.back();
  first.graph_bytes = 64 * 1024 * std::int64_t(ks.back());
  first.check.passed = true;
  first.check.batches_checked = int(first.batches_captured);
  fill_padding(f);
  return f;
}

const std::vector<int> kKs = {8, 32, 128, 256};

// ---- the verdicts ---------------------------------------------------------------------

TEST(StartupBudget, NoBucketCountOverTheBudget) {
  const StartupFigures f = made_up(kKs, {20, 80, 300, 450}, {25, 90, 320, 480});
  const BudgetPlace v = budget_place(f, BufferLayout::shared);
  EXPECT_FALSE(v.first_over);
  ASSERT_TRUE(v.most_within);
  EXPECT_EQ(*v.most_within, 3u);
  const Verdict verdict = budget_verdict(f);
  EXPECT_EQ(verdict.id, "startup.budget");
  EXPECT_EQ(verdict.outcome, "none_over");
  EXPECT_THAT(verdict.sentence,
              AllOf(HasSubstr("no bucket count exceeded the 500 ms budget"),
                    HasSubstr("all 256 buckets start in 450 ms and waste 0.0% (uniform) / 0.0% (skewed)"),
                    HasSubstr("separate buffers per bucket: none over")));
  EXPECT_DOUBLE_EQ(verdict.threshold.at("budget_ms").get<double>(), 500.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("shared_total_ms_k256").get<double>(), 450.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("separate_total_ms_k8").get<double>(), 25.0);
  EXPECT_FALSE(verdict.figures.contains("first_over_buckets"));
  EXPECT_EQ(verdict.figures.at("most_within_buckets"), 256);
}

TEST(StartupBudget, TheFirstBucketCountOverTheBudgetAndTheMostWithinIt) {
  const StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 520, 700});
  const BudgetPlace v = budget_place(f, BufferLayout::shared);
  ASSERT_TRUE(v.first_over && v.most_within);
  EXPECT_EQ(f.rows[*v.first_over].buckets, 256);
  EXPECT_EQ(f.rows[*v.most_within].buckets, 128);
  const Verdict verdict = budget_verdict(f);
  EXPECT_THAT(verdict, IsVerdict("", "first_over",
                                 {"256 buckets are the first over the 500 ms budget on the shared pool (600 ms; ",
                                  "separate buffers per bucket: 128 buckets first, at 520 ms)",
                                  "the most buckets within it, 128, start in 300 ms", "with 8 buckets"}));
  EXPECT_EQ(verdict.figures.at("first_over_buckets"), 256);
  EXPECT_EQ(verdict.figures.at("separate_first_over_buckets"), 128);
  // Over at the second bucket count: the most within is the fewest, with nothing to compare its padding to.
  const Verdict second = budget_verdict(made_up(kKs, {20, 600, 700, 800}, {25, 90, 520, 700}));
  EXPECT_THAT(second.sentence,
              AllOf(HasSubstr("the most buckets within it, 8, start in 20 ms and waste 11."), Not(HasSubstr("against"))));
  // Exactly at the budget is within it.
  const StartupFigures at_budget = made_up(kKs, {20, 80, 500, 600}, {25, 90, 500, 700});
  EXPECT_EQ(at_budget.rows[*budget_place(at_budget, BufferLayout::shared).first_over].buckets, 256);
  EXPECT_EQ(at_budget.rows[*budget_place(at_budget, BufferLayout::separate).first_over].buckets, 256);
}

TEST(StartupBudget, EvenTheFewestBucketsExceedTheBudget) {
  const StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 320, 700}, 10.0);
  const BudgetPlace v = budget_place(f, BufferLayout::shared);
  ASSERT_TRUE(v.first_over);
  EXPECT_EQ(*v.first_over, 0u);
  EXPECT_FALSE(v.most_within);
  const Verdict verdict = budget_verdict(f);
  EXPECT_EQ(verdict.outcome, "all_over");
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("even 8 buckets exceed the 10 ms budget on the shared pool (20 ms; "),
                                      HasSubstr("fewer buckets, a smaller top bucket or a larger budget")));
}

TEST(StartupPadding, TheWasteFallsWithMoreBuckets) {
  const StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 320, 700});
  for (std::size_t i = 1; i < f.rows.size(); ++i) {
    EXPECT_LT(f.rows[i].waste_uniform, f.rows[i - 1].waste_uniform);
    EXPECT_LT(f.rows[i].waste_skewed, f.rows[i - 1].waste_skewed);
  }
  EXPECT_DOUBLE_EQ(f.rows.back().waste_uniform, 0.0);
  EXPECT_GT(f.rows.front().waste_skewed, f.rows.front().waste_uniform) << "small requests waste more of a bucket";
  EXPECT_GT(f.mean_uniform, f.mean_skewed);
}

TEST(StartupParts, TheLargestPartOfStartupIsNamed) {
  StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 320, 700});
  Verdict verdict = parts_verdict(f);
  EXPECT_EQ(verdict.id, "startup.parts");
  EXPECT_EQ(verdict.outcome, "instantiate");
  EXPECT_THAT(verdict.sentence, HasSubstr("instantiate is the largest part of starting 256 buckets (capture 30.0%, "
                                          "instantiate 60.0%, upload 10.0%): 2.34 ms per graph"));
  EXPECT_DOUBLE_EQ(verdict.figures.at("instantiate_ms").get<double>(), 360.0);
  f.rows.back().shared.capture = ms(500);
  EXPECT_EQ(parts_verdict(f).outcome, "capture");
  f.rows.back().shared.upload = ms(900);
  verdict = parts_verdict(f);
  EXPECT_EQ(verdict.outcome, "upload");
  EXPECT_THAT(verdict.sentence, HasSubstr("upload is the largest part"));
  f.rows.back().shared = StartupCell{};
  verdict = parts_verdict(f);
  EXPECT_EQ(verdict.outcome, "nothing_timed");
  EXPECT_EQ(verdict.sentence, "nothing was timed");
}

TEST(StartupMemory, SeparateBuffersAgainstOneSharedPool) {
  StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 320, 700});
  // Separate: 32896 batches x 32 KiB + 16 MiB of graphs; shared: 8 + 16 MiB.
  Verdict verdict = memory_verdict(f);
  EXPECT_EQ(verdict.id, "startup.memory");
  EXPECT_EQ(verdict.outcome, "separate_dearer");
  EXPECT_THAT(verdict.sentence,
              AllOf(HasSubstr("the first build's 256 execs took 16.0 MiB of device memory (about 64 KiB each, 0.5 KiB "
                              "per batch captured)"),
                    HasSubstr("separate buffers per bucket take 1044.0 MiB of device memory (buffers + the same "
                              "graphs) against 24.0 MiB for one shared pool, 43.5x")));
  EXPECT_EQ(verdict.figures.at("exec_bytes"), 16 << 20);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("ratio").get<double>(), kMemoryRatioThreshold);
  f.rows.back().separate.buffer_bytes = f.rows.back().shared.buffer_bytes + (2 << 20);  // 26 MiB: within 1.1x
  verdict = memory_verdict(f);
  EXPECT_EQ(verdict.outcome, "same");
  EXPECT_THAT(verdict.sentence, HasSubstr("about as much device memory as one shared pool (26.0 MiB against 24.0 MiB"));
  f.first.graph_bytes = 0;  // the buffers alone: 10 MiB against 8
  EXPECT_THAT(memory_verdict(f).sentence,
              AllOf(HasSubstr("the first build's 256 execs took less device memory than cudaMemGetInfo resolves"),
                    HasSubstr("take 10.0 MiB of device memory (buffers) against 8.0 MiB")));
  f.first.batches_captured = 0;  // no first build
  EXPECT_THAT(memory_verdict(f).sentence, HasSubstr("the execs' device memory was not measured"));
}

TEST(StartupFirstBuild, AgainstTheSameGraphsBuiltAgain) {
  StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 320, 700});
  std::optional<Verdict> verdict = first_build_verdict(f);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->id, "startup.first_build");
  EXPECT_EQ(verdict->outcome, "same");
  EXPECT_THAT(verdict->sentence, HasSubstr("the process's first build of 256 graphs took 600 ms against 600 ms for "
                                           "the same graphs built again (within 10.0%): the table's figures hold for "
                                           "a fresh process too."));
  EXPECT_DOUBLE_EQ(verdict->threshold.at("ratio").get<double>(), kFirstBuildRatioThreshold);
  f.first.instantiate_ms += 600.0;  // 1200 ms: dearer, by its instantiate
  verdict = first_build_verdict(f);
  EXPECT_EQ(verdict->outcome, "dearer");
  EXPECT_THAT(verdict->sentence, HasSubstr("took 1200 ms against 600 ms for the same graphs built again (2.0x; "
                                           "instantiate 960 against 360 ms): a fresh process's startup costs more "
                                           "than the table's figures"));
  EXPECT_DOUBLE_EQ(verdict->figures.at("first_over_again").get<double>(), 2.0);
  f.first.instantiate_ms -= 600.0;
  f.first.upload_ms = 0.0;
  f.first.capture_ms = 10.0;  // 10 + 360 + 0 = 370 ms: cheaper, most by its capture
  verdict = first_build_verdict(f);
  EXPECT_EQ(verdict->outcome, "cheaper");
  EXPECT_THAT(verdict->sentence,
              HasSubstr("(1.6x less; capture 10 against 180 ms): here the first build was the cheaper one."));
  f.first.batches_captured = 0;
  EXPECT_FALSE(first_build_verdict(f).has_value());
}

TEST(StartupVerdicts, NothingBuiltOrTimedIsSaidSo) {
  StartupFigures none;
  EXPECT_EQ(budget_verdict(none).outcome, "none_built");
  EXPECT_EQ(memory_verdict(none).outcome, "none_built");
  EXPECT_EQ(parts_verdict(none).outcome, "nothing_timed");
  StartupFigures untimed = made_up(kKs, {20, 80, 300, 600}, {25, 90, 320, 700});
  untimed.first.capture_ms = untimed.first.instantiate_ms = untimed.first.upload_ms = 0.0;
  const std::optional<Verdict> first = first_build_verdict(untimed);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->outcome, "not_timed");
  EXPECT_THAT(first->sentence, ::testing::EndsWith("for the same graphs built again."));
}

// ---- the report ------------------------------------------------------------------------

Report reported(const StartupFigures& f) {
  return testing::report_of(kStage, "startup", report_startup, f.config, f);
}

TEST(StartupReport, PrintsTheTableTheMixesAndEveryVerdictAndCarriesThemInTheJson) {
  const StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 520, 700});
  const Report report = reported(f);
  EXPECT_TRUE(report.passed());
  const std::string text = report.console();
  EXPECT_THAT(text, AllOf(HasSubstr("bucket i holds ceil(i * 256 / K)"), HasSubstr("instantiate"),
                          HasSubstr("K=8 11.8% / 29.5%, K=32"), HasSubstr("separate"),
                          HasSubstr("b uniform in 1..256"),
                          HasSubstr("the first build, before the rows: 256 shared, 32896 batches")));
  nlohmann::json sentences = nlohmann::json::array();
  for (const Verdict& verdict : report.verdicts()) sentences.push_back(verdict.sentence);
  EXPECT_THAT(testing::printed_verdict_ids(report), ElementsAre("startup.budget", "startup.parts", "startup.first_build", "startup.memory"));
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 26);
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("subcommand"), "startup");
  EXPECT_EQ(doc.at("verdicts").size(), 4u);
  EXPECT_EQ(doc.at("config").at("device_buffers"), "per-batch");
  const nlohmann::json& st = doc.at("startup");
  EXPECT_EQ(st.at("conclusion"), sentences);
  EXPECT_EQ(st.at("bucket_layout"), "even");
  EXPECT_EQ(st.at("budget_ms"), 500.0);
  EXPECT_EQ(st.at("budget_layout"), "shared");
  EXPECT_THAT(st.at("mixes").at("skewed").at("text").get<std::string>(), HasSubstr("ceil(256 * u^3)"));
  ASSERT_EQ(st.at("rows").size(), 4u);
  const nlohmann::json& last = st.at("rows")[3];
  EXPECT_EQ(last.at("buckets"), 256);
  EXPECT_EQ(last.at("sizes").size(), 256u);
  EXPECT_EQ(last.at("batches_captured"), 32896);
  EXPECT_NEAR(last.at("shared").at("total_ms").get<double>(), 600.0, 1e-9);
  EXPECT_NEAR(last.at("shared").at("ms_per_graph").get<double>(), 600.0 / 256, 1e-9);
  EXPECT_NEAR(last.at("shared").at("us_per_batch").get<double>(), 600000.0 / 32896, 1e-9);
  EXPECT_EQ(last.at("separate").at("buffer_bytes"), 32896LL * 32 * 1024);
  EXPECT_FALSE(last.at("shared").contains("graph_bytes")) << "the rows' graphs reuse the first build's memory";
  const nlohmann::json& first = st.at("first_build");
  EXPECT_EQ(first.at("buckets"), 256);
  EXPECT_EQ(first.at("layout"), "shared");
  EXPECT_EQ(first.at("batches_captured"), 32896);
  EXPECT_NEAR(first.at("total_ms").get<double>(), 600.0, 1e-9);
  EXPECT_NEAR(first.at("instantiate_ms").get<double>(), 360.0, 1e-9);
  EXPECT_EQ(first.at("graph_bytes"), 256LL * 65536);
  EXPECT_NEAR(first.at("graph_bytes_per_graph").get<double>(), 65536.0, 1e-9);
  EXPECT_EQ(first.at("verified"), true);
  EXPECT_EQ(last.at("separate").at("verified"), true);
  EXPECT_FALSE(last.at("separate").contains("failure"));
  EXPECT_EQ(st.at("first_over_budget").at("shared"), 256);
  EXPECT_EQ(st.at("first_over_budget").at("separate"), 128);
  EXPECT_EQ(st.at("most_within_budget").at("separate"), 32);
}

TEST(StartupReport, TheBudgetsBucketCountsAreNullWhereNoneIs) {
  StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 520, 700});
  f.config.budget_ms = 1000.0;
  EXPECT_EQ(reported(f).document().at("startup").at("first_over_budget").at("shared"), nullptr);
  f.config.budget_ms = 1.0;
  EXPECT_EQ(reported(f).document().at("startup").at("most_within_budget").at("shared"), nullptr);
}

TEST(StartupReport, MeasurementsChecksAndBoundsCoverEveryRowAndLayout) {
  StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 520, 700});
  const Report report = reported(f);
  const std::vector<Measurement>& all = report.result.measurements;
  ASSERT_EQ(all.size(), 1u + 4u * 2u * 5u);
  EXPECT_EQ(all[0].name, "startup_first_build");
  EXPECT_EQ(all[0].params.at("buckets"), 256);
  EXPECT_NEAR(all[0].stats.median_ms, 600.0, 1e-9);
  EXPECT_EQ(all[1].name, "startup_capture");
  EXPECT_EQ(all[4].name, "startup_total");
  EXPECT_FALSE(all[4].verifiable);
  EXPECT_EQ(all[5].name, "startup_launches");
  EXPECT_TRUE(all[5].verified);
  EXPECT_EQ(all[6].params.at("layout"), "separate");
  EXPECT_EQ(all.back().params.at("buckets"), 256);
  EXPECT_EQ(report.result.variants_verified, 9) << "the first build and every cell";
  const nlohmann::json& bounds = report.result.bounds;
  EXPECT_NEAR(bounds.at("startup_shared_ms_per_graph_k8").get<double>(), 20.0 / 8, 1e-12);
  EXPECT_NEAR(bounds.at("startup_separate_us_per_batch_k256").get<double>(), 700000.0 / 32896, 1e-9);
}

TEST(StartupReport, AFailedGraphFailsTheRunAndIsNamed) {
  StartupFigures f = made_up(kKs, {20, 80, 300, 600}, {25, 90, 520, 700});
  f.rows[1].separate.check.passed = false;
  f.rows[1].separate.check.first_failure = Mismatch{3, 1, 2, 16.0, -1.0, "sampled"};
  const Report report = reported(f);
  EXPECT_FALSE(report.passed());
  const std::vector<Measurement>& m = report.result.measurements;
  ASSERT_EQ(m[20].name, "startup_launches");  // row 1, separate (after the first build and row 0's ten)
  EXPECT_EQ(m[20].params.at("layout"), "separate");
  EXPECT_FALSE(m[20].verified);
  EXPECT_TRUE(m[15].verified) << "row 1, shared";
  const nlohmann::json failed = report.document().at("startup").at("rows")[1].at("separate");
  EXPECT_EQ(failed.at("verified"), false);
  EXPECT_THAT(failed.at("failure").get<std::string>(), HasSubstr("batch 3"));
}

}  // namespace cpu_startup
}  // namespace csg::graphs
