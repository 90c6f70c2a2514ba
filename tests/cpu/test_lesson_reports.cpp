// The verdicts the lessons print that interpret their figures, each branch
// fed made-up figures: how the pool's time compares with the three kinds of
// work alone, and what a run well under its bound says about the gap; and
// stage 03's lesson report on one screen, its verdicts carried in its JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "matchers.hpp"
#include "03_stream_pool_gemm/conclusions.hpp"
#include "03_stream_pool_gemm/lesson_report.hpp"
#include "run_process.hpp"
#include "report/conclusions.hpp"

namespace csg {
namespace cpu_lesson_reports {

struct OverlapCase {
  std::string name;
  double pool_ms, h2d_ms, kernel_ms, d2h_ms;
  std::string outcome;
  std::vector<std::string> says, never_says;
};

class PoolOverlapVerdict : public ::testing::TestWithParam<OverlapCase> {};

// The pool against the longest kind of work alone and against their sum.
TEST_P(PoolOverlapVerdict, Branch) {
  const OverlapCase& c = GetParam();
  const Verdict verdict = pool::overlap_verdict(c.pool_ms, c.h2d_ms, c.kernel_ms, c.d2h_ms);
  EXPECT_EQ(verdict.id, "pool.overlap");
  EXPECT_EQ(verdict.outcome, c.outcome);
  EXPECT_DOUBLE_EQ(verdict.figures.at("sum_ms").get<double>(), c.h2d_ms + c.kernel_ms + c.d2h_ms);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("near_longest").get<double>(), pool::kNearLongest);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("near_serial").get<double>(), pool::kNearSerial);
  for (const std::string& part : c.says) EXPECT_THAT(verdict.sentence, HasSubstr(part));
  for (const std::string& part : c.never_says) EXPECT_THAT(verdict.sentence, Not(HasSubstr(part)));
}

INSTANTIATE_TEST_SUITE_P(
    Branches, PoolOverlapVerdict,
    ::testing::Values(
        // 18.9 <= 17.2 * 1.1 = 18.92
        OverlapCase{"NearTheLongestIsTheSecondTimeline", 18.9, 4.1, 17.2, 7.8, "hid_behind_longest",
                    {"within 10% of the longest", "(kernels) 17.20 ms", "second timeline"}, {}},
        OverlapCase{"TheLongestIsAnyKind", 8.3, 4.1, 2.0, 7.8, "hid_behind_longest",
                    {"(D2H copies) 7.80 ms", "ran beside the D2H copies"}, {}},
        // sum 29.1; 26.2 >= 29.1 * 0.9 = 26.19
        OverlapCase{"NearTheSumIsTheFirstTimeline", 26.2, 4.1, 17.2, 7.8, "nothing_overlapped",
                    {"within 10% of the sum", "nothing overlapped"}, {"second timeline"}},
        OverlapCase{"InBetweenIsPartial", 22.0, 4.1, 17.2, 7.8, "partly_overlapped", {"only in part"}, {}}),
    [](const ::testing::TestParamInfo<OverlapCase>& param_info) { return param_info.param.name; });

// Paths of 9.5 (kernels), 3.0, 3.1, 5.0 and 8.3 ms, the busiest stream `bound_ms` and limiting.
PipelineBound made_up_bound(double bound_ms, BoundPath limit) {
  PipelineBound bound;
  std::tie(bound.kernel_path_ms, bound.h2d_path_ms, bound.d2h_path_ms, bound.both_ways_ms, bound.host_issue_ms) =
      std::tuple{9.5, 3.0, 3.1, 5.0, 8.3};
  bound.busiest_stream_ms = bound.bound_ms = bound_ms;
  bound.limited_by = limit;
  return bound;
}

TEST(BoundGap, ARunAtNinetyPercentOfItsBoundOrMoreNeedsNoWord) {
  EXPECT_EQ(bound_gap_text("the pool", 10.0, made_up_bound(9.2, BoundPath::busiest_stream)), "");
  EXPECT_EQ(bound_gap_text("the pool", 10.0, made_up_bound(9.9, BoundPath::busiest_stream)), "");
}

TEST(BoundGap, BelowNinetyPercentItSaysWhereTheRestWent) {
  EXPECT_THAT(bound_gap_text("at 2 streams the pool", 15.15, made_up_bound(12.35, BoundPath::busiest_stream)),
              AllOf(HasSubstr("at 2 streams the pool reached 81.5% of its bound"),
                    HasSubstr("no resource alone took more than 9.50 ms (kernels)"),
                    HasSubstr("busiest stream alone took 12.35 ms"), HasSubstr("the other 2.80 ms")));
}

TEST(BoundGap, TheLongestResourceIsNamedWhicheverItIs) {
  PipelineBound bound = made_up_bound(6.0, BoundPath::host_issue);
  bound.busiest_stream_ms = 0.0;  // not measured: no stream path to name
  bound.host_issue_ms = 6.0;
  bound.kernel_path_ms = 2.0;
  EXPECT_THAT(bound_gap_text("the run", 10.0, bound), AllOf(HasSubstr("6.00 ms (host issue)"), Not(HasSubstr("busiest stream"))));
}

// ---- stage 03's lesson report ---------------------------------------------------------

csg::Samples three(double ms) { return {Millis(ms), Millis(ms), Millis(ms)}; }

// The H200's figures at the article's size, roughly: serial 91 / 31 ms; the
// pools of 1, 2, 4 and 8 streams 30, 16.2, 16.05, 16.05 ms, bound by the
// kernels alone on their streams (16 ms) but for one stream, bound by its
// batches in a row.
lesson03::Figures made_up_lesson03(int batches) {
  VerifyResult passed;
  passed.passed = true;
  passed.batches_checked = batches;
  passed.digest = 0x3164306a8801d276ULL;
  lesson03::Figures f{.serial_pageable = three(91.0), .serial_pinned = three(31.3), .serial_pageable_check = passed,
                      .serial_pinned_check = passed, .h2d_sum = three(4.1), .kernel_sum = three(17.2),
                      .d2h_sum = three(7.8), .h2d_first = three(0.05), .kernel_first = three(0.2),
                      .d2h_first = three(0.09), .pools = {}};
  for (const auto& [streams, ms] : {std::pair{1, 30.1}, std::pair{2, 16.2}, std::pair{4, 16.05}, std::pair{8, 16.05}}) {
    f.pools.push_back({.streams = streams, .run = three(ms), .issued = three(1.0),
                       .kernels = three(streams == 1 ? 17.2 : 16.0), .h2d = three(4.1), .d2h = three(7.8),
                       .both_ways = three(8.3), .busiest = three(streams == 1 ? 30.0 : 30.0 / streams),
                       .check = passed});
  }
  return f;
}

TEST(Lesson03Report, OneScreenWithItsVerdictsAndADigestAndANullSubcommand) {
  testing::TempDir dir;
  lesson03::Options options;
  options.pool_sizes = {1, 2, 4, 8};
  options.json_path = dir.file("03.json");
  std::ostringstream out;
  EXPECT_TRUE(lesson03::report(out, options, DeviceInfo{}, made_up_lesson03(options.work.batches)));
  const std::string text = out.str();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 40) << text;
  EXPECT_THAT(text, AllOf(HasSubstr("the pool: 1.95x faster than serial on the same pinned memory"),
                          HasSubstr("time stops improving at 2 streams"), HasSubstr("regime: compute-bound"),
                          HasSubstr("in each of the 6 runs; output digest 3164306a8801d276")));
  const nlohmann::json doc = testing::read_json(options.json_path);
  EXPECT_TRUE(doc.at("subcommand").is_null());
  std::vector<std::string> ids;
  for (const auto& v : doc.at("verdicts")) {
    const Verdict verdict = verdict_from_json(v);
    EXPECT_THAT(text, HasSubstr(verdict.sentence)) << verdict.id;
    ids.push_back(verdict.id);
  }
  EXPECT_THAT(ids, ::testing::IsSupersetOf({"pool.vs_serial_pinned", "pool.overlap", "pool.plateau", "pool.bound",
                                            "pool.regime"}));
  EXPECT_EQ(doc.at("bounds").at("sweep").at("plateau_streams"), 2);
}

TEST(Lesson03Report, ABatchThatFailedFailsTheRunAndIsNamed) {
  lesson03::Options options;
  options.pool_sizes = {1, 2, 4, 8};
  lesson03::Figures f = made_up_lesson03(options.work.batches);
  f.pools[2].check.passed = false;
  f.pools[2].check.first_failure = Mismatch{.batch = 7, .row = 1, .col = 2, .expected = 4.0, .got = 5.0,
                                            .check = "sampled"};
  std::ostringstream out;
  EXPECT_FALSE(lesson03::report(out, options, DeviceInfo{}, f));
  EXPECT_THAT(out.str(), AllOf(HasSubstr("verification failed: batch 7"), Not(HasSubstr("output digest"))));
}

}  // namespace cpu_lesson_reports
}  // namespace csg
