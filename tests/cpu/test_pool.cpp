// The stream-pool pieces that need no GPU: the pipeline bound's arithmetic,
// stage 03's sentences and JSON built from made-up figures, the device slots a
// run allocates, and stage 03's own options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "matchers.hpp"
#include "03_stream_pool_gemm/conclusions.hpp"
#include "03_stream_pool_gemm/report.hpp"
#include "report/conclusions.hpp"
#include "base/errors.hpp"
#include "cli/pool_options.hpp"
#include "made_up.hpp"
#include "measure/pipeline_bound.hpp"
#include "measure/stage_sums.hpp"
#include "run_process.hpp"
#include "subcommand_checks.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace cpu_pool {

using pool::SweepVerdict;

// 100 batches alone on one stream: H2D 4 ms, kernels 18 ms, D2H 8 ms, so
// one batch's shares are 0.04, 0.18 and 0.08 ms.
constexpr StageTimes kOneStream{4.0, 18.0, 8.0};

TEST(PipelineBound, EachPathIsItsResourceAloneOnTheVariantsStreamsPlusFillAndDrain) {
  // On 8 streams the kernels alone take 16 ms: less than the one-stream sum.
  // One op is the smaller of its share and its resource alone / 100: H2D
  // 0.04 (4.1 / 100 is more), kernel 0.16 (16 / 100), D2H 0.079 (7.9 / 100).
  const PipelineBound bound = pipeline_bound({16.0, 4.1, 7.9, 8.5, 0.8}, kOneStream, 100, 8);
  EXPECT_DOUBLE_EQ(bound.kernel_path_ms, 0.04 + 16.0 + 0.079);
  EXPECT_DOUBLE_EQ(bound.h2d_path_ms, 4.1 + 0.16 + 0.079);
  EXPECT_DOUBLE_EQ(bound.d2h_path_ms, 0.04 + 0.16 + 7.9);
  EXPECT_DOUBLE_EQ(bound.both_ways_ms, 8.5);
  EXPECT_DOUBLE_EQ(bound.host_issue_ms, 0.8);
  EXPECT_DOUBLE_EQ(bound.stream_order_ms, 13 * (0.04 + 0.16 + 0.079)) << "stream 0 runs batches 0, 8, ..., 96";
  EXPECT_DOUBLE_EQ(bound.bound_ms, 16.119);
  EXPECT_EQ(bound.limited_by, BoundPath::kernels);
  EXPECT_EQ(to_string(regime_of(bound)), "compute-bound");
}

TEST(PipelineBound, TheFillAndDrainLeaveOutTheTimingsFixedCost) {
  // Every timed region costs 5 us on top of its ops (the host issuing the
  // first op after the start event); the ops take 1, 2 and 3 us each.
  const double fixed = 0.005, h2d = 0.001, kernel = 0.002, d2h = 0.003;
  auto times = [&](int batches) {
    return StageTimes{fixed + batches * h2d, fixed + batches * kernel, fixed + batches * d2h,
                      fixed + h2d,           fixed + kernel,           fixed + d2h};
  };
  EXPECT_NEAR(one_batch_share(fixed + 10 * kernel, fixed + kernel, 10), kernel, 1e-12);
  EXPECT_DOUBLE_EQ(one_batch_share(0.4, 0.3, 1), 0.0) << "one batch: the sum is the first op";
  EXPECT_DOUBLE_EQ(one_batch_share(0.3, 0.4, 5), 0.0) << "noise never makes a share negative";
  EXPECT_DOUBLE_EQ(one_batch_share(4.0, 0.0, 100), 0.04) << "no first op measured: the sum / batches";
  EXPECT_THROW((void)one_batch_share(1.0, 0.5, 0), std::invalid_argument);

  // Ten batches, each resource alone on the pool's streams a little more
  // than ten ops: the path adds one H2D and one D2H, not 1/10 of the fixed
  // cost twice.
  const PipelineBound ten = pipeline_bound({0.025, 0.012, 0.032, 0.04, 0.0}, times(10), 10, 10);
  EXPECT_NEAR(ten.kernel_path_ms, h2d + 0.025 + d2h, 1e-12);
  EXPECT_NEAR(ten.h2d_path_ms, 0.012 + kernel + d2h, 1e-12);
  EXPECT_NEAR(ten.d2h_path_ms, h2d + kernel + 0.032, 1e-12);
  EXPECT_NEAR(ten.stream_order_ms, h2d + kernel + d2h, 1e-12) << "one batch per stream, without the fixed cost";
  // One batch: nothing to add to any path; the largest resource alone is the bound.
  const PipelineBound one = pipeline_bound({0.009, 0.007, 0.008, 0.010, 0.012}, times(1), 1, 8);
  EXPECT_DOUBLE_EQ(one.kernel_path_ms, 0.009);
  EXPECT_DOUBLE_EQ(one.d2h_path_ms, 0.008);
  EXPECT_DOUBLE_EQ(one.stream_order_ms, 0.0) << "one batch: its ops can't be told from the fixed cost";
  EXPECT_DOUBLE_EQ(one.bound_ms, 0.012);
  EXPECT_EQ(one.limited_by, BoundPath::host_issue);
}

TEST(PipelineBound, TheLargestPathSetsTheBoundAndNamesTheRegime) {
  const PipelineBound d2h = pipeline_bound({2.0, 4.0, 8.0, 7.0, 1.0}, {4.0, 2.0, 8.0}, 100, 8);
  EXPECT_EQ(d2h.limited_by, BoundPath::d2h);
  EXPECT_DOUBLE_EQ(d2h.bound_ms, 0.04 + 0.02 + 8.0);
  EXPECT_EQ(to_string(regime_of(d2h)), "PCIe-bound");
  const PipelineBound both = pipeline_bound({2.0, 4.0, 8.0, 10.0, 1.0}, {4.0, 2.0, 8.0}, 100, 8);
  EXPECT_EQ(both.limited_by, BoundPath::both_ways);
  EXPECT_DOUBLE_EQ(both.bound_ms, 10.0);
  EXPECT_EQ(to_string(regime_of(both)), "PCIe-bound");
  const PipelineBound h2d = pipeline_bound({2.0, 9.0, 1.0, 9.1, 0.0}, {9.0, 2.0, 1.0}, 10, 8);
  EXPECT_EQ(h2d.limited_by, BoundPath::h2d);
  EXPECT_DOUBLE_EQ(h2d.bound_ms, 9.0 + 0.2 + 0.1);
  // 1000 tiny batches: issuing them takes the host longer than any resource needs.
  const PipelineBound issue = pipeline_bound({5.5, 2.0, 2.0, 3.0, 9.4}, {2.0, 6.0, 2.0}, 1000, 8);
  EXPECT_EQ(issue.limited_by, BoundPath::host_issue);
  EXPECT_DOUBLE_EQ(issue.bound_ms, 9.4);
  EXPECT_EQ(to_string(regime_of(issue)), "launch-bound");
  EXPECT_THROW(pipeline_bound({1.0, 1.0, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0}, 0, 8), std::invalid_argument);
  EXPECT_THROW(pipeline_bound({1.0, 1.0, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0}, 1, -1), std::invalid_argument);
}

TEST(PipelineBound, TooFewStreamsAreBoundByTheStreamOrder) {
  // The article's 100 batches alone on one stream: H2D 4.05, kernels 17.15,
  // D2H 7.79 ms. A pool of one stream runs each batch's three ops one after
  // another: no resource path comes near that.
  const StageTimes sums{4.05, 17.15, 7.79};
  const ResourceTimes one_stream{17.18, 4.06, 7.78, 12.7, 1.0};
  const PipelineBound one = pipeline_bound(one_stream, sums, 100, 1);
  // Each op the smaller of its share and its resource alone / 100 (D2H 0.0778).
  EXPECT_NEAR(one.stream_order_ms, 4.05 + 17.15 + 7.78, 1e-9);
  EXPECT_EQ(one.limited_by, BoundPath::stream_order);
  EXPECT_EQ(to_string(regime_of(one)), "stream-order-bound");
  // Two streams: 50 batches each, 14.4 ms, under the kernels' 15.9 ms (whose
  // alone / 100 is now the kernel's op: 0.1593, less than its share 0.1715).
  const PipelineBound two = pipeline_bound({15.93, 4.10, 7.83, 8.26, 1.1}, sums, 100, 2);
  EXPECT_NEAR(two.stream_order_ms, 50 * (4.05 + 15.93 + 7.79) / 100, 1e-9);
  EXPECT_EQ(two.limited_by, BoundPath::kernels);
  // Uneven: 7 batches on 5 streams, stream 0 runs two of them.
  EXPECT_NEAR(pipeline_bound({7.0, 7.0, 7.0, 7.0, 0.0}, {7.0, 7.0, 7.0}, 7, 5).stream_order_ms, 2 * 3.0, 1e-9);
  // A variant that spreads each batch over several streams (one per engine) has no stream order.
  const PipelineBound engines = pipeline_bound(one_stream, sums, 100, 0);
  EXPECT_DOUBLE_EQ(engines.stream_order_ms, 0.0);
  EXPECT_EQ(engines.limited_by, BoundPath::kernels);

  EXPECT_EQ(busiest_stream_batches(100, 8), 13);
  EXPECT_EQ(busiest_stream_batches(1, 8), 1);
  EXPECT_EQ(busiest_stream_batches(2147483647, 1), 2147483647);
  EXPECT_EQ(busiest_stream_batches(2147483647, 1024), 2097152);
  EXPECT_THROW((void)busiest_stream_batches(0, 8), std::invalid_argument);
  EXPECT_THROW((void)busiest_stream_batches(8, 0), std::invalid_argument);
}

TEST(PipelineBound, TheBusiestStreamAsMeasuredSetsTheBoundWhenItIsTheLongestPath) {
  // 1000 GEMMs of 128^3 on one stream (made up, the shape of an H200 run):
  // the one-stream sums add up one batch's shares to 3.2 ms, but on a stream
  // that alternates H2D, kernel and D2H each op also waits for the one
  // before on another engine, and the busiest stream's 1000 batches alone
  // took 5.0 ms: the measured path is the longest, and the pool's 5.1 ms
  // reads 98% of it instead of 63% of the computed stream order.
  const StageTimes sums{1.0, 1.2, 1.0, 0.006, 0.0072, 0.006};
  const ResourceTimes one{1.2, 1.0, 1.0, 1.9, 3.0, 5.0};
  const PipelineBound bound = pipeline_bound(one, sums, 1000, 1);
  EXPECT_NEAR(bound.stream_order_ms, 1000 * (0.994 + 1.1928 + 0.994) / 999, 1e-9);
  EXPECT_DOUBLE_EQ(bound.busiest_stream_ms, 5.0);
  EXPECT_EQ(bound.limited_by, BoundPath::busiest_stream);
  EXPECT_DOUBLE_EQ(bound.bound_ms, 5.0);
  EXPECT_EQ(to_string(regime_of(bound)), "stream-order-bound");
  EXPECT_NEAR(percent_of_bound(bound, 5.1), 98.04, 0.01);
  // Two streams: each runs 500 batches; alone on one stream they took 2.6 ms,
  // less than the host's 3.0 ms to issue the run, which then sets the bound.
  const PipelineBound two = pipeline_bound({1.1, 1.0, 1.0, 1.9, 3.0, 2.6}, sums, 1000, 2);
  EXPECT_DOUBLE_EQ(two.busiest_stream_ms, 2.6);
  EXPECT_EQ(two.limited_by, BoundPath::host_issue);
  // One batch a stream (8 batches on 8 streams): a run of it alone is mostly
  // the timing's fixed cost, and the path plays no part.
  const PipelineBound one_each = pipeline_bound({1.2, 1.0, 1.0, 1.9, 0.5, 5.0}, sums, 8, 8);
  EXPECT_DOUBLE_EQ(one_each.busiest_stream_ms, 0.0);
  EXPECT_NE(one_each.limited_by, BoundPath::busiest_stream);
  EXPECT_DOUBLE_EQ(pipeline_bound({1.2, 1.0, 1.0, 1.9, 0.5, 5.0}, sums, 9, 8).busiest_stream_ms, 5.0)
      << "two batches on the busiest stream";
  // Not measured (0): the path plays no part, as before it existed.
  const PipelineBound unmeasured = pipeline_bound({1.2, 1.0, 1.0, 1.9, 3.0}, sums, 1000, 1);
  EXPECT_DOUBLE_EQ(unmeasured.busiest_stream_ms, 0.0);
  EXPECT_EQ(unmeasured.limited_by, BoundPath::stream_order);
}

// The busiest stream's batches alone: through the pool's loop, only the
// batches of stream 0 (0, S, 2S, ...) issue their ops, every kind of op alike.
TEST(PipelineBound, TheBusiestStreamRunIssuesOnlyStreamZerosBatches) {
  std::vector<int> h2d, compute, d2h;
  const BatchOps all{[&](int batch, cudaStream_t) { h2d.push_back(batch); },
                     [&](int batch, cudaStream_t) { compute.push_back(batch); },
                     [&](int batch, cudaStream_t) { d2h.push_back(batch); }};
  const BatchOps zero = stream_zero_ops(all, 3);
  for (int batch = 0; batch < 10; ++batch) {
    zero.h2d(batch, nullptr);
    zero.compute(batch, nullptr);
    zero.d2h(batch, nullptr);
  }
  EXPECT_THAT(h2d, ::testing::ElementsAre(0, 3, 6, 9));
  EXPECT_EQ(compute, h2d);
  EXPECT_EQ(d2h, h2d);
  EXPECT_EQ(std::ssize(h2d), busiest_stream_batches(10, 3));
  h2d.clear();
  const BatchOps one = stream_zero_ops(all, 1);
  for (int batch = 0; batch < 4; ++batch) one.h2d(batch, nullptr);
  EXPECT_THAT(h2d, ::testing::ElementsAre(0, 1, 2, 3)) << "one stream runs every batch";
  EXPECT_THROW((void)stream_zero_ops(all, 0), std::invalid_argument);
}

TEST(PipelineBound, AOneStreamSumThatRanSlowDoesNotStretchTheFillAndDrain) {
  // Measured on an H200: 6 batches on 3 streams, the 6 D2H copies took
  // 0.858 ms on one stream but 0.472 ms alone on the pool's 3 streams. The
  // share (0.858 - 0.083) / 5 = 0.155 ms made the drain twice a copy and the
  // bound 1.17 ms, 5% above the pool's 1.116 ms; capped by 0.472 / 6 it is
  // 0.079 ms and the bound holds.
  const StageTimes sums{0.2514, 1.016, 0.858, 0.0467, 0.1822, 0.0828};
  const PipelineBound bound = pipeline_bound({0.9762, 0.2517, 0.4721, 0.5369, 0.07}, sums, 6, 3);
  EXPECT_NEAR(bound.kernel_path_ms, (0.2514 - 0.0467) / 5 + 0.9762 + 0.4721 / 6, 1e-12);
  EXPECT_LT(bound.bound_ms, 1.1155) << "the pool's measured median";
}

TEST(PipelineBound, PercentOfBoundAndTheNoiseItIsAllowed) {
  const PipelineBound bound = pipeline_bound({16.0, 4.1, 7.9, 8.5, 0.8}, kOneStream, 100, 8);
  EXPECT_NEAR(percent_of_bound(bound, 16.119), 100.0, 1e-9);
  EXPECT_NEAR(percent_of_bound(bound, 32.238), 50.0, 1e-9);
  EXPECT_GT(percent_of_bound(bound, 15.0), 100.0) << "a run under its bound reads above 100%";
  EXPECT_EQ(percent_of_bound(bound, 0.0), 0.0) << "nothing measured: 0, not infinity";
  EXPECT_DOUBLE_EQ(bound_tolerance(10.0, 9.99, 8.0, 7.99), 0.02) << "the floor";
  const double jitter = kTimingJitterMs / 10.0;  // 0.02%: a 10 ms run
  EXPECT_DOUBLE_EQ(bound_tolerance(10.0, 9.0, 8.0, 8.0), 0.1 + jitter) << "the run's own spread";
  EXPECT_DOUBLE_EQ(bound_tolerance(10.0, 10.0, 8.0, 6.0), 8.0 / 6.0 - 1.0 + jitter)
      << "the limiting path's median over its fastest round: a run may reach that round";
  EXPECT_DOUBLE_EQ(bound_tolerance(10.0, 9.0, 8.0, 6.0), 0.1 + 8.0 / 6.0 - 1.0 + jitter)
      << "both, added: the ratio of two medians";
  EXPECT_DOUBLE_EQ(bound_tolerance(0.03, 0.03, 0.03, 0.03), kTimingJitterMs / 0.03)
      << "a 30 us region: the timing's own jitter, 2 us, is 6.7% of it";
}

// ---- stage 03's verdicts, each branch on made-up figures ----

TEST(Stage03Verdicts, ThePlateauIsWhereTimeStopsImprovingAndWhereItGetsWorse) {
  // The article's size on an H200: 2 streams already at the plateau, nothing worse.
  const std::vector<pool::SweepPoint> article = {{1, 30.1}, {2, 16.19}, {4, 16.06}, {8, 16.06}, {16, 16.07}, {32, 16.07}};
  SweepVerdict flat = pool::judge_sweep(article);
  EXPECT_EQ(flat.plateau_streams, 2);
  EXPECT_EQ(flat.best_streams, 4);
  EXPECT_TRUE(flat.worse.empty());
  const Verdict plateau = pool::plateau_verdict("pool.plateau", article);
  EXPECT_EQ(plateau.id, "pool.plateau");
  EXPECT_EQ(plateau.outcome, "plateau");
  EXPECT_THAT(plateau.sentence, AllOf(HasSubstr("time stops improving at 2 streams (within 2% of the best, 16.06 ms at "
                                                "4)"),
                                      HasSubstr("neither help nor hurt")));
  EXPECT_EQ(plateau.figures.at("plateau_streams"), 2);
  EXPECT_EQ(plateau.figures.at("points").size(), article.size());
  EXPECT_DOUBLE_EQ(plateau.threshold.at("plateau_within").get<double>(), pool::kPlateauWithin);
  EXPECT_DOUBLE_EQ(plateau.threshold.at("worse_by").get<double>(), pool::kWorseBy);
  // 1000 small batches: more streams got slower.
  const std::vector<pool::SweepPoint> small = {{1024, 9.22}, {8, 6.74}, {1, 20.0}, {256, 7.70}, {64, 6.80}};
  SweepVerdict worse = pool::judge_sweep(small);
  EXPECT_EQ(worse.plateau_streams, 8);
  EXPECT_THAT(worse.worse, ElementsAre(256, 1024));
  EXPECT_EQ(worse.worst_streams, 1024);
  const Verdict slower = pool::plateau_verdict("count_sweep.plateau", small);
  EXPECT_EQ(slower.outcome, "plateau_then_slower");
  EXPECT_THAT(slower.sentence, AllOf(HasSubstr("larger pools got slower: 256, 1024 streams"),
                                     HasSubstr("9.22 ms at 1024, 37% slower")));
  EXPECT_EQ(slower.figures.at("worse_streams"), nlohmann::json({256, 1024}));
  // Still improving at the largest size tried.
  const Verdict rising = pool::plateau_verdict("pool.plateau", {{1, 30.0}, {2, 20.0}, {4, 16.0}});
  EXPECT_EQ(rising.outcome, "still_improving");
  EXPECT_THAT(rising.sentence, HasSubstr("still improved up to the largest pool tried, 4"));
  EXPECT_THROW(pool::judge_sweep({}), std::invalid_argument);
  EXPECT_THROW(pool::plateau_verdict("pool.plateau", {}), std::invalid_argument);
}

struct RegimeCase {
  BoundPath limited_by;
  std::string outcome, words;
};

class Stage03Regime : public ::testing::TestWithParam<RegimeCase> {};

// The limiting path names the regime and what would help.
TEST_P(Stage03Regime, NamesItsRegime) {
  PipelineBound bound;
  bound.limited_by = GetParam().limited_by;
  const Verdict verdict = pool::regime_verdict(bound);
  EXPECT_EQ(verdict.id, "pool.regime");
  EXPECT_EQ(verdict.outcome, GetParam().outcome);
  EXPECT_THAT(verdict.sentence, HasSubstr(GetParam().words));
  EXPECT_EQ(verdict.figures.at("limited_by"), to_string(GetParam().limited_by));
}

INSTANTIATE_TEST_SUITE_P(
    EachPath, Stage03Regime,
    ::testing::Values(RegimeCase{BoundPath::kernels, "compute_bound", "compute-bound"},
                      RegimeCase{BoundPath::d2h, "pcie_bound", "PCIe-bound (D2H copies"},
                      RegimeCase{BoundPath::both_ways, "pcie_bound", "PCIe-bound (PCIe both ways"},
                      RegimeCase{BoundPath::host_issue, "launch_bound", "launch-bound"},
                      RegimeCase{BoundPath::stream_order, "stream_order_bound", "more streams"},
                      RegimeCase{BoundPath::busiest_stream, "stream_order_bound", "busiest stream's batches"}),
    [](const ::testing::TestParamInfo<RegimeCase>& param_info) {
      return std::string(param_info.param.outcome) + std::to_string(param_info.index);
    });

TEST(Stage03Verdicts, OneStreamPerEngineSaysWhyOnlyWhereThereIsADifference) {
  const Verdict slower = pool::engines_verdict(17.3, 16.0, BoundPath::kernels);
  EXPECT_EQ(slower.id, "pool.engine_streams");
  EXPECT_EQ(slower.outcome, "slower");
  EXPECT_THAT(slower.sentence, HasSubstr("one at a time"));
  EXPECT_EQ(slower.figures.at("pool_limited_by"), "kernels");
  const Verdict faster = pool::engines_verdict(7.6, 7.9, BoundPath::d2h);
  EXPECT_EQ(faster.outcome, "faster");
  EXPECT_THAT(faster.sentence, HasSubstr("back to back"));
  const Verdict neither = pool::engines_verdict(16.1, 16.0, BoundPath::kernels);
  EXPECT_EQ(neither.outcome, "same");
  EXPECT_THAT(neither.sentence, AllOf(HasSubstr("about as fast as"), Not(HasSubstr("one at a time"))))
      << "no reason for a difference that isn't there";
  // The kernels' wave reason only when kernels limit the pool.
  EXPECT_THAT(pool::engines_verdict(17.3, 16.0, BoundPath::d2h).sentence,
              AllOf(HasSubstr("slower than the pool"), Not(HasSubstr("one at a time"))));
}

TEST(Stage03Verdicts, APageablePoolNearTheSerialTimeOverlappedNothing) {
  const Verdict serial = pool::pageable_pool_verdict(78.0, 81.0);
  EXPECT_EQ(serial.id, "pool.pageable");
  EXPECT_EQ(serial.outcome, "nothing_overlapped");
  EXPECT_DOUBLE_EQ(serial.threshold.get<double>(), pool::kNearSerial);
  const Verdict some = pool::pageable_pool_verdict(40.0, 81.0);
  EXPECT_EQ(some.outcome, "some_overlapped");
  EXPECT_THAT(some.sentence, AllOf(HasSubstr("some work still"), Not(HasSubstr("nothing overlapped"))));
}

TEST(Stage03Verdicts, PartialWavesOnlyWhereThePoolsKernelsBeatOneStream) {
  const std::optional<Verdict> filled = pool::partial_wave_verdict(16.0, 17.2, 8);
  ASSERT_TRUE(filled.has_value());
  EXPECT_EQ(filled->id, "pool.partial_wave");
  EXPECT_EQ(filled->outcome, "filled");
  EXPECT_THAT(filled->sentence, HasSubstr("partial wave"));
  EXPECT_FALSE(pool::partial_wave_verdict(17.1, 17.2, 8).has_value()) << "within 3%: nothing to explain";
  EXPECT_FALSE(pool::partial_wave_verdict(10.0, 17.2, 1).has_value()) << "one stream can't fill another's waves";
}

// A bound of `bound_ms` set by the kernels, every other path shorter.
PipelineBound kernels_bound(double bound_ms) {
  PipelineBound bound;
  bound.kernel_path_ms = bound.bound_ms = bound_ms;
  bound.h2d_path_ms = 0.3 * bound_ms;
  bound.limited_by = BoundPath::kernels;
  return bound;
}

TEST(Stage03Verdicts, APoolAtItsBoundUnderItOrBeatingIt) {
  EXPECT_FALSE(pool::bound_beaten(101.9, 0.02));
  EXPECT_TRUE(pool::bound_beaten(102.1, 0.02));
  const Verdict at = pool::bound_verdict("pool.bound", "the pool", 10.05, kernels_bound(10.0), 0.02);
  EXPECT_EQ(at.outcome, "at_bound");
  EXPECT_THAT(at.sentence, HasSubstr("the pool reached 99.5% of its bound (100% is the fastest"));
  EXPECT_DOUBLE_EQ(at.figures.at("percent_of_bound").get<double>(), 100.0 * 10.0 / 10.05);
  EXPECT_DOUBLE_EQ(at.threshold.at("tolerance").get<double>(), 0.02);
  EXPECT_DOUBLE_EQ(at.threshold.at("loose_bound").get<double>(), kLooseBound);
  const Verdict within_noise = pool::bound_verdict("pool.bound", "the pool", 10.0 / 1.015, kernels_bound(10.0), 0.02);
  EXPECT_EQ(within_noise.outcome, "at_bound") << "101.5%: within the 2% noise, no warning";
  EXPECT_THAT(within_noise.sentence, Not(HasSubstr("WARNING")));
  const Verdict beaten = pool::bound_verdict("pool.bound", "the pool", 10.0 / 1.078, kernels_bound(10.0), 0.02);
  EXPECT_EQ(beaten.outcome, "beaten");
  EXPECT_THAT(beaten.sentence, HasSubstr("WARNING: the pool ran at 107.8% of its bound"));
  const Verdict loose = pool::bound_verdict("pool.bound", "the pool", 12.5, kernels_bound(10.0), 0.02);
  EXPECT_EQ(loose.outcome, "loose");
  EXPECT_THAT(loose.sentence, AllOf(HasSubstr("the pool reached 80.0% of its bound"), HasSubstr("waiting on each other")));
}

TEST(Stage03Verdicts, ThePlateauIsWithinTwoPercentOfTheBestEdgeIncluded) {
  // 10.4 ms is 4% above the best: inside the 5% of "worse", outside the 2% of the plateau.
  const SweepVerdict verdict = pool::judge_sweep({{1, 30.0}, {2, 10.4}, {4, 10.1}, {8, 10.0}});
  EXPECT_EQ(verdict.plateau_streams, 4);
  EXPECT_EQ(verdict.best_streams, 8);
  // Exactly at best x (1 + kPlateauWithin): on the plateau.
  const SweepVerdict edge = pool::judge_sweep({{1, 80.0}, {2, 50.0 * (1.0 + pool::kPlateauWithin)}, {4, 50.0}});
  EXPECT_EQ(edge.plateau_streams, 2);
}

TEST(Stage03Verdicts, ALargerPoolIsWorseOnlyMoreThanFivePercentAboveTheBest) {
  EXPECT_TRUE(pool::judge_sweep({{1, 30.0}, {4, 10.0}, {16, 10.3}}).worse.empty()) << "3% slower: not worse";
  EXPECT_THAT(pool::judge_sweep({{1, 30.0}, {4, 10.0}, {16, 10.6}}).worse, ElementsAre(16));
}

TEST(Stage03Verdicts, TheBestAtTheLargestPoolIsNoRiseWhenThePlateauCameEarlier) {
  // The best is the largest pool, but 2 streams are already within 2% of it.
  const Verdict verdict = pool::plateau_verdict("pool.plateau", {{1, 30.0}, {2, 10.1}, {4, 10.0}});
  EXPECT_EQ(verdict.figures.at("plateau_streams"), 2);
  EXPECT_EQ(verdict.figures.at("best_streams"), verdict.figures.at("largest_streams"));
  EXPECT_EQ(verdict.outcome, "plateau");
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("time stops improving at 2 streams"), Not(HasSubstr("still improved"))));
}

// A report to fill, as the runner starts one.
Report made_up_report() { return Report("03_stream_pool_gemm", "engine-streams", DeviceInfo{}); }

std::vector<std::string> verdict_ids(const Report& report) {
  std::vector<std::string> ids;
  for (const Verdict& verdict : report.verdicts()) ids.push_back(verdict.id);
  return ids;
}

// A measured entry of stage 03, made up: a median of `ms`, 0.1% spread.
pool::PoolMeasurements::Entry entry(pool::PoolMeasurements::Kind kind, const std::string& name, int streams,
                                    double ms, const std::string& resource = "") {
  pool::PoolMeasurements::Entry e;
  e.kind = kind;
  e.name = name;
  e.streams = streams;
  e.resource = resource;
  e.stats = testing::ms(ms, 0.999, 1.001);
  e.check.passed = true;
  e.check.batches_checked = 100;
  e.verifiable = kind != pool::PoolMeasurements::Kind::resource;
  if (kind == pool::PoolMeasurements::Kind::serial) e.params = {{"host_memory", resource}};
  return e;
}

// The article's serial runs, the one-stream sums and batch 0's ops alone
// (one batch's share is (sum - first) / 99: 0.04, 0.1717 and 0.078 ms), then
// `pools`, then each resource alone on `streams` streams.
std::vector<pool::PoolMeasurements::Entry> made_up_entries(std::vector<pool::PoolMeasurements::Entry> pools,
                                                           int streams, double kernels, double h2d, double d2h,
                                                           double both_ways) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries = {
      entry(Kind::serial, "serial", 0, 81.0, "pageable"), entry(Kind::serial, "serial", 0, 31.0, "pinned")};
  entries.insert(entries.end(), pools.begin(), pools.end());
  for (auto e : {entry(Kind::bound, "h2d_sum", 1, 4.0), entry(Kind::bound, "kernel_sum", 1, 17.2),
                 entry(Kind::bound, "d2h_sum", 1, 7.8), entry(Kind::bound, "copies_both_ways", 2, 8.3),
                 entry(Kind::bound, "h2d_first_op", 1, 0.04), entry(Kind::bound, "kernel_first_op", 1, 0.2),
                 entry(Kind::bound, "d2h_first_op", 1, 0.078),
                 entry(Kind::resource, "resource_alone", streams, kernels, "kernels"),
                 entry(Kind::resource, "resource_alone", streams, h2d, "h2d"),
                 entry(Kind::resource, "resource_alone", streams, d2h, "d2h"),
                 entry(Kind::resource, "resource_alone", streams, both_ways, "both_ways")}) {
    entries.push_back(e);
  }
  return entries;
}

TEST(Stage03Report, TheJsonHoldsEachVariantsOwnBoundAndTheRegimeOfItsLargestPath) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries = made_up_entries(
      {entry(Kind::pool, "stream_pool", 8, 16.05), entry(Kind::pool, "stream_pool", 8, 16.06)}, 8, 15.9, 4.1, 7.9, 8.6);
  entries[3].order = IssueOrder::breadth_first;
  entries[2].host_issue = summarize({Millis(0.8)});
  entries[3].host_issue = summarize({Millis(0.9)});
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  PoolConfig config;
  config.streams = 8;
  const StageResult result = pool::pool_result("03_stream_pool_gemm", DeviceInfo{}, options, config, 8, runs);
  const nlohmann::json doc = to_json(result);
  const auto& bounds = doc.at("bounds");
  // The pool's bound is its own: kernels alone on its 8 streams (15.9) plus one batch of fill and drain.
  EXPECT_NEAR(bounds.at("kernel_path_ms").get<double>(), 0.04 + 15.9 + 0.078, 1e-9);
  EXPECT_EQ(bounds.at("limited_by"), "kernels");
  EXPECT_EQ(bounds.at("regime"), "compute-bound");
  EXPECT_NEAR(bounds.at("percent_of_bound").get<double>(), 100.0 * (0.04 + 15.9 + 0.078) / 16.05, 1e-9);
  double largest = 0.0;
  for (const char* path : {"kernel_path_ms", "h2d_path_ms", "d2h_path_ms", "copies_both_ways_ms", "host_issue_ms"}) {
    largest = std::max(largest, bounds.at(path).get<double>());
  }
  EXPECT_DOUBLE_EQ(bounds.at("pipeline_bound_ms").get<double>(), largest);
  EXPECT_NEAR(bounds.at("speedup_vs_serial_pinned").get<double>(), 31.0 / 16.05, 1e-9);
  int with_bound = 0;
  for (const auto& m : doc.at("measurements")) {
    if (!m.contains("bound")) continue;
    ++with_bound;
    EXPECT_EQ(m.at("name"), "stream_pool");
    EXPECT_NEAR(m.at("bound").at("percent_of_bound").get<double>(),
                100.0 * m.at("bound").at("bound_ms").get<double>() / m.at("median_ms").get<double>(), 1e-9);
    EXPECT_GE(m.at("bound").at("tolerance").get<double>(), 0.02);
    EXPECT_TRUE(m.contains("host_issue_ms"));
  }
  EXPECT_EQ(with_bound, 2) << "both issue orders, and nothing else here";
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") == "resource_alone") {
      EXPECT_TRUE(m.at("verified").is_null()) << m.dump();
    }
  }
}

TEST(Stage03Report, APoolOfOneStreamIsBoundByItsStreamOrderAndOneStreamPerEngineIsNot) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries =
      made_up_entries({entry(Kind::pool, "stream_pool", 1, 30.0), entry(Kind::pool, "stream_pool", 1, 29.9),
                       entry(Kind::engines, "engine_streams", 3, 17.3)},
                      1, 17.2, 4.0, 7.8, 12.7);
  entries[3].order = IssueOrder::breadth_first;
  for (std::size_t i : {2U, 3U, 4U}) entries[i].host_issue = summarize({Millis(0.8)});
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  PoolConfig config;
  config.streams = 1;
  const nlohmann::json doc = to_json(pool::pool_result("03_stream_pool_gemm", DeviceInfo{}, options, config, 1, runs));
  const auto& bounds = doc.at("bounds");
  // One stream runs all 100 batches in a row: 100 x (0.04 + (17.2 - 0.2) / 99 + 0.078).
  const double chain = 100 * (0.04 + 17.0 / 99 + 0.078);
  EXPECT_NEAR(bounds.at("stream_order_ms").get<double>(), chain, 1e-9);
  EXPECT_EQ(bounds.at("limited_by"), "stream order");
  EXPECT_EQ(bounds.at("regime"), "stream-order-bound");
  EXPECT_NEAR(bounds.at("pipeline_bound_ms").get<double>(), chain, 1e-9);
  bool engines_seen = false;
  for (const auto& m : doc.at("measurements")) {
    if (m.at("name") != "engine_streams") continue;
    engines_seen = true;
    // Each batch spans its three streams: no stream order; its kernels on one stream bound it.
    EXPECT_DOUBLE_EQ(m.at("bound").at("paths").at("stream_order_ms").get<double>(), 0.0) << m.dump();
    EXPECT_EQ(m.at("bound").at("limited_by"), "kernels") << m.dump();
  }
  EXPECT_TRUE(engines_seen);
}

TEST(Stage03Report, TheBoundsToleranceIncludesTheLimitingPathsOwnSpread) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries = made_up_entries(
      {entry(Kind::pool, "stream_pool", 8, 16.05), entry(Kind::pool, "stream_pool", 8, 16.06)}, 8, 15.9, 4.1, 7.9, 8.6);
  entries[3].order = IssueOrder::breadth_first;
  // The kernels alone, which limit the pool: median 15.9 ms, fastest run 20% faster.
  auto kernels = std::find_if(entries.begin(), entries.end(), [](const auto& e) { return e.resource == "kernels"; });
  ASSERT_NE(kernels, entries.end());
  kernels->stats = testing::ms(15.9, 0.8, 1.2);
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  const pool::PoolMeasurements::Entry& main = runs.pool(IssueOrder::depth_first);
  ASSERT_EQ(runs.bound_of(main)->limited_by, BoundPath::kernels);
  EXPECT_NEAR(runs.tolerance_of(main), 0.25 + 0.001 + kTimingJitterMs / 16.05, 1e-9)
      << "the path's median over its fastest run (1 / 0.8), the run's 0.1% spread and the timing's jitter, added";
}

TEST(Stage03Report, TheBusiestStreamsRunIsThePoolsMeasuredStreamOrderPath) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries =
      made_up_entries({entry(Kind::pool, "stream_pool", 1, 30.0), entry(Kind::pool, "stream_pool", 1, 29.9)}, 1,
                      17.2, 4.0, 7.8, 12.7);
  entries[3].order = IssueOrder::breadth_first;
  // The 100 batches alone on one stream: 29.6 ms, above the 28.97 ms the
  // shares add up to; its fastest run 20% faster than its median.
  entries.push_back(entry(Kind::resource, "resource_alone", 1, 29.6, "busiest_stream"));
  entries.back().stats = testing::ms(29.6, 0.8, 1.2);
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  const pool::PoolMeasurements::Entry& main = runs.pool(IssueOrder::depth_first);
  const PipelineBound bound = *runs.bound_of(main);
  EXPECT_EQ(bound.limited_by, BoundPath::busiest_stream);
  EXPECT_DOUBLE_EQ(bound.bound_ms, 29.6);
  EXPECT_NEAR(bound.stream_order_ms, 100 * (0.04 + 17.0 / 99 + 0.078), 1e-9);
  EXPECT_NEAR(runs.tolerance_of(main), 0.25 + 0.001 + kTimingJitterMs / 30.0, 1e-9)
      << "the busiest stream's median over its fastest run (1 / 0.8), the run's 0.1% spread and the timing's jitter";

  PoolConfig config;
  config.streams = 1;
  const StageResult result = pool::pool_result("03_stream_pool_gemm", DeviceInfo{}, options, config, 1, runs);
  const nlohmann::json bounds = to_json(result).at("bounds");
  EXPECT_DOUBLE_EQ(bounds.at("busiest_stream_ms").get<double>(), 29.6);
  EXPECT_EQ(bounds.at("limited_by"), "busiest stream");
  EXPECT_EQ(bounds.at("regime"), "stream-order-bound");
  EXPECT_NEAR(bounds.at("percent_of_bound").get<double>(), 100.0 * 29.6 / 30.0, 1e-9);
  Report report = made_up_report();
  report.result = result;
  pool::add_pool_bound(report, options.work, runs);
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("the busiest stream's 100 batches alone on one stream, as measured: 29.60 ms"),
                    HasSubstr("busiest stream ms"), HasSubstr("limited by busiest stream")));
  ASSERT_FALSE(report.verdicts().empty());
  EXPECT_EQ(report.verdicts().front().id, "pool.bound");
  EXPECT_EQ(report.verdicts().front().figures.at("limited_by"), "busiest stream");
}

TEST(Stage03Report, ThePoolAgainstSerialNamesBreadthFirstAndPageableOnlyWhereMeasured) {
  using Kind = pool::PoolMeasurements::Kind;
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  PoolConfig config;
  const std::vector<pool::PoolMeasurements::Entry> depth_only =
      made_up_entries({entry(Kind::pool, "stream_pool", 8, 16.05)}, 8, 15.9, 4.1, 7.9, 8.6);
  Report one_order = made_up_report();
  pool::add_pool_against_serial(one_order, options, config, pool::PoolMeasurements::measured(options.work, depth_only));
  EXPECT_THAT(one_order.console(), AllOf(HasSubstr("5.05x faster than serial on pageable memory"),
                                         Not(HasSubstr("breadth-first")), Not(HasSubstr("pageable host memory:"))));
  EXPECT_THAT(verdict_ids(one_order), ElementsAre("pool.vs_serial_pageable", "pool.vs_serial_pinned"));
  EXPECT_EQ(one_order.verdicts().front().outcome, "faster");
  EXPECT_DOUBLE_EQ(one_order.verdicts().front().figures.at("reference_ms").get<double>(), 81.0);

  std::vector<pool::PoolMeasurements::Entry> both = made_up_entries(
      {entry(Kind::pool, "stream_pool", 8, 78.0), entry(Kind::pool, "stream_pool", 8, 79.0)}, 8, 15.9, 4.1, 7.9, 8.6);
  both[3].order = IssueOrder::breadth_first;
  options.host_memory = HostMemory::pageable;
  Report pageable = made_up_report();
  pool::add_pool_against_serial(pageable, options, config, pool::PoolMeasurements::measured(options.work, both));
  EXPECT_THAT(pageable.console(), AllOf(HasSubstr("breadth-first issue: 79.00 ms"), HasSubstr("nothing overlapped")));
  EXPECT_THAT(verdict_ids(pageable), ElementsAre("pool.vs_serial_pageable", "pool.vs_serial_pinned",
                                                 "order.breadth_first", "pool.pageable"));
  EXPECT_EQ(pageable.verdicts().back().outcome, "nothing_overlapped");
}

TEST(Stage03Report, WithoutSerialRunsTheJsonHasNoSpeedUpAndAVariantsCheckVerifies) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries =
      made_up_entries({entry(Kind::pool, "stream_pool", 8, 16.05), entry(Kind::engines, "engine_streams", 3, 17.3)},
                      8, 15.9, 4.1, 7.9, 8.6);
  entries.erase(entries.begin(), entries.begin() + 2);  // no serial runs: engine-streams times none
  entries[0].host_issue = summarize({Millis(0.8)});
  entries[1].host_issue = summarize({Millis(0.8)});
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  Report report = made_up_report();
  report.result = pool::pool_result("03_stream_pool_gemm", DeviceInfo{}, options, PoolConfig{}, 8, runs);
  pool::add_engine_streams(report, runs);
  const nlohmann::json doc = report.document();
  EXPECT_EQ(doc.at("subcommand"), "engine-streams");
  EXPECT_FALSE(doc.at("bounds").contains("speedup_vs_serial_pinned")) << doc.at("bounds").dump();
  EXPECT_TRUE(doc.at("bounds").contains("engine_streams_ms"));
  EXPECT_EQ(doc.at("bounds").at("limited_by"), "kernels");
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 100);
  EXPECT_THAT(report.console(), HasSubstr("one stream per engine (H2D, kernels, D2H) took 17.30 ms"));
  EXPECT_THAT(verdict_ids(report), ElementsAre("pool.engine_streams"));
}

TEST(Stage03Report, AFailedVariantIsTheVerificationAndTheRunFails) {
  using Kind = pool::PoolMeasurements::Kind;
  std::vector<pool::PoolMeasurements::Entry> entries =
      made_up_entries({entry(Kind::pool, "stream_pool", 8, 16.05)}, 8, 15.9, 4.1, 7.9, 8.6);
  entries[2].check.passed = false;
  entries[2].check.first_failure = Mismatch{.batch = 7, .row = 1, .col = 2, .expected = 4.0, .got = 5.0,
                                            .check = "sampled"};
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  Report report = made_up_report();
  report.result = pool::pool_result("03_stream_pool_gemm", DeviceInfo{}, options, PoolConfig{}, 8, runs);
  EXPECT_FALSE(report.result.verification.passed);
  EXPECT_EQ(report.result.variants_verified, 9) << "every checked variant but the pool: 2 serial runs, 7 of the bound's";
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.document().at("verification").at("failure").get<std::string>(), HasSubstr("batch 7"));
  EXPECT_THAT(report.console(), HasSubstr("verification failed: batch 7"));
}

TEST(Stage03Report, TheSweepsTableAndItsPlateauAndOtherPoolSizesBeyondTheirBound) {
  using Kind = pool::PoolMeasurements::Kind;
  // Two swept sizes beside the main pool: 2 streams well under its bound, 8 at it.
  std::vector<pool::PoolMeasurements::Entry> entries = made_up_entries(
      {entry(Kind::pool, "stream_pool", 8, 16.05), entry(Kind::pool_sweep, "stream_pool", 2, 24.0),
       entry(Kind::pool_sweep, "stream_pool", 8, 16.1)},
      8, 15.9, 4.1, 7.9, 8.6);
  for (auto e : {entry(Kind::resource, "resource_alone", 2, 16.5, "kernels"),
                 entry(Kind::resource, "resource_alone", 2, 4.1, "h2d"),
                 entry(Kind::resource, "resource_alone", 2, 7.9, "d2h"),
                 entry(Kind::resource, "resource_alone", 2, 8.6, "both_ways")}) {
    entries.push_back(e);
  }
  CommonOptions options;
  const pool::PoolMeasurements runs = pool::PoolMeasurements::measured(options.work, entries);
  Report report = made_up_report();
  pool::add_sweep(report, runs, "pool size sweep:", "pool.plateau");
  pool::add_variant_bounds(report, runs, [](const pool::PoolMeasurements::Entry&) { return true; }, /*loose=*/true);
  EXPECT_THAT(report.console(), AllOf(HasSubstr("pool size sweep:"), HasSubstr("vs 2 streams"),
                                      HasSubstr("at 2 streams the pool reached")));
  EXPECT_THAT(verdict_ids(report), ElementsAre("pool.plateau", "pool.variant_bound"));
  EXPECT_EQ(report.verdicts().front().outcome, "still_improving");
  EXPECT_EQ(report.verdicts().back().outcome, "loose");
  EXPECT_EQ(report.verdicts().back().figures.at("variant"), "at 2 streams the pool");
}

TEST(PoolConfig, SlotsAreOnePerStreamAndShareAStreamInEverySweptPool) {
  PoolConfig config;
  config.streams = 8;
  EXPECT_EQ(device_slots_for(config, 100), 8);
  config.sweep = {1, 2, 4, 8, 16, 32};
  EXPECT_EQ(device_slots_for(config, 100), 32);  // lcm; 32 % every size == 0
  config.sweep = {3, 8};
  EXPECT_EQ(device_slots_for(config, 100), 24);
  config.sweep = {7, 11, 13};
  EXPECT_EQ(device_slots_for(config, 100), 100);  // lcm 8008 > batches: one slot per batch
  config.sweep = {};
  config.streams = 32;
  EXPECT_EQ(device_slots_for(config, 10), 10);  // never more slots than batches
  config.device_buffers = DeviceBuffers::per_batch;
  config.streams = 8;
  EXPECT_EQ(device_slots_for(config, 100), 100);
  // Whatever the sizes, batches sharing a slot share a stream in every pool.
  config.device_buffers = DeviceBuffers::slots;
  config.sweep = {1, 3, 5, 8};
  const int slots = device_slots_for(config, 1000);
  for (int size : {1, 3, 5, 8}) EXPECT_EQ(slots % size, 0) << size;
}

TEST(PoolConfig, ReadsTheOptionsAndWarnsAboutIdleStreams) {
  StageCli cli("test", "test");
  add_pool_options(cli, /*with_sweep=*/true);
  auto options = cli.parse(std::vector<std::string>{"--batches", "10", "--streams", "16", "--streams-sweep", "2,4"});
  ASSERT_TRUE(options);
  const PoolConfig config = read_pool_options(cli, *options, true);
  EXPECT_EQ(config.streams, 16);
  EXPECT_EQ(config.sweep, (std::vector<int>{2, 4}));
  EXPECT_EQ(config.device_buffers, DeviceBuffers::slots);
  ASSERT_EQ(config.warnings.size(), 1u);
  EXPECT_THAT(config.warnings[0], HasSubstr("6 stream(s) get no work"));

  options = cli.parse(std::vector<std::string>{"--streams-sweep", "off", "--device-buffers", "per-batch"});
  ASSERT_TRUE(options);
  const PoolConfig off = read_pool_options(cli, *options, true);
  EXPECT_TRUE(off.sweep.empty());
  EXPECT_EQ(off.device_buffers, DeviceBuffers::per_batch);
  EXPECT_TRUE(off.warnings.empty());

  for (const char* bad : {"1,,2", ",", "0", "1,2000", "two", "2,4,2"}) {
    options = cli.parse(std::vector<std::string>{"--streams-sweep", bad});
    ASSERT_TRUE(options);
    EXPECT_THROW(read_pool_options(cli, *options, true), UsageError) << bad;
  }
}

TEST(PoolConfig, ASizeGivenTwiceIsRefusedNamingTheFlagAndTheSize) {
  StageCli cli("test", "test");
  add_pool_options(cli, /*with_sweep=*/true);
  const auto options = cli.parse(std::vector<std::string>{"--streams-sweep", "1,8,4,8"});
  ASSERT_TRUE(options);
  try {
    static_cast<void>(read_pool_options(cli, *options, true));
    ADD_FAILURE() << "8 given twice was accepted";
  } catch (const UsageError& error) {
    EXPECT_THAT(error.what(), HasSubstr("--streams-sweep lists 8 twice"));
  }
}

TEST(PoolConfig, FlagsOfferOnlyWhatTheRunUses) {
  StageCli without_layout("test", "test");
  const PoolFlags fixed_layout{.device_buffers = false, .sweep = false};
  add_pool_options(without_layout, fixed_layout);
  EXPECT_THROW(without_layout.parse(std::vector<std::string>{"--device-buffers", "per-batch"}), UsageError);
  EXPECT_THROW(without_layout.parse(std::vector<std::string>{"--streams-sweep", "1,2"}), UsageError);
  auto options = without_layout.parse(std::vector<std::string>{"--streams", "3"});
  ASSERT_TRUE(options);
  const PoolConfig config = read_pool_options(without_layout, *options, fixed_layout);
  EXPECT_EQ(config.streams, 3);
  EXPECT_EQ(config.device_buffers, DeviceBuffers::slots);
  EXPECT_TRUE(config.sweep.empty());

  StageCli sweep_off("test", "test");
  const PoolFlags extra_sweep{.device_buffers = true, .sweep = true, .sweep_default = "off"};
  add_pool_options(sweep_off, extra_sweep);
  options = sweep_off.parse(std::vector<std::string>{});
  ASSERT_TRUE(options);
  EXPECT_TRUE(read_pool_options(sweep_off, *options, extra_sweep).sweep.empty()) << "off unless asked for";
  options = sweep_off.parse(std::vector<std::string>{"--streams-sweep", "4,1"});
  ASSERT_TRUE(options);
  EXPECT_EQ(read_pool_options(sweep_off, *options, extra_sweep).sweep, (std::vector<int>{4, 1}));
}

TEST(PoolConfig, TheKernelOptionHasItsOwnDefaultAndChecksTheShapeForIt) {
  // `rows`: a shape set after parsing, so that only read_kernel_option judges it.
  auto parsed = [](const std::vector<std::string>& args, int rows = 1024) {
    CommonDefaults defaults;
    defaults.kernel_choice = false;
    StageCli cli("test", "test", defaults);
    add_kernel_option(cli, GemmKernel::cublas);
    CommonOptions options = *cli.parse(args);
    options.work.shape.m = rows;
    read_kernel_option(cli, options);
    return options.gemm;
  };
  EXPECT_EQ(parsed({}).kernel, GemmKernel::cublas);
  EXPECT_FALSE(parsed({}).tf32);
  EXPECT_TRUE(parsed({"--tf32"}).tf32);
  EXPECT_EQ(parsed({"--kernel", "tiled"}).kernel, GemmKernel::tiled);
  EXPECT_THROW(parsed({"--kernel", "naive", "--tf32"}), UsageError);
  EXPECT_THROW(parsed({"--kernel", "fast"}), UsageError);
  // cuBLAS takes any row count; the tiled kernel's grid covers at most 65535 x 64 rows.
  EXPECT_EQ(parsed({}, 5000000).kernel, GemmKernel::cublas);
  EXPECT_THROW(parsed({"--kernel", "tiled"}, 5000000), UsageError);
}

#ifdef CSG_STAGE03_BINARY
// Every subcommand's command line: bad options exit 2 with one line naming
// the flag (or the word) at fault, before any CUDA call (with every GPU
// hidden, 2 and not 77); good ones reach the device check; each --help
// shows its own flags and no other experiment's. Bad --trace values are
// every stage's timeline's: test_timeline_options.
const testing::CommandLinePromises kCommandLines = {
    .refused = {
        {{"--streams-sweep", "8,8"}, "--streams-sweep lists 8 twice"},
        {{"everything"}, "unknown subcommand 'everything'"},
        {{"kernels", "--streams", "0"}, "--streams"},
        {{"kernels", "--streams", "1025"}, "--streams"},
        {{"kernels", "--streams-sweep", "1,,2"}, "--streams-sweep"},
        {{"kernels", "--streams-sweep", "2,4,2"}, "--streams-sweep lists 2 twice"},
        {{"kernels", "--device-buffers", "foo"}, "--device-buffers"},
        {{"kernels", "--host-memory", "registered"}, "--host-memory"},
        {{"kernels", "--kernel", "naive", "--tf32"}, "--tf32"},
        {{"order", "--host-memory", "registered"}, "--host-memory"},
        {{"order", "--device-buffers", "slots"}, "--device-buffers"},
        {{"order", "--kernel", "tiled"}, "--kernel"},
        {{"engine-streams", "--host-memory", "pageable"}, "--host-memory"},
        {{"engine-streams", "--streams-sweep", "1,2"}, "--streams-sweep"},
        {{"count-sweep", "--count-sweep", "4,1,4"}, "--count-sweep lists 4 twice"},
        {{"count-sweep", "--count-sweep", "off"}, "--count-sweep"},
        {{"count-sweep", "--batches", "3"}, "--batches"},
        {{"priorities", "--priority-samples", "0"}, "--priority-samples"},
        {{"priorities", "--m", "8"}, "--m"},
        {{"contention", "--priority-samples", "20"}, "--priority-samples"},
        {{"timeline", "--timeline"}, "--timeline"},
    },
    .accepted = {
        {"--batches", "3", "--streams", "2", "--streams-sweep", "1,2"},
        {"kernels", "--kernel", "tiled", "--streams-sweep", "1,4", "--device-buffers", "per-batch"},
        {"order", "--host-memory", "pageable"},
        {"engine-streams", "--tf32"},
        {"count-sweep", "--count-sweep", "1,8", "--count-batches", "10"},
        {"priorities", "--priority-samples", "20"},
        {"contention", "--repeats", "2"},
        {"timeline", "--timeline-batches", "4"},
    },
    .helps = {
        {"", {"--streams ", "--streams-sweep", "kernels", "order", "engine-streams", "count-sweep", "priorities",
              "contention", "timeline"},
         {"--kernel", "--device-buffers", "everything"}},
        {"kernels", {"--kernel", "--tf32", "--host-memory", "--streams ", "--device-buffers", "--streams-sweep"},
         {"--count-sweep", "--priority-samples", "--trace"}},
        {"order", {"--host-memory", "--streams "}, {"--kernel", "--device-buffers", "--streams-sweep", "--trace"}},
        {"engine-streams", {"--kernel", "--streams ", "--device-buffers"}, {"--host-memory", "--streams-sweep"}},
        {"count-sweep", {"--count-sweep", "--count-batches", "--count-size", "--max-minutes"},
         {"--batches", "--kernel", "--streams ", "--host-memory"}},
        {"priorities", {"--priority-samples", "--repeats"}, {"--batches", "--kernel", "--streams ", "--host-memory"}},
        {"contention", {"--repeats", "--json"}, {"--batches", "--priority-samples", "--streams "}},
        {"timeline", {"--timeline-batches", "--trace", "--streams ", "--batches"}, {"--timeline ", "--streams-sweep"}},
    },
};

TEST(Stage03Cli, RefusesBadInputTakesGoodInputAndHelpsWithItsOwnFlags) {
  testing::expect_command_line_promises(CSG_STAGE03_BINARY, kCommandLines);
}

// cuBLAS is where the copies set the pace: the default of the two subcommands about it.
class Stage03KernelDefault : public ::testing::TestWithParam<std::string> {};

TEST_P(Stage03KernelDefault, IsCublas) {
  std::string help = testing::run_process({CSG_STAGE03_BINARY, GetParam(), "--help"}).out;
  help.erase(std::remove_if(help.begin(), help.end(), [](char c) { return c == ' ' || c == '\n'; }), help.end());
  EXPECT_THAT(help, HasSubstr("naive|tiled|cublas(default:cublas)"));
}

INSTANTIATE_TEST_SUITE_P(Subcommands, Stage03KernelDefault, ::testing::Values("kernels", "engine-streams"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param == "kernels" ? std::string("kernels") : std::string("engine_streams");
                         });

#endif

}  // namespace cpu_pool
}  // namespace csg
