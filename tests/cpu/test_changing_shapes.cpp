// The changing-shapes experiment's pieces that need no GPU: the seeded sequence of batch counts,
// the buckets and the padding arithmetic, the estimate, every sentence the
// experiment prints (each branch on made-up figures), its JSON and
// measurements, and its options (refusals are UsageError, before any CUDA call).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/changing_shapes_report.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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

// ---- conclusions ------------------------------------------------------------

std::array<double, kShapeWays> totals(double streams, double recapture, double update, double buckets) {
  return {streams, recapture, update, buckets};
}

TEST(ChangingShapesConclusions, TheFastestWayIsNamedFirst) {
  EXPECT_EQ(fastest_way(totals(10, 20, 19, 30)), ShapeWay::streams);
  EXPECT_EQ(fastest_way(totals(10, 5, 19, 30)), ShapeWay::recapture);
  EXPECT_EQ(fastest_way(totals(10, 20, 4, 30)), ShapeWay::exec_update);
  EXPECT_EQ(fastest_way(totals(10, 20, 19, 3)), ShapeWay::buckets);
  const std::string buckets = fastest_text(totals(14.0, 28.0, 27.0, 7.0), 50);
  EXPECT_TRUE(contains(buckets, "over 50 requests: buckets, 7.00 ms")) << buckets;
  EXPECT_TRUE(contains(buckets, "streams 14.00 ms (2.00x as long)")) << buckets;
  EXPECT_TRUE(contains(buckets, "re-capture 28.00 ms (4.00x as long)")) << buckets;
  const std::string streams = fastest_text(totals(10.0, 20.0, 19.0, 30.0), 50);
  EXPECT_TRUE(contains(streams, "requests: streams, 10.00 ms")) << streams;
  EXPECT_TRUE(contains(fastest_text(totals(10, 5, 19, 30), 5), "requests: re-capture, 5.00 ms"));
  EXPECT_TRUE(contains(fastest_text(totals(10, 20, 4, 30), 5), "requests: exec update, 4.00 ms"));
  // Within 3%: named as equals, not as slower.
  const std::string tie = fastest_text(totals(10.2, 20.0, 19.0, 10.0), 50);
  EXPECT_TRUE(contains(tie, "streams 10.20 ms (about as fast: within 3%)")) << tie;
}

TEST(ChangingShapesConclusions, TheClaimHoldsIsBorderlineOrDoesNotHold) {
  EXPECT_EQ(recapture_verdict(30.0, 10.0), ClaimVerdict::holds);
  EXPECT_EQ(recapture_verdict(10.2, 10.0), ClaimVerdict::borderline);
  EXPECT_EQ(recapture_verdict(9.8, 10.0), ClaimVerdict::borderline);
  EXPECT_EQ(recapture_verdict(8.0, 10.0), ClaimVerdict::does_not_hold);
  // 30 ms end to end, 25 of them capturing: the graphs then took 5 ms where the streams took 10.
  const std::string holds = recapture_text(30.0, 25.0, 10.0);
  EXPECT_TRUE(contains(holds, "cost the CPU 25.00 ms")) << holds;
  EXPECT_TRUE(contains(holds, "finished 5.00 ms sooner than the streams")) << holds;
  EXPECT_TRUE(contains(holds, "3.00x the streams' time")) << holds;
  EXPECT_TRUE(contains(holds, "The article's claim holds at this size")) << holds;
  const std::string no_saving = recapture_text(40.0, 25.0, 10.0);
  EXPECT_TRUE(contains(no_saving, "were no faster than the streams (5.00 ms slower)")) << no_saving;
  const std::string borderline = recapture_text(10.1, 2.0, 10.0);
  EXPECT_TRUE(contains(borderline, "claim is borderline")) << borderline;
  const std::string fails = recapture_text(8.0, 1.0, 10.0);
  EXPECT_TRUE(contains(fails, "finished 3.00 ms sooner")) << fails;
  EXPECT_TRUE(contains(fails, "1.25x faster than the streams")) << fails;
  EXPECT_TRUE(contains(fails, "claim does not hold at this size")) << fails;
  EXPECT_FALSE(contains(fails, "claim holds")) << fails;
}

TEST(ChangingShapesConclusions, TheBucketsPaddingAgainstTheStreams) {
  // 2525 requested, 3670 computed (45%); 8 ms of buckets against 16 of streams
  // over 50 requests: 0.16 ms saved per request repays 4 ms up front after 25.
  const std::string wins = bucket_text(2525, 3670, 8.0, 7.25, 16.0, 4.0, 8, 50);
  EXPECT_TRUE(contains(wins, "padded the 2525 requested batches to 3670 (45% more work")) << wins;
  EXPECT_TRUE(contains(wins, "about " + fixed(wasted_gpu_ms(7.25, 3670.0 / 2525 - 1), 2) + " ms of GPU time"))
      << wins;
  EXPECT_TRUE(contains(wins, "still finished 2.00x faster than the streams")) << wins;
  EXPECT_TRUE(contains(wins, "8 buckets (4.00 ms) is repaid after 25.0 requests")) << wins;
  const std::string same = bucket_text(2525, 3670, 16.2, 15.0, 16.0, 4.0, 8, 50);
  EXPECT_TRUE(contains(same, "about as fast as the streams")) << same;
  EXPECT_TRUE(contains(same, "the padding ate what the launches saved")) << same;
  // 24 ms with 23 of GPU, 31% of which (7.2 ms) padding: 16.8 ms without it, about the streams' 16.
  const std::string padding_loses = bucket_text(2525, 3670, 24.0, 23.0, 16.9, 4.0, 8, 50);
  EXPECT_TRUE(contains(padding_loses, "1.42x the streams' time")) << padding_loses;
  EXPECT_TRUE(contains(padding_loses, "Without the padding they would have beaten the streams")) << padding_loses;
  const std::string graphs_lose = bucket_text(2525, 3670, 24.0, 23.0, 16.0, 4.0, 8, 50);
  EXPECT_TRUE(contains(graphs_lose, "1.50x the streams' time")) << graphs_lose;
  EXPECT_TRUE(contains(graphs_lose, "Even without the padding they would not have beaten the streams"))
      << graphs_lose;
  // No padding at all (every request a power of two).
  const std::string exact = bucket_text(64, 64, 8.0, 7.0, 16.0, 4.0, 7, 10);
  EXPECT_TRUE(contains(exact, "no padding; they finished 2.00x faster")) << exact;
  EXPECT_FALSE(contains(exact, "GPU time spent on padding")) << exact;
  const std::string exact_loses = bucket_text(64, 64, 20.0, 19.0, 16.0, 4.0, 7, 10);
  EXPECT_TRUE(contains(exact_loses, "no gain from ready graphs here")) << exact_loses;
}

TEST(ChangingShapesConclusions, UpdateCountsSayWhyTheUpdateCantHelp) {
  UpdateCounts counts;
  counts.attempts = 150;
  counts.applied_same_batches = 2;
  counts.refused = 148;
  counts.instantiations = 148;
  counts.refused_result = "cudaErrorGraphExecUpdateFailure: cudaGraphExecUpdateErrorTopologyChanged";
  const std::string usual = update_counts_text(counts, 30.5, 31.0);
  EXPECT_TRUE(contains(usual, "2 of 150 updates applied")) << usual;
  EXPECT_TRUE(contains(usual, "148 refused (cudaErrorGraphExecUpdateFailure: "
                              "cudaGraphExecUpdateErrorTopologyChanged)"))
      << usual;
  EXPECT_TRUE(contains(usual, "the update can't help")) << usual;
  EXPECT_TRUE(contains(usual, "about as fast as (within 3%) re-capture + instantiate")) << usual;
  EXPECT_TRUE(contains(update_counts_text(counts, 20.0, 30.0), "1.50x faster than re-capture"));
  UpdateCounts none = counts;
  none.applied_same_batches = 150;
  none.refused = 0;
  none.refused_result.clear();
  const std::string all_applied = update_counts_text(none, 10.0, 30.0);
  EXPECT_TRUE(contains(all_applied, "150 of 150 updates applied")) << all_applied;
  EXPECT_FALSE(contains(all_applied, "can't help")) << all_applied;
  UpdateCounts odd = counts;
  odd.applied_other_batches = 1;
  EXPECT_TRUE(contains(update_counts_text(odd, 30.0, 31.0), "applied 1 update between different batch counts: "
                                                            "unexpected"));
}

TEST(ChangingShapesConclusions, NodeLevelUpdatesAgainstWholeGraphAndRecapture) {
  const std::string fastest = node_update_text(0.60, 0.15, 2.1, 300, "");
  EXPECT_TRUE(contains(fastest, "node by node (300 SetParams calls, no capture) took 0.150 ms")) << fastest;
  EXPECT_TRUE(contains(fastest, "4.00x faster than capture + cudaGraphExecUpdate (0.600 ms)")) << fastest;
  EXPECT_TRUE(contains(fastest, "14.00x faster than re-capture + instantiate")) << fastest;
  EXPECT_TRUE(contains(fastest, "skips the capture")) << fastest;
  const std::string slow = node_update_text(0.60, 0.61, 2.1, 300, "");
  EXPECT_TRUE(contains(slow, "cost as much as capturing the graph again")) << slow;
  const std::string none =
      node_update_text(0.60, std::nullopt, 2.1, 0, "node-level update: naive kernel only (this run's kernel is tiled");
  EXPECT_TRUE(contains(none, "node-level update: naive kernel only")) << none;
  EXPECT_TRUE(contains(none, "3.50x faster than re-capture + instantiate (2.100 ms)")) << none;
  EXPECT_FALSE(contains(none, "SetParams calls")) << none;
}

// ---- results ----------------------------------------------------------------

using testing::ms;

VerifyResult passed(int batches) {
  VerifyResult v;
  v.passed = true;
  v.batches_checked = batches;
  return v;
}

ChangingShapesRun made_up_run() {
  ChangingShapesRun run;
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
  run.config = seq.config;
  run.sequence = seq;
  // 100 batches: 100 kernel and 200 copy nodes; whole graph 0.6 ms, node by
  // node 0.2 ms, re-capture 2.1 ms; no note; every switch verified.
  run.node_updates =
      NodeUpdateCosts{100, 100, 200, ms(0.6), ms(0.2), ms(2.1), "", passed(100), passed(100), passed(100)};
  return run;
}

TEST(ChangingShapesReport, TheJsonHoldsEveryFigureAndFollowsFromThem) {
  const ChangingShapesRun run = made_up_run();
  const nlohmann::json doc = changing_shapes_json(run);
  EXPECT_EQ(doc.at("requests"), 4);
  EXPECT_EQ(doc.at("max_batches"), 9);
  EXPECT_EQ(doc.at("rounds"), 3);
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
  const nlohmann::json& nodes = doc.at("node_updates");
  EXPECT_EQ(nodes.at("kernel_nodes"), 100);
  EXPECT_EQ(nodes.at("memcpy_nodes"), 200);
  EXPECT_DOUBLE_EQ(nodes.at("node_level_ms").get<double>(), 0.2);
  EXPECT_EQ(nodes.at("verified"), true);
  EXPECT_EQ(doc.at("conclusions").size(), 5u);
  EXPECT_TRUE(contains(doc.at("conclusions")[0].get<std::string>(), "buckets, 2.00 ms"));

  // The other verdicts reach the JSON as well.
  ChangingShapesRun faster = run;
  faster.sequence->way(ShapeWay::recapture).total = ms(3.0);
  EXPECT_EQ(changing_shapes_json(faster).at("sequence").at("claim"), "does_not_hold");
  faster.sequence->way(ShapeWay::recapture).total = ms(4.05);
  EXPECT_EQ(changing_shapes_json(faster).at("sequence").at("claim"), "borderline");
}

TEST(ChangingShapesReport, PartsThatDidNotRunAreNull) {
  ChangingShapesRun run = made_up_run();
  run.sequence.reset();
  nlohmann::json doc = changing_shapes_json(run);
  EXPECT_TRUE(doc.at("sequence").is_null());
  EXPECT_FALSE(doc.at("node_updates").is_null());
  EXPECT_EQ(doc.at("conclusions").size(), 1u);
  run.node_updates->node_level.reset();
  run.node_updates->node_level_check.reset();
  run.node_updates->node_level_note = "node-level update: naive kernel only (this run's kernel is cublas)";
  doc = changing_shapes_json(run);
  EXPECT_TRUE(doc.at("node_updates").at("node_level_ms").is_null());
  EXPECT_TRUE(contains(doc.at("node_updates").at("node_level_note").get<std::string>(), "naive kernel only"));
  run.node_updates.reset();
  doc = changing_shapes_json(run);
  EXPECT_TRUE(doc.at("node_updates").is_null());
  EXPECT_TRUE(doc.at("conclusions").empty());
  EXPECT_TRUE(changing_shapes_measurements(run).empty());
  EXPECT_TRUE(changing_shapes_checks(run).empty());
}

TEST(ChangingShapesReport, MeasurementsAndChecksCoverEveryWayAndSwitch) {
  ChangingShapesRun run = made_up_run();
  const std::vector<Measurement> ms_list = changing_shapes_measurements(run);
  ASSERT_EQ(ms_list.size(), 7u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ms_list[i].name, "changing_shapes");
    EXPECT_EQ(ms_list[i].params.at("way"), std::string(to_string(kAllShapeWays[i])));
    EXPECT_TRUE(ms_list[i].verified);
    // The useful work: the requested batches' FLOPs, whatever the way computed.
    EXPECT_DOUBLE_EQ(ms_list[i].work.flops, 18 * 2.0 * 32 * 32 * 32);
  }
  EXPECT_DOUBLE_EQ(ms_list[3].stats.median_ms, 2.0);
  EXPECT_EQ(ms_list[4].params.at("how"), "whole_graph");
  EXPECT_EQ(ms_list[5].params.at("how"), "node_level");
  EXPECT_EQ(ms_list[6].params.at("how"), "recapture_instantiate");
  EXPECT_EQ(changing_shapes_checks(run).size(), 8u);

  // A failed check shows in its measurement, in the checks and in the printed section.
  run.sequence->way(ShapeWay::buckets).check.passed = false;
  run.sequence->way(ShapeWay::buckets).check.first_failure = Mismatch{7, 1, 2, 3.0, -1.0, "sampled"};
  EXPECT_FALSE(changing_shapes_measurements(run)[3].verified);
  const auto checks = changing_shapes_checks(run);
  EXPECT_EQ(std::count_if(checks.begin(), checks.end(), [](const VerifyResult* c) { return !c->passed; }), 1);
  std::ostringstream out;
  print_changing_shapes(out, run);
  EXPECT_TRUE(contains(out.str(), "FAILED: verification failed: batch 7")) << out.str();
}

TEST(ChangingShapesReport, ThePrintedSectionShowsTheTableAndEverySentence) {
  const ChangingShapesRun run = made_up_run();
  std::ostringstream out;
  print_changing_shapes(out, run);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "4 requests of 1..9 batches each")) << text;
  EXPECT_TRUE(contains(text, "batch counts: 3 9 1 5")) << text;
  EXPECT_TRUE(contains(text, "buckets: 1 2 4 8 16;")) << text;
  for (const char* way : {"streams", "re-capture", "exec update", "buckets"}) EXPECT_TRUE(contains(text, way));
  for (const std::string& line : changing_shapes_conclusions(run)) EXPECT_TRUE(contains(text, line)) << line;
  EXPECT_TRUE(contains(text, "node by node (SetParams)")) << text;
  EXPECT_FALSE(contains(text, "FAILED")) << text;
  std::ostringstream nothing;
  print_changing_shapes(nothing, ChangingShapesRun{});
  EXPECT_TRUE(nothing.str().empty());
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

TEST(ChangingShapesOptions, BadValuesAreUsageErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--shape-requests", "-1"},
           {"--shape-requests", "0"},  // the subcommand is the sequence: no request, nothing to measure
           {"--shape-requests", "many"},
           {"--shape-max-batches", "0"},
           {"--shape-max-batches", "1025"},
           {"--shape-size", "-3"},
           {"--shape-size", "4097"},
           {"--shape-rounds", "0"},
           {"--node-updates", "on"},  // its own subcommand now: node-updates
           {"--shape-seed", "-1"},
           // The same values glued to their flags, so the range itself is what refuses them.
           {"--shape-requests=-1"},
           {"--shape-max-batches=0"},
           {"--shape-size=-1"},
           {"--shape-rounds=0"},
           {"--shape-seed=-1"},
       }) {
    EXPECT_THROW(parse(args), UsageError) << args.front() << " " << args.back();
  }
}

}  // namespace
}  // namespace csg::graphs
