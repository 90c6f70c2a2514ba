// The words that interpret a figure follow from it: the common comparison
// (within 3% is equal) and its verdict, each branch on made-up figures (each
// stage's own verdicts are tested with the stage).
#include <gtest/gtest.h>

#include <string>

#include "report/conclusions.hpp"

namespace csg {
namespace cpu_conclusions {

TEST(Conclusions, TimesWithinThreePercentAreEqualAndTheRatioIsNamedOtherwise) {
  EXPECT_EQ(compare_times(97.1, 100.0), Comparison::same);
  EXPECT_EQ(compare_times(102.9, 100.0), Comparison::same);
  EXPECT_EQ(compare_times(96.9, 100.0), Comparison::faster);
  EXPECT_EQ(compare_times(103.1, 100.0), Comparison::slower);
  EXPECT_EQ(compare_phrase(50.0, 100.0), "2.00x faster than");
  EXPECT_EQ(compare_phrase(125.0, 100.0), "1.25x slower than");
  EXPECT_EQ(compare_phrase(101.0, 100.0), "about as fast as (within 3%)");
  EXPECT_EQ(compare_times(109.0, 100.0, 0.10), Comparison::same) << "a stated threshold wins";
  EXPECT_EQ(percent_text(0.374), "37%");
}

TEST(Conclusions, ByComparisonPicksTheWordsOfEachCase) {
  EXPECT_EQ(by_comparison(compare_times(90.0, 100.0), "f", "s", "w"), "f");
  EXPECT_EQ(by_comparison(compare_times(100.0, 100.0), "f", "s", "w"), "s");
  EXPECT_EQ(by_comparison(compare_times(110.0, 100.0), "f", "s", "w"), "w");
}

TEST(Conclusions, AComparisonsVerdictCarriesItsFiguresAndThreshold) {
  const Verdict faster = comparison_verdict("pool.vs_serial", 50.0, 100.0, "the pool " + compare_phrase(50.0, 100.0));
  EXPECT_EQ(faster.id, "pool.vs_serial");
  EXPECT_EQ(faster.outcome, "faster");
  EXPECT_DOUBLE_EQ(faster.figures.at("ratio").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(faster.threshold.get<double>(), kEqualWithin);
  EXPECT_EQ(faster.sentence, "the pool 2.00x faster than");
  EXPECT_EQ(comparison_verdict("x", 101.0, 100.0, "").outcome, "same");
  EXPECT_EQ(comparison_verdict("x", 109.0, 100.0, "", 0.05).outcome, "slower");
}

TEST(Conclusions, TheEdgesOfTheBandAreWithinItAndTheBandIsSymmetric) {
  EXPECT_EQ(compare_times(100.0 * (1.0 - kEqualWithin), 100.0), Comparison::same);
  EXPECT_EQ(compare_times(100.0 * (1.0 + kEqualWithin), 100.0), Comparison::same);
  EXPECT_EQ(compare_times(103.05, 100.0), Comparison::slower) << "3.05% above: outside the 3% band";
}

}  // namespace cpu_conclusions
}  // namespace csg
