// Stage 02's figures from made-up measurements, no GPU: the overlap
// experiment's bookkeeping (its ratios, the warm-up runs left out), which
// sizes the pinning experiment may pin, and what the report prints and
// writes: the peaks, the pinned/pageable ratios, both ways at once, and the
// overlap sentence.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <tuple>

#include "02_pinned_vs_pageable/async_overlap.hpp"
#include "02_pinned_vs_pageable/pinning_cost.hpp"
#include "02_pinned_vs_pageable/report.hpp"

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
CopyReport made_up_report() {
  CopyOptions options;
  options.sizes = {16 * kMiB, 64 * kMiB};
  options.kinds = {HostMemory::pageable, HostMemory::pinned};
  options.pin_repeats = 3;
  DeviceInfo device;
  device.name = "Test GPU";
  device.async_engines = 2;
  CopyReport report(options, device, options.kinds, {});
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
    for (const HostMemory kind : options.kinds) report.add_check("sweep", bytes, kind, std::nullopt);
  }
  return report;
}

TEST(CopyReport, ThePeaksAreTheFastestSizesAndBothWaysCountsBothCopies) {
  const nlohmann::json bounds = made_up_report().to_json().at("bounds");
  EXPECT_DOUBLE_EQ(bounds.at("pinned_h2d_peak_gbps").get<double>(), gbps(16.0 * kMiB, 0.35));
  EXPECT_DOUBLE_EQ(bounds.at("bidirectional_peak_gbps").get<double>(), gbps(2.0 * 16 * kMiB, 0.5));
  EXPECT_DOUBLE_EQ(bounds.at("pinned_over_pageable_h2d_at_largest").get<double>(), 5.0 / 2.0);
}

TEST(CopyReport, TheTablesShowPinnedOverPageableAndBothWaysAgainstTheSum) {
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

TEST(CopyReport, AnOverlapRatioUnderFivePercentAboveOneIsNoOverlapAndTheCopyEndIsSignedRight) {
  CopyReport report = made_up_report();
  OverlapMeasurements overlap;
  overlap.kernel_alone = at(10.0);
  // The copy queued after the kernel ended 2 ms before it, with an overlap of only 1.03x.
  overlap.cases = {overlap_case(HostMemory::pageable, true, 1.03, -2.0),
                   overlap_case(HostMemory::pageable, false, 1.0, 5.0),
                   overlap_case(HostMemory::pinned, false, 1.4, -1.0)};
  report.set_overlap(64 * kMiB, overlap);
  std::ostringstream out;
  report.print(out);
  const std::string text = out.str();
  EXPECT_TRUE(has(text, "Here the copy did not run beside the kernel either")) << text;
  EXPECT_TRUE(has(text, "it ended 2.000 ms before the kernel (overlap 1.03x)")) << text;
}

}  // namespace
}  // namespace csg::copies
