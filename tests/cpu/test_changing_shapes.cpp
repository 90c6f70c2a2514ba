// The changing-shapes experiment's pieces that need no GPU: the seeded sequence of batch counts,
// the buckets and the padding arithmetic, the estimate, every verdict it
// draws (each branch on made-up figures), its report (console, JSON and
// measurements), and its options (refusals are UsageError, before any CUDA call).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/changing-shapes/changing_shapes.hpp"
#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "param_names.hpp"
#include "report/conclusions.hpp"
#include "report/device_info.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace cpu_changing_shapes {

// ---- the sequence -----------------------------------------------------------

TEST(ChangingShapesPlan, TheSequenceIsSeededAndWithinOneToMax) {
  const std::vector<int> a = request_sequence(2000, 100, 7);
  EXPECT_EQ(a, request_sequence(2000, 100, 7)) << "the same seed must give the same sequence";
  EXPECT_NE(a, request_sequence(2000, 100, 8)) << "another seed, another sequence";
  ASSERT_EQ(a.size(), 2000u);
  EXPECT_EQ(*std::min_element(a.begin(), a.end()), 1);
  EXPECT_EQ(*std::max_element(a.begin(), a.end()), 100);
  // A prefix of a longer sequence is the shorter one: request i depends on i alone.
  const std::vector<int> first = request_sequence(50, 100, 7);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), a.begin()));
  // Uniform: 10000 draws of 1..10, each count within 15% of 1000.
  std::map<int, int> counts;
  for (int b : request_sequence(10000, 10, 3)) ++counts[b];
  ASSERT_EQ(counts.size(), 10u);
  EXPECT_EQ(counts.begin()->first, 1);
  EXPECT_EQ(counts.rbegin()->first, 10);
  for (const auto& [value, count] : counts) EXPECT_NEAR(count, 1000, 150) << "batch count " << value;
  // Consecutive requests differ mostly, so the exec update is refused mostly.
  int same = 0;
  for (std::size_t i = 1; i < a.size(); ++i) same += a[i] == a[i - 1];
  EXPECT_LT(same, 60) << "about 1 in 100 consecutive pairs should match";
  EXPECT_TRUE(request_sequence(0, 100, 1).empty());
  EXPECT_EQ(request_sequence(5, 1, 1), std::vector<int>(5, 1));
  EXPECT_THROW(request_sequence(-1, 100, 1), std::invalid_argument);
  EXPECT_THROW(request_sequence(5, 0, 1), std::invalid_argument);
  ChangingShapesConfig config;
  config.requests = 13;
  config.max_batches = 9;
  config.seed = 4;
  EXPECT_EQ(request_sequence(config), request_sequence(13, 9, 4));
}

TEST(ChangingShapesPlan, BucketsArePowersOfTwoUpToTheFirstAtLeastMax) {
  EXPECT_EQ(bucket_sizes(100), (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128}));
  EXPECT_EQ(bucket_sizes(1), std::vector<int>{1});
  EXPECT_EQ(bucket_sizes(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(bucket_sizes(128).back(), 128);
  EXPECT_EQ(bucket_sizes(129).back(), 256);
  EXPECT_EQ(bucket_capacity(100), 128);
  EXPECT_EQ(bucket_capacity(9), 16);
  EXPECT_THROW(bucket_sizes(0), std::invalid_argument);
  for (int max = 1; max <= 1024; ++max) {
    const int top = bucket_capacity(max);
    EXPECT_GE(top, max);
    EXPECT_LT(top, 2 * max) << "the top bucket is the first power of two >= " << max;
  }
}

TEST(ChangingShapesPlan, ARequestGetsTheSmallestBucketThatHoldsIt) {
  const std::vector<int> buckets = bucket_sizes(100);
  EXPECT_EQ(bucket_for(1, buckets), 1);
  EXPECT_EQ(bucket_for(2, buckets), 2);
  EXPECT_EQ(bucket_for(3, buckets), 4);
  EXPECT_EQ(bucket_for(64, buckets), 64);
  EXPECT_EQ(bucket_for(65, buckets), 128);
  EXPECT_EQ(bucket_for(100, buckets), 128);
  EXPECT_THROW(bucket_for(129, buckets), std::out_of_range);
  const std::vector<int> big = bucket_sizes(1000);
  for (int b = 1; b <= 1000; ++b) {
    const int bucket = bucket_for(b, big);
    EXPECT_GE(bucket, b);
    EXPECT_LT(bucket, 2 * b) << "not the smallest power of two >= " << b;
    EXPECT_EQ(bucket & (bucket - 1), 0) << bucket << " is not a power of two";
  }
}

TEST(ChangingShapesPlan, PaddingIsComputedOverRequestedMinusOne) {
  const std::vector<int> buckets = bucket_sizes(100);
  EXPECT_EQ(requested_batches({3, 5, 100}), 108);
  EXPECT_EQ(padded_batches({3, 5, 100}, buckets), 4 + 8 + 128);
  EXPECT_DOUBLE_EQ(padding_fraction(108, 140), 140.0 / 108.0 - 1.0);
  EXPECT_DOUBLE_EQ(padding_fraction(64, 64), 0.0);
  EXPECT_DOUBLE_EQ(padding_fraction(0, 0), 0.0);
  // Every batch count of 1..100 once: 5050 requested, 7339 computed: 45% padding.
  std::vector<int> all(100);
  for (int i = 0; i < 100; ++i) all[std::size_t(i)] = i + 1;
  EXPECT_EQ(requested_batches(all), 5050);
  EXPECT_EQ(padded_batches(all, buckets), 7339);
  EXPECT_NEAR(padding_fraction(5050, 7339), 0.4533, 1e-4);
  EXPECT_DOUBLE_EQ(wasted_gpu_ms(14.5, 0.45), 14.5 * 0.45 / 1.45);
  EXPECT_DOUBLE_EQ(wasted_gpu_ms(14.5, 0.0), 0.0);
}

TEST(ChangingShapesPlan, TheWorkloadHoldsTheTopBucketAtTheExperimentsShape) {
  ChangingShapesConfig config;
  const GemmShape stage{1024, 1024, 512};
  const Workload work = changing_shapes_workload(config, stage);
  EXPECT_EQ(work.batches, 128);
  EXPECT_EQ(work.shape.m, 256);
  EXPECT_EQ(work.shape.n, 256);
  EXPECT_EQ(work.shape.k, 256);
  config.size = 0;
  config.max_batches = 9;
  const Workload at_stage = changing_shapes_workload(config, stage);
  EXPECT_EQ(at_stage.batches, 16);
  EXPECT_EQ(at_stage.shape.m, 1024);
  EXPECT_EQ(at_stage.shape.k, 512);
  // The subcommand passes no shape: size 0 is the article's 1024x1024x512.
  const Workload article = changing_shapes_workload(config);
  EXPECT_EQ(article.shape.m, 1024);
  EXPECT_EQ(article.shape.n, 1024);
  EXPECT_EQ(article.shape.k, 512);
}

TEST(ChangingShapesPlan, TheEstimateCountsEveryRoundAndEveryWay) {
  ChangingShapesConfig config;
  const double base = changing_shapes_seconds(config, 1e-4);
  // 3 rounds (+ warm-up share) of 3 x 2525-ish + 3670-ish batches at 0.1 ms: about 3.5 s.
  const std::vector<int> sequence = request_sequence(config);
  const double batches = 3.0 * double(requested_batches(sequence)) + double(padded_batches(sequence, bucket_sizes(100)));
  EXPECT_GT(base, 3.0 * batches * 1e-4);
  EXPECT_LT(base, 4.0 * batches * 1e-4 + 1.0);
  EXPECT_GT(changing_shapes_seconds(config, 2e-4), base);
  config.rounds = 6;
  EXPECT_GT(changing_shapes_seconds(config, 1e-4), 1.8 * base);
  // A per-batch time below the launch cost is raised to it.
  config.rounds = 3;
  EXPECT_DOUBLE_EQ(changing_shapes_seconds(config, 0.0), changing_shapes_seconds(config, 1e-9));
  EXPECT_GT(changing_shapes_seconds(config, 0.0), 0.0);
  config.requests = 0;
  EXPECT_DOUBLE_EQ(changing_shapes_seconds(config, 1e-4), 0.0);
}

TEST(ChangingShapesPlan, TheEstimateIsTheRoundsTheWarmUpAndTheBucketsOnce) {
  // The figures the estimate states: at least 3 calls of 4 us per batch, and
  // 21 us per batch captured and instantiated.
  ChangingShapesConfig config;
  const double per_batch = 1e-4;
  const double capture = 2.1e-3 / 100;
  const std::vector<int> sequence = request_sequence(config);
  const std::vector<int> buckets = bucket_sizes(config.max_batches);
  const double requested = double(requested_batches(sequence));
  const double padded = double(padded_batches(sequence, buckets));
  // Three ways compute the requested batches, the buckets the padded ones; two ways capture every request.
  const double round = (3.0 * requested + padded) * per_batch + 2.0 * requested * capture;
  const double warmup = double(kShapeWarmupRequests) / config.requests;  // of one round
  double setup = 0.0;  // each bucket captured, instantiated and launched once
  for (const int size : buckets) setup += size * (per_batch + capture);
  EXPECT_NEAR(changing_shapes_seconds(config, per_batch), (config.rounds + warmup) * round + setup, 1e-9);
}

// ---- the verdicts ---------------------------------------------------------------

TEST(ChangingShapesVerdicts, TheFastestWayIsTheOutcomeAndIsNamedFirst) {
  EXPECT_EQ(fastest_way({10, 20, 19, 30}), ShapeWay::streams);
  EXPECT_EQ(fastest_way({10, 5, 19, 30}), ShapeWay::recapture);
  EXPECT_EQ(fastest_way({10, 20, 4, 30}), ShapeWay::exec_update);
  EXPECT_EQ(fastest_way({10, 20, 19, 3}), ShapeWay::buckets);
  const Verdict buckets = fastest_verdict({14.0, 28.0, 27.0, 7.0}, 50);
  EXPECT_EQ(buckets.id, "changing_shapes.fastest");
  EXPECT_EQ(buckets.outcome, "buckets");
  EXPECT_THAT(buckets.sentence, AllOf(HasSubstr("over 50 requests: buckets, 7.00 ms"),
                                      HasSubstr("streams 14.00 ms (2.00x as long)"),
                                      HasSubstr("re-capture 28.00 ms (4.00x as long)")));
  EXPECT_DOUBLE_EQ(buckets.figures.at("recapture_total_ms").get<double>(), 28.0);
  EXPECT_DOUBLE_EQ(buckets.threshold.get<double>(), kEqualWithin);
  EXPECT_EQ(fastest_verdict({10.0, 20.0, 19.0, 30.0}, 50).outcome, "streams");
  EXPECT_THAT(fastest_verdict({10, 5, 19, 30}, 5).sentence, HasSubstr("requests: re-capture, 5.00 ms"));
  const Verdict update = fastest_verdict({10, 20, 4, 30}, 5);
  EXPECT_EQ(update.outcome, "exec_update");
  EXPECT_THAT(update.sentence, HasSubstr("requests: exec update, 4.00 ms"));
  // Within 3%: named as equals, not as slower.
  EXPECT_THAT(fastest_verdict({10.2, 20.0, 19.0, 10.0}, 50).sentence,
              HasSubstr("streams 10.20 ms (about as fast: within 3%)"));
}

TEST(ChangingShapesVerdicts, TheClaimHolds) {
  // 30 ms end to end, 25 of them capturing: the graphs then took 5 ms where the streams took 10.
  const Verdict holds = recapture_verdict(30.0, 25.0, 10.0);
  EXPECT_EQ(holds.id, "changing_shapes.recapture");
  EXPECT_EQ(holds.outcome, "holds");
  EXPECT_THAT(holds.sentence, AllOf(HasSubstr("cost the CPU 25.00 ms"), HasSubstr("finished 5.00 ms sooner than the streams"),
                                    HasSubstr("3.00x the streams' time"),
                                    HasSubstr("The article's claim holds at this size")));
  EXPECT_DOUBLE_EQ(holds.figures.at("saved_ms").get<double>(), 5.0);
  EXPECT_THAT(recapture_verdict(40.0, 25.0, 10.0).sentence,
              HasSubstr("were no faster than the streams (5.00 ms slower)"));
  EXPECT_EQ(recapture_claim(30.0, 10.0), ClaimVerdict::holds);
}

TEST(ChangingShapesVerdicts, TheClaimIsBorderlineWithinThreePercent) {
  const Verdict borderline = recapture_verdict(10.1, 2.0, 10.0);
  EXPECT_EQ(borderline.outcome, "borderline");
  EXPECT_THAT(borderline.sentence, HasSubstr("claim is borderline"));
  EXPECT_EQ(recapture_claim(10.2, 10.0), ClaimVerdict::borderline);
  EXPECT_EQ(recapture_claim(9.8, 10.0), ClaimVerdict::borderline);
}

TEST(ChangingShapesVerdicts, TheClaimDoesNotHoldWhenReCaptureWins) {
  const Verdict fails = recapture_verdict(8.0, 1.0, 10.0);
  EXPECT_EQ(fails.outcome, "does_not_hold");
  EXPECT_THAT(fails.sentence, AllOf(HasSubstr("finished 3.00 ms sooner"), HasSubstr("1.25x faster than the streams"),
                                    HasSubstr("claim does not hold at this size"), Not(HasSubstr("claim holds"))));
  EXPECT_EQ(recapture_claim(8.0, 10.0), ClaimVerdict::does_not_hold);
}

// 2525 requested, 3670 computed (45%), 8 buckets, 4 ms up front, over 50 requests.
Verdict buckets_at(double buckets_ms, double buckets_gpu_ms, double streams_ms) {
  return bucket_verdict(2525, 3670, buckets_ms, buckets_gpu_ms, streams_ms, 4.0, 8, 50);
}

TEST(ChangingShapesVerdicts, BucketsFasterDespiteThePadding) {
  // 8 ms of buckets against 16 of streams: 0.16 ms saved per request repays 4 ms up front after 25.
  const Verdict wins = buckets_at(8.0, 7.25, 16.0);
  EXPECT_EQ(wins.id, "changing_shapes.buckets");
  EXPECT_EQ(wins.outcome, "faster");
  EXPECT_THAT(wins.sentence,
              AllOf(HasSubstr("padded the 2525 requested batches to 3670 (45% more work"),
                    HasSubstr("about " + fixed(wasted_gpu_ms(7.25, 3670.0 / 2525 - 1), 2) + " ms of GPU time"),
                    HasSubstr("still finished 2.00x faster than the streams"),
                    HasSubstr("8 buckets (4.00 ms) is repaid after 25.0 requests")));
  EXPECT_DOUBLE_EQ(wins.figures.at("repaid_after_requests").get<double>(), 25.0);
}

TEST(ChangingShapesVerdicts, BucketsAboutAsFastAsTheStreams) {
  const Verdict same = buckets_at(16.2, 15.0, 16.0);
  EXPECT_EQ(same.outcome, "same");
  EXPECT_THAT(same.sentence,
              AllOf(HasSubstr("about as fast as the streams"), HasSubstr("the padding ate what the launches saved")));
}

TEST(ChangingShapesVerdicts, BucketsSlowerBecauseOfThePadding) {
  // 24 ms with 23 of GPU, 31% of which (7.2 ms) padding: 16.8 ms without it, under the streams' 16.9.
  const Verdict padding_loses = buckets_at(24.0, 23.0, 16.9);
  EXPECT_EQ(padding_loses.outcome, "padding_cost_more");
  EXPECT_THAT(padding_loses.sentence, AllOf(HasSubstr("1.42x the streams' time"),
                                            HasSubstr("Without the padding they would have beaten the streams")));
}

TEST(ChangingShapesVerdicts, BucketsSlowerEvenWithoutThePadding) {
  const Verdict graphs_lose = buckets_at(24.0, 23.0, 16.0);
  EXPECT_EQ(graphs_lose.outcome, "slower_anyway");
  EXPECT_THAT(graphs_lose.sentence, AllOf(HasSubstr("1.50x the streams' time"),
                                          HasSubstr("Even without the padding they would not have beaten the streams")));
}

TEST(ChangingShapesVerdicts, BucketsWithoutPadding) {
  // Every request a power of two.
  const Verdict exact = bucket_verdict(64, 64, 8.0, 7.0, 16.0, 4.0, 7, 10);
  EXPECT_EQ(exact.outcome, "faster");
  EXPECT_THAT(exact.sentence,
              AllOf(HasSubstr("no padding; they finished 2.00x faster"), Not(HasSubstr("GPU time spent on padding"))));
  const Verdict exact_loses = bucket_verdict(64, 64, 20.0, 19.0, 16.0, 4.0, 7, 10);
  EXPECT_EQ(exact_loses.outcome, "slower_unpadded");
  EXPECT_THAT(exact_loses.sentence, HasSubstr("no gain from ready graphs here"));
}

UpdateCounts mostly_refused() {
  UpdateCounts counts;
  counts.attempts = 150;
  counts.applied_same_batches = 2;
  counts.refused = 148;
  counts.instantiations = 148;
  counts.refused_result = "cudaErrorGraphExecUpdateFailure: cudaGraphExecUpdateErrorTopologyChanged";
  return counts;
}

TEST(ChangingShapesVerdicts, UpdateCountsSayWhyTheUpdateCantHelp) {
  const Verdict usual = update_counts_verdict(mostly_refused(), 30.5, 31.0);
  EXPECT_THAT(usual, IsVerdict("changing_shapes.exec_update", "same",
                               {"2 of 150 updates applied",
                                "148 refused (cudaErrorGraphExecUpdateFailure: cudaGraphExecUpdateErrorTopologyChanged)",
                                "the update can't help", "about as fast as (within 3%) re-capture + instantiate"}));
  EXPECT_EQ(usual.figures.at("refused"), 148);
  const Verdict faster = update_counts_verdict(mostly_refused(), 20.0, 30.0);
  EXPECT_EQ(faster.outcome, "faster");
  EXPECT_THAT(faster.sentence, HasSubstr("1.50x faster than re-capture"));
  EXPECT_EQ(update_counts_verdict(mostly_refused(), 40.0, 30.0).outcome, "slower");
  UpdateCounts none = mostly_refused();
  none.applied_same_batches = 150;
  none.refused = 0;
  none.refused_result.clear();
  EXPECT_THAT(update_counts_verdict(none, 10.0, 30.0).sentence,
              AllOf(HasSubstr("150 of 150 updates applied"), Not(HasSubstr("can't help"))));
}

TEST(ChangingShapesVerdicts, AnUpdateAcrossBatchCountsIsUnexpected) {
  UpdateCounts odd = mostly_refused();
  odd.applied_other_batches = 1;
  const Verdict verdict = update_counts_verdict(odd, 30.0, 31.0);
  EXPECT_EQ(verdict.outcome, "unexpected_update");
  EXPECT_THAT(verdict.sentence, HasSubstr("applied 1 update between different batch counts: unexpected"));
}

// ---- the report -------------------------------------------------------------

using testing::ms;

VerifyResult passed(int batches) {
  VerifyResult v;
  v.passed = true;
  v.batches_checked = batches;
  return v;
}

ShapeSequenceCosts made_up_sequence() {
  ShapeSequenceCosts seq;
  seq.config.requests = 4;
  seq.config.max_batches = 9;
  seq.config.rounds = 3;
  seq.shape = {32, 32, 32};
  seq.sequence = {3, 9, 1, 5};
  seq.buckets.sizes = bucket_sizes(9);
  seq.buckets.capture_ms = 0.5;
  seq.buckets.instantiate_ms = 1.5;
  seq.buckets.first_launch_ms = 0.3;
  seq.buckets.check = passed(31);
  const double totals_ms[] = {4.0, 9.0, 8.5, 2.0};
  for (ShapeWay w : kAllShapeWays) {
    ShapeWayCosts& way = seq.way(w);
    way.total = ms(totals_ms[std::size_t(w)]);
    way.gpu = ms(totals_ms[std::size_t(w)] / 2);
    way.cpu = ms(1.0);
    way.prepare = ms(w == ShapeWay::recapture || w == ShapeWay::exec_update ? 6.0 : 0.0);
    way.batches_requested = 18;
    way.batches_computed = w == ShapeWay::buckets ? 4 + 16 + 1 + 8 : 18;
    way.check = passed(3 * int(way.batches_computed));
  }
  seq.updates = {12, 0, 0, 12, 0, 12, "cudaErrorGraphExecUpdateFailure: cudaGraphExecUpdateErrorTopologyChanged"};
  return seq;
}

Report reported(const ShapeSequenceCosts& seq) {
  ChangingShapesOptions options;
  options.shapes = seq.config;
  return testing::report_of(kStage, "changing-shapes", report_changing_shapes, options, seq);
}

TEST(ChangingShapesReport, TheJsonHoldsEveryFigureAndFollowsFromThem) {
  const nlohmann::json all = reported(made_up_sequence()).document();
  const nlohmann::json& doc = all.at("changing_shapes");
  EXPECT_EQ(doc.at("requests"), 4);
  EXPECT_EQ(doc.at("max_batches"), 9);
  EXPECT_EQ(doc.at("rounds"), 3);
  EXPECT_EQ(doc.at("node_updates_on"), false);
  EXPECT_TRUE(doc.at("node_updates").is_null()) << "node-updates' part";
  EXPECT_TRUE(all.at("config").at("batches").is_null()) << "each request has its own";
  const nlohmann::json& seq = doc.at("sequence");
  EXPECT_EQ(seq.at("batch_counts").get<std::vector<int>>(), (std::vector<int>{3, 9, 1, 5}));
  EXPECT_EQ(seq.at("batches_requested"), 18);
  EXPECT_EQ(seq.at("shape").at("m"), 32);
  const nlohmann::json& buckets = seq.at("buckets");
  EXPECT_EQ(buckets.at("sizes").get<std::vector<int>>(), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(buckets.at("batches_computed"), 29);
  EXPECT_NEAR(buckets.at("padding_percent").get<double>(), 100.0 * (29.0 / 18.0 - 1.0), 1e-9);
  EXPECT_NEAR(buckets.at("wasted_gpu_ms").get<double>(), 1.0 * (11.0 / 18.0) / (29.0 / 18.0), 1e-9);
  EXPECT_DOUBLE_EQ(buckets.at("capture_ms").get<double>(), 0.5);
  EXPECT_EQ(buckets.at("verified"), true);
  const nlohmann::json& ways = seq.at("ways");
  ASSERT_EQ(ways.size(), 4u);
  for (const char* name : {"streams", "recapture", "exec_update", "buckets"}) {
    ASSERT_TRUE(ways.contains(name)) << name;
    for (const char* field : {"total_ms", "gpu_ms", "cpu_ms", "prepare_ms", "batches_computed", "verified",
                              "batches_checked"}) {
      EXPECT_TRUE(ways.at(name).contains(field)) << name << "." << field;
    }
    EXPECT_EQ(ways.at(name).at("total").at("samples_ms").size(), 3u);
  }
  EXPECT_DOUBLE_EQ(ways.at("buckets").at("total_ms").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(ways.at("recapture").at("prepare_ms").get<double>(), 6.0);
  EXPECT_EQ(seq.at("fastest"), "buckets");
  EXPECT_NEAR(seq.at("recapture_over_streams").get<double>(), 9.0 / 4.0, 1e-9);
  EXPECT_EQ(seq.at("claim"), "holds");
  EXPECT_EQ(seq.at("updates").at("refused"), 12);
  EXPECT_EQ(seq.at("updates").at("applied_other_batches"), 0);
  ASSERT_EQ(doc.at("conclusions").size(), 4u);
  EXPECT_THAT(doc.at("conclusions")[0].get<std::string>(), HasSubstr("buckets, 2.00 ms"));

  // The claim follows the figures in the JSON as in the verdict.
  ShapeSequenceCosts faster = made_up_sequence();
  faster.way(ShapeWay::recapture).total = ms(3.0);
  EXPECT_EQ(reported(faster).document().at("changing_shapes").at("sequence").at("claim"), "does_not_hold");
  faster.way(ShapeWay::recapture).total = ms(4.05);
  EXPECT_EQ(reported(faster).document().at("changing_shapes").at("sequence").at("claim"), "borderline");
}

TEST(ChangingShapesReport, TheVerdictsArePrintedAndCarriedInTheirOrder) {
  const Report report = reported(made_up_sequence());
  std::vector<std::string> ids;
  for (const Verdict& verdict : report.verdicts()) {
    ids.push_back(verdict.id);
    EXPECT_THAT(report.console(), HasSubstr(verdict.sentence));
  }
  EXPECT_THAT(ids, ElementsAre("changing_shapes.fastest", "changing_shapes.recapture", "changing_shapes.buckets",
                               "changing_shapes.exec_update"));
  const std::string text = report.console();
  EXPECT_THAT(text, AllOf(HasSubstr("4 requests of 1..9 batches each"), HasSubstr("batch counts: 3 9 1 5"),
                          HasSubstr("buckets: 1 2 4 8 16;"), HasSubstr("re-capture"), HasSubstr("exec update"),
                          HasSubstr("(5 runs checked"), Not(HasSubstr("FAILED"))));
  EXPECT_TRUE(report.passed());
}

TEST(ChangingShapesReport, MeasurementsCoverEveryWayAndAFailedWayFailsTheRun) {
  ShapeSequenceCosts seq = made_up_sequence();
  const std::vector<Measurement> measured = reported(seq).result.measurements;
  ASSERT_EQ(measured.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(measured[i].name, "changing_shapes");
    EXPECT_EQ(measured[i].params.at("way"), std::string(to_string(kAllShapeWays[i])));
    EXPECT_TRUE(measured[i].verified);
    // The useful work: the requested batches' FLOPs, whatever the way computed.
    EXPECT_DOUBLE_EQ(measured[i].work.flops, 18 * 2.0 * 32 * 32 * 32);
  }
  EXPECT_DOUBLE_EQ(measured[3].stats.median_ms, 2.0);

  seq.way(ShapeWay::buckets).check.passed = false;
  seq.way(ShapeWay::buckets).check.first_failure = Mismatch{7, 1, 2, 3.0, -1.0, "sampled"};
  const Report failed = reported(seq);
  EXPECT_FALSE(failed.result.measurements[3].verified);
  EXPECT_FALSE(failed.passed());
  EXPECT_THAT(failed.console(), HasSubstr("FAILED: verification failed: batch 7"));
}

// ---- options ----------------------------------------------------------------

ChangingShapesConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm", "test");
  add_changing_shapes_options(cli);
  if (!cli.parse(args)) throw std::logic_error("--help");
  return read_changing_shapes_options(cli);
}

// Every field an option sets, `got` against `want`: one check each.
void expect_options(const ChangingShapesConfig& got, const ChangingShapesConfig& want) {
  EXPECT_EQ(got.requests, want.requests);
  EXPECT_EQ(got.max_batches, want.max_batches);
  EXPECT_EQ(got.seed, want.seed);
  EXPECT_EQ(got.size, want.size);
  EXPECT_EQ(got.rounds, want.rounds);
}

TEST(ChangingShapesOptions, DefaultsAndValues) {
  const ChangingShapesConfig d = parse({});
  expect_options(d, {.requests = 50, .max_batches = 100, .seed = 1u, .size = 256, .rounds = 3});
  EXPECT_TRUE(d.sequence_on());
  const ChangingShapesConfig c = parse({"--shape-requests", "6", "--shape-max-batches", "9", "--shape-seed", "42",
                                        "--shape-size", "0", "--shape-rounds", "2"});
  expect_options(c, {.requests = 6, .max_batches = 9, .seed = 42u, .size = 0, .rounds = 2});
}

class ChangingShapesBadOptions : public ::testing::TestWithParam<std::vector<std::string>> {};

TEST_P(ChangingShapesBadOptions, AreUsageErrors) { EXPECT_THROW(parse(GetParam()), UsageError); }

INSTANTIATE_TEST_SUITE_P(
    Each, ChangingShapesBadOptions,
    ::testing::Values(std::vector<std::string>{"--shape-requests", "-1"},
                      // the subcommand is the sequence: no request, nothing to measure
                      std::vector<std::string>{"--shape-requests", "0"},
                      std::vector<std::string>{"--shape-requests", "many"},
                      std::vector<std::string>{"--shape-max-batches", "0"},
                      std::vector<std::string>{"--shape-max-batches", "1025"},
                      std::vector<std::string>{"--shape-size", "-3"}, std::vector<std::string>{"--shape-size", "4097"},
                      std::vector<std::string>{"--shape-rounds", "0"},
                      std::vector<std::string>{"--node-updates", "on"},  // its own subcommand now: node-updates
                      std::vector<std::string>{"--shape-seed", "-1"},
                      // The same values glued to their flags, so the range itself is what refuses them.
                      std::vector<std::string>{"--shape-requests=-1"}, std::vector<std::string>{"--shape-max-batches=0"},
                      std::vector<std::string>{"--shape-size=-1"}, std::vector<std::string>{"--shape-rounds=0"},
                      std::vector<std::string>{"--shape-seed=-1"}),
    [](const ::testing::TestParamInfo<std::vector<std::string>>& param_info) {
      return testing::words_name(param_info.index, param_info.param);
    });

}  // namespace cpu_changing_shapes
}  // namespace csg::graphs
