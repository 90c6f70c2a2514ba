// Stage 02's figures from made-up measurements, no GPU: the overlap
// experiment's bookkeeping (its ratios, the warm-up runs left out), which
// sizes the pinning experiment may pin, and what the reports print and
// write: the sweep's peaks, pinned/pageable ratios and both ways at once;
// the overlap's sentence and JSON; the pinning's check; every branch of the
// lesson's two conclusions (pinned against pageable at the largest size, how
// long the call keeps the host); the lesson's report on one screen; and the
// checks' summary.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include "02_pinned_vs_pageable/lab/overlap/async_overlap.hpp"
#include "02_pinned_vs_pageable/lesson_report.hpp"
#include "02_pinned_vs_pageable/lab/overlap/overlap.hpp"
#include "02_pinned_vs_pageable/lab/pinning-cost/pinning_cost.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "02_pinned_vs_pageable/lab/sweep/sweep_report.hpp"
#include "run_process.hpp"

namespace csg::copies {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

Summary at(double ms) { return summarize({Millis(ms)}); }

// ---- the overlap experiment's bookkeeping ---------------------------------

double copy_ms(HostMemory kind, CopyDirection direction) {
  if (kind == HostMemory::pageable) return direction == CopyDirection::h2d ? 4.0 : 5.0;
  return direction == CopyDirection::h2d ? 2.0 : 3.0;
}

TEST(OverlapMeasurements, EachCaseHasItsOwnCopyAloneItsRatiosAndNoWarmUpRuns) {
  const std::vector<HostMemory> kinds = {HostMemory::pageable, HostMemory::pinned};
  // Every case's host_blocked: 100 ms in the two warm-up runs, then 1, 2, 3 ms.
  std::map<std::tuple<HostMemory, CopyDirection, bool>, int> calls;
  auto together = [&](const OverlapCase& c) {
    const int call = calls[{c.kind, c.direction, c.kernel_first}]++;
    OverlapRun run;
    run.total = Millis(c.kind == HostMemory::pageable ? 12.0 : 10.5);
    run.host_blocked = Millis(call < 2 ? 100.0 : call - 1.0);
    run.copy_end_after_kernel_end = Millis(-1.0);
    return run;
  };
  const OverlapMeasurements result = measure_overlap(
      RepeatPlan{2, 3}, kinds, [] { return Millis(10.0); },
      [](HostMemory kind, CopyDirection direction) { return Millis(copy_ms(kind, direction)); }, together);
  ASSERT_EQ(result.cases.size(), 8U);
  EXPECT_DOUBLE_EQ(result.kernel_alone.median_ms, 10.0);
  for (const OverlapResult& r : result.cases) {
    const double copy = copy_ms(r.c.kind, r.c.direction);
    const double total = r.c.kind == HostMemory::pageable ? 12.0 : 10.5;
    EXPECT_DOUBLE_EQ(r.copy_alone.median_ms, copy) << describe(r.c);
    EXPECT_DOUBLE_EQ(r.overlap_ratio, (10.0 + copy) / total) << describe(r.c);
    EXPECT_DOUBLE_EQ(r.ideal_ratio, (10.0 + copy) / 10.0) << describe(r.c) << ": over the longer, the kernel";
    EXPECT_EQ(r.host_blocked.samples, 3) << describe(r.c) << ": the warm-up runs left out";
    EXPECT_DOUBLE_EQ(r.host_blocked.median_ms, 2.0) << describe(r.c);
  }
}

// ---- which sizes may be pinned ----------------------------------------------

TEST(PinningPlan, AtMostHalfOfTheAvailableMemoryIsPinnedEdgeIncluded) {
  const PinningPlan plan = plan_pinning({kGiB, 2 * kGiB, 4 * kGiB}, 4 * kGiB);
  EXPECT_EQ(plan.sizes, (std::vector<std::uint64_t>{kGiB, 2 * kGiB}));
  EXPECT_EQ(plan.skipped, (std::vector<std::uint64_t>{4 * kGiB}));
  EXPECT_EQ(plan_pinning({kGiB, 4 * kGiB}, std::nullopt).sizes.size(), 2U) << "nothing known: every size is tried";
}

// ---- the report -----------------------------------------------------------

// Two sizes, pageable and pinned. The pinned H2D peak is at the smaller size
// (16 MiB in 0.35 ms), and so is the both-ways peak (2 x 16 MiB in 0.5 ms).
SweepReport made_up_report() {
  SweepOptions options;
  options.sizes = {16 * kMiB, 64 * kMiB};
  options.kinds = {HostMemory::pageable, HostMemory::pinned};
  DeviceInfo device;
  device.name = "Test GPU";
  device.async_engines = 2;
  SweepReport report(options, device, options.kinds, {});
  struct Times {
    double pageable_h2d, pinned_h2d, pageable_d2h, pinned_d2h, both, memcpy;
  };
  const std::pair<std::uint64_t, Times> sizes[] = {{16 * kMiB, {1.4, 0.35, 1.0, 0.4, 0.5, 1.0}},
                                                   {64 * kMiB, {5.0, 2.0, 4.0, 2.0, 2.5, 3.0}}};
  for (const auto& [bytes, t] : sizes) {
    SweepVariants variants;
    std::vector<Summary> summaries;
    auto add = [&](SweepKey key, double ms) {
      variants.add(key, [] { return Millis(0.0); });
      summaries.push_back(at(ms));
    };
    add({SweepOp::copy, HostMemory::pageable, CopyDirection::h2d}, t.pageable_h2d);
    add({SweepOp::copy, HostMemory::pinned, CopyDirection::h2d}, t.pinned_h2d);
    add({SweepOp::copy, HostMemory::pageable, CopyDirection::d2h}, t.pageable_d2h);
    add({SweepOp::copy, HostMemory::pinned, CopyDirection::d2h}, t.pinned_d2h);
    add({SweepOp::copy, HostMemory::pinned, CopyDirection::bidirectional}, t.both);
    add({SweepOp::host_memcpy, HostMemory::pageable, CopyDirection::h2d}, t.memcpy);
    report.add_sweep(bytes, variants, summaries);
    for (const HostMemory kind : options.kinds) report.add_check(bytes, kind, std::nullopt);
  }
  return report;
}

TEST(SweepReport, ThePeaksAreTheFastestSizesAndBothWaysCountsBothCopies) {
  const nlohmann::json doc = made_up_report().to_json();
  EXPECT_EQ(doc.at("subcommand"), "sweep");
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 4) << "2 sizes x 2 kinds";
  const nlohmann::json& bounds = doc.at("bounds");
  EXPECT_DOUBLE_EQ(bounds.at("pinned_h2d_peak_gbps").get<double>(), gbps(16.0 * kMiB, 0.35));
  EXPECT_DOUBLE_EQ(bounds.at("bidirectional_peak_gbps").get<double>(), gbps(2.0 * 16 * kMiB, 0.5));
  EXPECT_DOUBLE_EQ(bounds.at("pinned_over_pageable_h2d_at_largest").get<double>(), 5.0 / 2.0);
}

TEST(SweepReport, TheHeadingCountsSizesAndRunsInTheRightNumber) {
  SweepOptions options;
  options.sizes = {kMiB};
  options.kinds = {HostMemory::pinned};
  options.common.plan.repeats = 1;
  std::ostringstream out;
  SweepReport(options, DeviceInfo{}, options.kinds, {}).print(out);
  EXPECT_TRUE(has(out.str(), "1 size, 1 MiB; pinned host memory; median of 1 run after")) << out.str();
  std::ostringstream two;
  made_up_report().print(two);
  EXPECT_TRUE(has(two.str(), "2 sizes from 16 MiB to 64 MiB; ")) << two.str();
  EXPECT_TRUE(has(two.str(), "median of 10 runs after")) << two.str();
}

TEST(SweepReport, TheTablesShowPinnedOverPageableAndBothWaysAgainstTheSum) {
  std::ostringstream out;
  made_up_report().print(out);
  const std::string text = out.str();
  EXPECT_TRUE(has(text, "4.00x")) << "pinned/pageable at 16 MiB H2D: 1.4 / 0.35 ms\n" << text;
  EXPECT_FALSE(has(text, "0.25x")) << text;
  // Both ways at once, as % of H2D + D2H alone: 2 x 64 MiB in 2.5 ms against 64 MiB in 2.0 ms each way.
  EXPECT_TRUE(has(text, "80%")) << text;
  EXPECT_TRUE(has(text, "75%")) << text;
}

OverlapResult overlap_case(HostMemory kind, bool kernel_first, double ratio, double copy_end_after_kernel_end_ms) {
  OverlapResult r;
  r.c = {kind, CopyDirection::h2d, kernel_first};
  r.copy_alone = at(5.0);
  r.host_blocked = at(kind == HostMemory::pageable ? 4.9 : 0.01);
  r.together = at(15.0 / ratio);
  r.copy_end_after_kernel_end = at(copy_end_after_kernel_end_ms);
  r.overlap_ratio = ratio;
  r.ideal_ratio = 1.5;
  return r;
}

OverlapFigures made_up_overlap(double pageable_after_ratio) {
  OverlapFigures figures;
  figures.bytes = 64 * kMiB;
  figures.kernel_ms = 10;
  figures.measured.kernel_alone = at(10.0);
  // The copy queued after the kernel ended 2 ms before it.
  figures.measured.cases = {overlap_case(HostMemory::pageable, true, pageable_after_ratio, -2.0),
                            overlap_case(HostMemory::pageable, false, 1.0, 5.0),
                            overlap_case(HostMemory::pinned, false, 1.4, -1.0)};
  for (const HostMemory kind : {HostMemory::pageable, HostMemory::pinned}) {
    figures.checks.add("overlap", figures.bytes, kind, std::nullopt);
  }
  return figures;
}

TEST(OverlapReport, UnderFivePercentOverOneIsNoOverlapAndTheCopyEndIsSignedRight) {
  std::ostringstream out;
  print_overlap(out, made_up_overlap(1.03));
  const std::string text = out.str();
  EXPECT_TRUE(has(text, "Here the copy did not run beside the kernel either")) << text;
  EXPECT_TRUE(has(text, "it ended 2.000 ms before the kernel (overlap 1.03x)")) << text;
  EXPECT_TRUE(has(text, "all 2 round trips bit-exact")) << text;
}

TEST(OverlapReport, AboveFivePercentTheCopyRanBesideTheKernelAndTheClaimIsHalfTrue) {
  const std::string text = overlap_conclusion(made_up_overlap(1.5));
  EXPECT_TRUE(has(text, "Yet with the kernel already queued, the copy ran beside it")) << text;
  EXPECT_TRUE(has(text, "is half true")) << text;
  EXPECT_TRUE(has(text, "pinned memory returns in 0.0100 ms and gets 1.40x")) << text;
}

TEST(OverlapReport, TheJsonKeepsTheCombinedRunsNamesAndTheKernelFirstBounds) {
  OverlapOptions options;
  options.kinds = {HostMemory::pageable, HostMemory::pinned};
  options.bytes = 64 * kMiB;
  options.kernel_ms = 10;
  const nlohmann::json doc = overlap_json(options, DeviceInfo{}, made_up_overlap(1.5), "overlap");
  EXPECT_EQ(doc.at("subcommand"), "overlap");
  std::map<std::string, int> names;
  for (const auto& m : doc.at("measurements")) ++names[m.at("name").get<std::string>()];
  EXPECT_EQ(names, (std::map<std::string, int>{{"busy_kernel", 1},
                                               {"overlap_copy_alone", 1},
                                               {"overlap_together", 3},
                                               {"overlap_host_blocked", 3}}));
  EXPECT_EQ(doc.at("overlap").size(), 3U);
  // Each row: the case's params, then every figure of it.
  const nlohmann::json& row = doc.at("overlap").at(2);
  EXPECT_EQ(row.at("host_memory"), "pinned");
  EXPECT_EQ(row.at("order"), "copy_first");
  EXPECT_EQ(row.at("bytes"), 64 * kMiB);
  EXPECT_DOUBLE_EQ(row.at("kernel_alone_ms").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(row.at("copy_alone_ms").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(row.at("together_ms").get<double>(), 15.0 / 1.4);
  EXPECT_DOUBLE_EQ(row.at("host_blocked_ms").get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(row.at("copy_end_after_kernel_end_ms").get<double>(), -1.0);
  EXPECT_DOUBLE_EQ(row.at("overlap_ratio").get<double>(), 1.4);
  EXPECT_DOUBLE_EQ(row.at("ideal_ratio").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(doc.at("bounds").at("pageable_h2d_overlap_ratio").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(doc.at("bounds").at("pageable_h2d_async_host_blocked_ms").get<double>(), 4.9);
  EXPECT_FALSE(doc.at("bounds").contains("pinned_h2d_overlap_ratio")) << "pinned was measured copy first only";
  EXPECT_EQ(doc.at("verification").at("passed"), true);
}

// ---- the pinning's check --------------------------------------------------------

TEST(PinningReport, EveryAllocationMustBePageLockedAndOneMustHaveBeenMade) {
  PinningCost cost;
  cost.bytes = kMiB;
  cost.checks = 6;
  cost.page_locked_checks = 6;
  EXPECT_TRUE(pinning_verified({cost}));
  EXPECT_FALSE(pinning_verified({})) << "nothing allocated, nothing verified";
  cost.page_locked_checks = 5;
  EXPECT_FALSE(pinning_verified({cost}));
  std::ostringstream out;
  print_pinning(out, PinningPlan{{kMiB}, {4 * kGiB}, 6 * kGiB}, {cost}, 3);
  EXPECT_TRUE(has(out.str(), "VERIFICATION FAILED")) << out.str();
  EXPECT_TRUE(has(out.str(), "skipped 4 GiB")) << out.str();
  EXPECT_TRUE(has(out.str(), "median of 3 rounds;")) << out.str();
  std::ostringstream one;
  print_pinning(one, PinningPlan{{kMiB}, {}, std::nullopt}, {cost}, 1);
  EXPECT_TRUE(has(one.str(), "median of 1 round;")) << one.str();
}

// ---- the lesson's conclusions, every branch ---------------------------------------

TEST(LessonConclusions, TheCallReturnedOnlyAfterTheCopyAtOnceOrBetween) {
  EXPECT_EQ(async_call_text(HostMemory::pageable, CopyDirection::h2d, 8.3, 8.4),
            "pageable H2D: the call returned only after the copy (99% of its 8.400 ms): synchronous for the host");
  const std::string at_half = async_call_text(HostMemory::pageable, CopyDirection::d2h, 4.0, 8.0);
  EXPECT_TRUE(has(at_half, "only after the copy")) << "50% is the edge, included: " << at_half;
  EXPECT_EQ(async_call_text(HostMemory::pinned, CopyDirection::h2d, 0.005, 1.2),
            "pinned H2D: the call returned at once (0% of its 1.200 ms): the host is free while it copies");
  const std::string at_ten = async_call_text(HostMemory::pinned, CopyDirection::d2h, 0.1, 1.0);
  EXPECT_TRUE(has(at_ten, "at once (10% of")) << "10% is the edge, included: " << at_ten;
  EXPECT_EQ(async_call_text(HostMemory::pageable, CopyDirection::h2d, 3.0, 10.0),
            "pageable H2D: the call returned before the copy ended, but not at once (30% of its 10.00 ms, over 10%)");
}

TEST(LessonConclusions, PinnedFasterTheSameOrSlowerAtTheLargestSize) {
  const std::string faster = bandwidth_ratio_text(CopyDirection::h2d, "at 256 MiB", 55.3, 8.2);
  EXPECT_EQ(faster, "H2D at 256 MiB: pinned 55.3 GB/s, pageable 8.2 GB/s: pinned memory moved 6.74x faster.");
  const std::string same = bandwidth_ratio_text(CopyDirection::d2h, "at 256 MiB", 50.0, 49.0);
  EXPECT_TRUE(has(same, "about the same (within 3%)")) << same;
  const std::string slower = bandwidth_ratio_text(CopyDirection::h2d, "at 64 KiB", 3.0, 4.0);
  EXPECT_TRUE(has(slower, "pageable memory moved faster: the article's claim does not hold here")) << slower;
}

// ---- the lesson's report ----------------------------------------------------------

void add_samples(lesson02::CopySamples& samples, double copy_ms, double call_ms) {
  for (int round = 0; round < 3; ++round) {
    samples.copy.push_back(Millis(copy_ms));
    samples.call.push_back(Millis(call_ms));
  }
}

// The H200's figures, roughly: pageable 8 GB/s H2D and 15 D2H at 256 MiB,
// pinned 55; the 64 MiB pageable call held the host about as long as its copy.
lesson02::Figures made_up_lesson() {
  lesson02::Figures f;
  for (const std::size_t bytes : {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{16} << 20, std::size_t{256} << 20}) {
    lesson02::SizeFigures size;
    size.bytes = bytes;
    const double b = static_cast<double>(bytes);
    add_samples(size.copies[0][0], b / 8e6, b / 8e6);    // pageable H2D
    add_samples(size.copies[0][1], b / 15e6, b / 15e6);  // pageable D2H
    add_samples(size.copies[1][0], b / 55e6, 0.005);     // pinned H2D
    add_samples(size.copies[1][1], b / 55e6, 0.005);     // pinned D2H
    f.sweep.push_back(size);
  }
  f.async.bytes = 64 * kMiB;
  add_samples(f.async.copies[0][0], 8.4, 8.3);
  add_samples(f.async.copies[0][1], 4.5, 4.6);
  add_samples(f.async.copies[1][0], 1.22, 0.005);
  add_samples(f.async.copies[1][1], 1.22, 0.004);
  return f;
}

TEST(Lesson02Report, OneScreenWithBothConclusionsAndTheSweepsNames) {
  testing::TempDir dir;
  lesson02::Options options;
  options.sizes = {64 << 10, 1 << 20, 16 << 20, 256 << 20};
  options.async_bytes = 64 * kMiB;
  options.json_path = dir.file("02.json");
  std::ostringstream out;
  EXPECT_TRUE(lesson02::report(out, options, DeviceInfo{}, made_up_lesson()));
  const std::string text = out.str();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 40) << text;
  EXPECT_TRUE(has(text, "H2D at 256 MiB: pinned 55.0 GB/s, pageable 8.0 GB/s: pinned memory moved 6.88x faster."))
      << text;
  EXPECT_TRUE(has(text, "pageable H2D: the call returned only after the copy (99% of its 8.400 ms)")) << text;
  EXPECT_TRUE(has(text, "pinned H2D: the call returned at once (0% of its 1.220 ms)")) << text;
  EXPECT_TRUE(has(text, "every byte arrived")) << text;
  const nlohmann::json doc = testing::read_json(options.json_path);
  EXPECT_TRUE(doc.at("subcommand").is_null());
  std::map<std::string, int> names;
  for (const auto& m : doc.at("measurements")) ++names[m.at("name").get<std::string>()];
  EXPECT_EQ(names, (std::map<std::string, int>{{"copy", 16}, {"async_copy", 4}, {"async_call", 4}}));
  EXPECT_NEAR(doc.at("bounds").at("pinned_h2d_peak_gbps").get<double>(), 55.0, 1e-9);
  EXPECT_NEAR(doc.at("bounds").at("pinned_over_pageable_d2h_at_largest").get<double>(), 55.0 / 15.0, 1e-9);
  EXPECT_DOUBLE_EQ(doc.at("bounds").at("pageable_h2d_async_host_blocked_ms").get<double>(), 8.3);
}

TEST(Lesson02Report, BytesThatDidNotArriveFailTheRunAndAreNamed) {
  lesson02::Options options;
  options.sizes = {64 << 10, 1 << 20, 16 << 20, 256 << 20};
  options.async_bytes = 64 * kMiB;
  lesson02::Figures f = made_up_lesson();
  f.checks[1] = "after a round trip, byte 7 of 256 MiB is 0x00, expected 0x0b";
  std::ostringstream out;
  EXPECT_FALSE(lesson02::report(out, options, DeviceInfo{}, f));
  EXPECT_TRUE(has(out.str(), "VERIFICATION FAILED: pinned memory, after a round trip, byte 7")) << out.str();
  EXPECT_FALSE(has(out.str(), "every byte arrived")) << out.str();
}

// ---- the checks ---------------------------------------------------------------------

TEST(ByteChecks, NothingCheckedIsNoPassAndTheFirstFailureIsNamed) {
  ByteChecks checks;
  EXPECT_FALSE(checks.passed());
  EXPECT_EQ(checks.failure_message(), "nothing was checked");
  checks.add("sweep", 4096, HostMemory::pinned, std::nullopt);
  EXPECT_TRUE(checks.passed());
  EXPECT_EQ(checks.summary(), "all 1 round trip bit-exact");
  checks.add("sweep", 4096, HostMemory::pageable, ByteMismatch{12, std::byte{0x0b}, std::byte{0x00}});
  EXPECT_FALSE(checks.passed());
  EXPECT_FALSE(checks.verified("sweep", 4096, HostMemory::pageable));
  EXPECT_TRUE(checks.verified("sweep", 4096, HostMemory::pinned));
  EXPECT_FALSE(checks.verified("overlap", 4096, HostMemory::pinned)) << "no check of it";
  EXPECT_EQ(checks.summary(),
            "VERIFICATION FAILED: round trip not bit-exact (sweep, 4 KiB, pageable memory): byte 12 expected 0x0b, "
            "got 0x00");
}

}  // namespace
}  // namespace csg::copies
