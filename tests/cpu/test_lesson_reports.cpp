// The sentences the lessons print that interpret their figures, each branch
// fed made-up figures: how the pool's time compares with the three kinds of
// work alone, and what a run well under its bound says about the gap.
#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "03_stream_pool_gemm/conclusions.hpp"
#include "report/conclusions.hpp"

namespace csg {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(OverlapText, WithinTenPercentOfTheLongestIsTheSecondTimeline) {
  const std::string text = pool::overlap_text(18.9, 4.1, 17.2, 7.8);  // 18.9 <= 17.2 * 1.1 = 18.92
  EXPECT_TRUE(has(text, "within 10% of the longest")) << text;
  EXPECT_TRUE(has(text, "(kernels) 17.20 ms")) << text;
  EXPECT_TRUE(has(text, "second timeline")) << text;
}

TEST(OverlapText, TheLongestIsWhicheverKindTookLongest) {
  const std::string text = pool::overlap_text(8.3, 4.1, 2.0, 7.8);  // the D2H copies are the longest
  EXPECT_TRUE(has(text, "(D2H copies) 7.80 ms")) << text;
  EXPECT_TRUE(has(text, "ran beside the D2H copies")) << text;
}

TEST(OverlapText, WithinTenPercentOfTheSumIsTheFirstTimeline) {
  const std::string text = pool::overlap_text(26.2, 4.1, 17.2, 7.8);  // sum 29.1; 26.2 >= 29.1 * 0.9 = 26.19
  EXPECT_TRUE(has(text, "within 10% of the sum")) << text;
  EXPECT_TRUE(has(text, "nothing overlapped")) << text;
  EXPECT_FALSE(has(text, "second timeline")) << text;
}

TEST(OverlapText, InBetweenIsAPartialOverlap) {
  const std::string text = pool::overlap_text(22.0, 4.1, 17.2, 7.8);
  EXPECT_TRUE(has(text, "only in part")) << text;
}

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
  const std::string text = bound_gap_text("at 2 streams the pool", 15.15, made_up_bound(12.35, BoundPath::busiest_stream));
  EXPECT_TRUE(has(text, "at 2 streams the pool reached 81.5% of its bound")) << text;
  EXPECT_TRUE(has(text, "no resource alone took more than 9.50 ms (kernels)")) << text;
  EXPECT_TRUE(has(text, "busiest stream alone took 12.35 ms")) << text;
  EXPECT_TRUE(has(text, "the other 2.80 ms")) << text;
}

TEST(BoundGap, TheLongestResourceIsNamedWhicheverItIs) {
  PipelineBound bound = made_up_bound(6.0, BoundPath::host_issue);
  bound.busiest_stream_ms = 0.0;  // not measured: no stream path to name
  bound.host_issue_ms = 6.0;
  bound.kernel_path_ms = 2.0;
  const std::string text = bound_gap_text("the run", 10.0, bound);
  EXPECT_TRUE(has(text, "6.00 ms (host issue)")) << text;
  EXPECT_FALSE(has(text, "busiest stream")) << text;
}

}  // namespace
}  // namespace csg
