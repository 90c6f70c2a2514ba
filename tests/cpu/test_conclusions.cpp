// The words that interpret a figure follow from it: the common comparison
// (within 3% is equal), stage 02's host
// blocking, staging and bandwidth sentences, each branch on made-up figures.
#include <gtest/gtest.h>

#include <string>

#include "02_pinned_vs_pageable/report.hpp"
#include "report/conclusions.hpp"

namespace csg {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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

TEST(Conclusions, Stage02StagingWithinTenPercentAndItsRatio) {
  // 32 ms against 25 + 5: 6.7% more, inside the 10% of kStagingWithin.
  const std::string within = copies::staging_text("256 MiB", 32.0, 25.0, 5.0);
  EXPECT_TRUE(has(within, "the extra host copy is the whole difference")) << within;
  const std::string overlapped = copies::staging_text("256 MiB", 15.0, 25.0, 5.0);
  EXPECT_TRUE(has(overlapped, "took 15.00 ms = 0.50x (host memcpy")) << overlapped;
}

TEST(Conclusions, Stage02HostBlockingStagingAndBandwidth) {
  EXPECT_TRUE(has(copies::host_blocked_text(8.3, 8.4), "not asynchronous"));
  const std::string returned = copies::host_blocked_text(0.5, 8.4);
  EXPECT_TRUE(has(returned, "returned before the copy was done")) << returned;
  EXPECT_FALSE(has(returned, "not asynchronous")) << returned;

  EXPECT_TRUE(has(copies::staging_text("256 MiB", 30.0, 25.0, 4.8), "the extra host copy is the whole difference"));
  EXPECT_TRUE(has(copies::staging_text("256 MiB", 20.0, 25.0, 4.8), "overlaps its memcpy"));
  EXPECT_TRUE(has(copies::staging_text("256 MiB", 40.0, 25.0, 4.8), "staging costs more"));

  EXPECT_TRUE(has(copies::peak_ratio_text(copies::CopyDirection::h2d, 55.3, 8.0), "pinned memory moved 6.91x faster"));
  EXPECT_TRUE(has(copies::peak_ratio_text(copies::CopyDirection::d2h, 50.0, 49.5), "about the same"));
  EXPECT_TRUE(has(copies::peak_ratio_text(copies::CopyDirection::h2d, 20.0, 30.0), "claim does not hold"));
}

}  // namespace
}  // namespace csg
