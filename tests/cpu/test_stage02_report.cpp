// Stage 02's figures from made-up measurements, no GPU: every branch of its
// verdicts (each carries its figures and threshold, and the console prints
// its sentence); the overlap experiment's bookkeeping (its ratios, the
// warm-up runs left out); which sizes the pinning experiment may pin; and
// what each report prints and writes: the sweep's peaks, pinned/pageable
// ratios and both ways at once; the overlap's table, verdicts and JSON; the
// timeline's cases; the pinning's check; the lesson's report on one screen;
// and the checks' verification line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

#include "matchers.hpp"
#include "02_pinned_vs_pageable/lab/overlap.hpp"
#include "02_pinned_vs_pageable/lab/pinning-cost/pinning_cost.hpp"
#include "02_pinned_vs_pageable/lab/sweep/sweep.hpp"
#include "02_pinned_vs_pageable/lesson_report.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "report/conclusions.hpp"
#include "run_process.hpp"
#include "made_up.hpp"

namespace csg::copies {
namespace cpu_stage02_report {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

Summary at(double ms) { return summarize({Millis(ms)}); }

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// Every verdict the report carries, and the console printed each one's sentence.
std::map<std::string, Verdict> verdicts_printed(const Report& report) {
  std::map<std::string, Verdict> by_id;
  const std::string console = report.console();
  const nlohmann::json doc = report.document();
  for (const auto& carried : doc.at("verdicts")) {
    const Verdict verdict = verdict_from_json(carried);
    EXPECT_THAT(console, HasSubstr(verdict.sentence)) << verdict.id;
    by_id.emplace(verdict.id, verdict);
  }
  return by_id;
}

// ---- the verdicts, every branch -------------------------------------------------------

// Two figures a verdict weighs, the outcome they must choose and the words
// its sentence must say.
struct TwoFigures {
  double first, second;
  std::string outcome, words;
};
using CallCase = TwoFigures;  // the call's time, the copy's

class AsyncCallVerdict : public ::testing::TestWithParam<CallCase> {};

// The share of the copy the call held the host chooses the words.
TEST_P(AsyncCallVerdict, ChosenByTheShare) {
  const CallCase& c = GetParam();
  const Verdict verdict = async_call_verdict(HostMemory::pageable, CopyDirection::d2h, c.first, c.second);
  EXPECT_THAT(verdict, IsVerdict("async_call.pageable.d2h", c.outcome, {"pageable D2H: the call returned ", c.words}));
  EXPECT_DOUBLE_EQ(verdict.figures.at("call_share").get<double>(), c.first / c.second);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("blocked_share").get<double>(), kBlockedShare);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("at_once_share").get<double>(), kAtOnceShare);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, AsyncCallVerdict,
    ::testing::Values(CallCase{8.3, 8.4, "synchronous", "only after the copy (99% of its 8.400 ms): synchronous"},
                      CallCase{4.0, 8.0, "synchronous", "only after the copy (50% of"},  // the edge, included
                      CallCase{0.005, 1.2, "at_once", "at once (0% of its 1.200 ms): the host is free"},
                      CallCase{0.1, 1.0, "at_once", "at once (10% of"},  // the edge, included
                      CallCase{3.0, 10.0, "partly", "before the copy ended, but not at once (30% of its 10.00 ms, "
                                                    "over 10%)"}),
    [](const ::testing::TestParamInfo<CallCase>& param_info) { return param_info.param.outcome + std::to_string(param_info.index); });

TEST(HostBlockedVerdict, HalfTheCopyOrMoreIsNotAsynchronousForTheHost) {
  const Verdict blocked = host_blocked_verdict(8.3, 8.4);
  EXPECT_EQ(blocked.id, "overlap.host_blocked");
  EXPECT_EQ(blocked.outcome, "blocked");
  EXPECT_THAT(blocked.sentence, HasSubstr("held the host 8.300 ms of the 8.400 ms the copy takes alone: for the host "
                                          "it is not asynchronous"));
  EXPECT_DOUBLE_EQ(blocked.threshold.get<double>(), kBlockedShare);
  const Verdict early = host_blocked_verdict(0.5, 8.4);
  EXPECT_EQ(early.outcome, "returned_early");
  EXPECT_THAT(early.sentence, AllOf(HasSubstr("returned before the copy was done"), Not(HasSubstr("not asynchronous"))));
  EXPECT_DOUBLE_EQ(early.figures.at("host_blocked_ms").get<double>(), 0.5);
}

struct StagingCase {
  double pageable_ms;
  std::string outcome, words;
};

class StagingVerdict : public ::testing::TestWithParam<StagingCase> {};

TEST_P(StagingVerdict, APageableCopyAgainstAMemcpyPlusThePinnedCopy) {
  // Against 25 + 5 ms one after the other, 10% either way is the same.
  const Verdict verdict = staging_verdict(256 * kMiB, GetParam().pageable_ms, 25.0, 5.0);
  EXPECT_THAT(verdict, IsVerdict("sweep.staging", GetParam().outcome, {"At 256 MiB, pageable H2D took", GetParam().words}));
  EXPECT_DOUBLE_EQ(verdict.figures.at("host_memcpy_ms").get<double>(), 25.0);
  EXPECT_DOUBLE_EQ(verdict.figures.at("reference_ms").get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kStagingWithin);
}

INSTANTIATE_TEST_SUITE_P(Branches, StagingVerdict,
                         ::testing::Values(StagingCase{32.0, "same", "the extra host copy is the whole difference"},
                                           StagingCase{15.0, "faster", "= 0.50x (host memcpy 25.00 + pinned DMA "
                                                                       "5.000 ms): less than the two"},
                                           StagingCase{40.0, "slower", "staging costs more"}),
                         [](const ::testing::TestParamInfo<StagingCase>& param_info) { return param_info.param.outcome; });

using BandwidthCase = TwoFigures;  // pinned GB/s, pageable GB/s

class BandwidthVerdict : public ::testing::TestWithParam<BandwidthCase> {};

TEST_P(BandwidthVerdict, PinnedFasterTheSameOrSlower) {
  const BandwidthCase& c = GetParam();
  const Verdict verdict = bandwidth_verdict("bandwidth.h2d", CopyDirection::h2d, "at 256 MiB", c.first,
                                            c.second);
  EXPECT_THAT(verdict, IsVerdict("bandwidth.h2d", c.outcome, {"H2D at 256 MiB: pinned ", c.words}));
  EXPECT_DOUBLE_EQ(verdict.figures.at("pinned_over_pageable").get<double>(), c.first / c.second);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kEqualWithin);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, BandwidthVerdict,
    ::testing::Values(BandwidthCase{55.3, 8.2, "faster", "pinned 55.3 GB/s, pageable 8.2 GB/s: pinned memory moved "
                                                         "6.74x faster."},
                      BandwidthCase{50.0, 49.0, "same", "about the same (within 3%)"},
                      BandwidthCase{3.0, 4.0, "slower", "pageable memory moved faster: the article's claim does not "
                                                        "hold here"}),
    [](const ::testing::TestParamInfo<BandwidthCase>& param_info) { return param_info.param.outcome; });

TEST(BothWaysVerdict, MoreThanAQuarterAboveOneDirectionIsAGain) {
  const Verdict gain = both_ways_verdict(256 * kMiB, 99.0, 55.3);
  EXPECT_EQ(gain.id, "sweep.both_ways");
  EXPECT_EQ(gain.outcome, "gain");
  EXPECT_THAT(gain.sentence, HasSubstr("moved 99.0 GB/s in total, 1.79x one direction alone: the link carries both"));
  EXPECT_DOUBLE_EQ(gain.threshold.get<double>(), kDuplexGain);
  const Verdict none = both_ways_verdict(256 * kMiB, 60.0, 55.0);
  EXPECT_EQ(none.outcome, "no_gain");
  EXPECT_THAT(none.sentence, HasSubstr("only 1.09x one direction alone (not more than 25% above it)"));
  EXPECT_EQ(both_ways_verdict(kMiB, 125.0, 100.0).outcome, "no_gain") << "25% above: the edge, no gain";
}

// ---- the overlap experiment's bookkeeping ---------------------------------------------

double copy_ms(HostMemory kind, CopyDirection direction) {
  if (kind == HostMemory::pageable) return direction == CopyDirection::h2d ? 4.0 : 5.0;
  return direction == CopyDirection::h2d ? 2.0 : 3.0;
}

TEST(OverlapMeasurements, EachCaseHasItsOwnCopyAloneItsRatiosAndNoWarmUpRuns) {
  const std::vector<HostMemory> kinds = {HostMemory::pageable, HostMemory::pinned};
  // Every case's host_blocked: 100 ms in the two warm-up runs, then 1, 2, 3 ms.
  std::map<std::tuple<HostMemory, CopyDirection, bool>, int> calls;
  auto together = [&](const overlap::Case& c) {
    const int call = calls[{c.kind, c.direction, c.kernel_first}]++;
    overlap::TogetherRun run;
    run.total = Millis(c.kind == HostMemory::pageable ? 12.0 : 10.5);
    run.host_blocked = Millis(call < 2 ? 100.0 : call - 1.0);
    run.copy_end_after_kernel_end = Millis(-1.0);
    return run;
  };
  const overlap::Measurements result = overlap::measure_cases(
      RepeatPlan{2, 3}, kinds, [] { return Millis(10.0); },
      [](HostMemory kind, CopyDirection direction) { return Millis(copy_ms(kind, direction)); }, together);
  ASSERT_EQ(result.cases.size(), 8U);
  EXPECT_DOUBLE_EQ(result.kernel_alone.median_ms, 10.0);
  for (const overlap::CaseResult& r : result.cases) {
    const double copy = copy_ms(r.c.kind, r.c.direction);
    const double total = r.c.kind == HostMemory::pageable ? 12.0 : 10.5;
    SCOPED_TRACE(overlap::describe(r.c));
    EXPECT_DOUBLE_EQ(r.copy_alone.median_ms, copy);
    EXPECT_DOUBLE_EQ(r.overlap_ratio, (10.0 + copy) / total);
    EXPECT_DOUBLE_EQ(r.ideal_ratio, (10.0 + copy) / 10.0) << "over the longer, the kernel";
    EXPECT_EQ(r.host_blocked.samples, 3) << "the warm-up runs left out";
    EXPECT_DOUBLE_EQ(r.host_blocked.median_ms, 2.0);
  }
}

TEST(OverlapTimeline, DrawsThePageableH2dBothWaysAndThePinnedCopyIssuedFirst) {
  std::vector<std::string> drawn;
  for (const overlap::Case& c : overlap::timeline_cases({HostMemory::pageable, HostMemory::pinned})) {
    drawn.push_back(overlap::describe(c));
  }
  EXPECT_THAT(drawn, ElementsAre("pageable H2D, kernel then copy", "pageable H2D, copy then kernel",
                                 "pinned H2D, copy then kernel"));
  EXPECT_EQ(overlap::timeline_cases({HostMemory::pinned}).size(), 1U);
}

// ---- which sizes may be pinned ----------------------------------------------------------

TEST(PinningPlan, AtMostHalfOfTheAvailableMemoryIsPinnedEdgeIncluded) {
  const PinningPlan plan = plan_pinning({kGiB, 2 * kGiB, 4 * kGiB}, 4 * kGiB);
  EXPECT_THAT(plan.sizes, ElementsAre(kGiB, 2 * kGiB));
  EXPECT_THAT(plan.skipped, ElementsAre(4 * kGiB));
  EXPECT_EQ(plan_pinning({kGiB, 4 * kGiB}, std::nullopt).sizes.size(), 2U) << "nothing known: every size is tried";
}

// ---- the sweep's report ------------------------------------------------------------------

DeviceInfo test_gpu() {
  DeviceInfo device;
  device.name = "Test GPU";
  device.async_engines = 2;
  return device;
}

// Two sizes, pageable and pinned. The pinned H2D peak is at the smaller size
// (16 MiB in 0.35 ms), and so is the both-ways peak (2 x 16 MiB in 0.5 ms).
struct MadeUpSweep {
  sweep::Config config;
  sweep::Figures figures;
};

MadeUpSweep made_up_sweep() {
  MadeUpSweep s;
  s.config.sizes = {16 * kMiB, 64 * kMiB};
  s.config.kinds = s.figures.kinds = {HostMemory::pageable, HostMemory::pinned};
  struct Times {
    double pageable_h2d, pinned_h2d, pageable_d2h, pinned_d2h, both, memcpy;
  };
  const std::pair<std::uint64_t, Times> sizes[] = {{16 * kMiB, {1.4, 0.35, 1.0, 0.4, 0.5, 1.0}},
                                                   {64 * kMiB, {5.0, 2.0, 4.0, 2.0, 2.5, 3.0}}};
  for (const auto& [bytes, t] : sizes) {
    auto add = [&, bytes = bytes](HostMemory kind, CopyDirection direction, double ms) {
      s.figures.copies.push_back({bytes, kind, direction, at(ms)});
    };
    add(HostMemory::pageable, CopyDirection::h2d, t.pageable_h2d);
    add(HostMemory::pinned, CopyDirection::h2d, t.pinned_h2d);
    add(HostMemory::pageable, CopyDirection::d2h, t.pageable_d2h);
    add(HostMemory::pinned, CopyDirection::d2h, t.pinned_d2h);
    add(HostMemory::pinned, CopyDirection::bidirectional, t.both);
    s.figures.host_memcpy[bytes] = at(t.memcpy);
    for (const HostMemory kind : s.config.kinds) s.figures.checks.add("sweep", bytes, kind, std::nullopt);
  }
  return s;
}

Report sweep_report(const MadeUpSweep& s) {
  return testing::report_of("02_pinned_vs_pageable", "sweep", sweep::report, s.config, s.figures, test_gpu());
}

TEST(SweepReport, ThePeaksAreTheFastestSizesAndBothWaysCountsBothCopies) {
  const nlohmann::json doc = sweep_report(made_up_sweep()).document();
  EXPECT_EQ(doc.at("subcommand"), "sweep");
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 4) << "2 sizes x 2 kinds";
  EXPECT_EQ(doc.at("verification").at("method"), "round-trip bit-exact");
  const nlohmann::json& bounds = doc.at("bounds");
  EXPECT_DOUBLE_EQ(bounds.at("pinned_h2d_peak_gbps").get<double>(), gbps(16.0 * kMiB, 0.35));
  EXPECT_DOUBLE_EQ(bounds.at("bidirectional_peak_gbps").get<double>(), gbps(2.0 * 16 * kMiB, 0.5));
  EXPECT_DOUBLE_EQ(bounds.at("pinned_over_pageable_h2d_at_largest").get<double>(), 5.0 / 2.0);
  EXPECT_EQ(doc.at("staging").size(), 4U) << "2 sizes x 2 directions";
  std::map<std::string, int> names;
  for (const auto& m : doc.at("measurements")) ++names[m.at("name").get<std::string>()];
  EXPECT_EQ(names, (std::map<std::string, int>{{"copy", 10}, {"host_memcpy", 2}}));
  for (const auto& m : doc.at("measurements")) {
    EXPECT_EQ(m.at("verified").is_null(), m.at("name") == "host_memcpy") << m.dump();
  }
}

TEST(SweepReport, TheHeadingCountsSizesAndRunsInTheRightNumber) {
  MadeUpSweep one;
  one.config.sizes = {kMiB};
  one.config.kinds = one.figures.kinds = {HostMemory::pinned};
  one.config.common.plan.repeats = 1;
  one.figures.checks.add("sweep", kMiB, HostMemory::pinned, std::nullopt);
  EXPECT_THAT(sweep_report(one).console(), HasSubstr("1 size, 1 MiB; pinned host memory; median of 1 run after"));
  EXPECT_THAT(sweep_report(made_up_sweep()).console(),
              AllOf(HasSubstr("2 sizes from 16 MiB to 64 MiB; "), HasSubstr("median of 10 runs after")));
}

TEST(SweepReport, TheTablesShowPinnedOverPageableAndBothWaysAgainstTheSum) {
  const std::string text = sweep_report(made_up_sweep()).console();
  EXPECT_THAT(text, HasSubstr("4.00x")) << "pinned/pageable at 16 MiB H2D: 1.4 / 0.35 ms";
  EXPECT_THAT(text, Not(HasSubstr("0.25x")));
  // Both ways at once, as % of H2D + D2H alone: 2 x 64 MiB in 2.5 ms against 64 MiB in 2.0 ms each way.
  EXPECT_THAT(text, AllOf(HasSubstr("80%"), HasSubstr("75%")));
  EXPECT_THAT(text, HasSubstr("all 4 round trips verified (round-trip bit-exact) (every size and kind"));
}

TEST(SweepReport, ItsVerdictsAreTheStagingBothWaysAndThePeaksInThePrintedWords) {
  const std::map<std::string, Verdict> verdicts = verdicts_printed(sweep_report(made_up_sweep()));
  ASSERT_EQ(verdicts.size(), 4U);
  // At 64 MiB: 5 ms against 3 + 2 ms, 2 x 64 MiB in 2.5 ms against 64 MiB in 2 ms.
  EXPECT_EQ(verdicts.at("sweep.staging").outcome, "same");
  EXPECT_EQ(verdicts.at("sweep.staging").figures.at("bytes"), 64 * kMiB);
  EXPECT_EQ(verdicts.at("sweep.both_ways").outcome, "gain");
  EXPECT_DOUBLE_EQ(verdicts.at("sweep.both_ways").figures.at("ratio").get<double>(), 2.0 * 2.0 / 2.5);
  EXPECT_EQ(verdicts.at("sweep.peak.h2d").outcome, "faster");
  EXPECT_DOUBLE_EQ(verdicts.at("sweep.peak.h2d").figures.at("pinned_gbps").get<double>(), gbps(16.0 * kMiB, 0.35));
  EXPECT_EQ(verdicts.at("sweep.peak.d2h").outcome, "faster");
}

TEST(SweepReport, WithoutPageableThereIsNoStagingAndNoPinnedOverPageable) {
  MadeUpSweep s = made_up_sweep();
  s.config.kinds = s.figures.kinds = {HostMemory::pinned};
  std::erase_if(s.figures.copies, [](const CopyPoint& p) { return p.kind == HostMemory::pageable; });
  s.figures.host_memcpy.clear();
  const Report report = sweep_report(s);
  EXPECT_THAT(report.console(), HasSubstr("2) staging cost: skipped"));
  const std::map<std::string, Verdict> verdicts = verdicts_printed(report);
  EXPECT_EQ(verdicts.count("sweep.staging"), 0U);
  EXPECT_EQ(verdicts.count("sweep.peak.h2d"), 0U);
  EXPECT_EQ(verdicts.count("sweep.both_ways"), 1U);
  EXPECT_TRUE(report.document().at("staging").empty());
}

// ---- the overlap's report ------------------------------------------------------------------

overlap::CaseResult overlap_case(HostMemory kind, bool kernel_first, double ratio, double copy_end_after_kernel_end_ms) {
  overlap::CaseResult r;
  r.c = {kind, CopyDirection::h2d, kernel_first};
  r.copy_alone = at(5.0);
  r.host_blocked = at(kind == HostMemory::pageable ? 4.9 : 0.01);
  r.together = at(15.0 / ratio);
  r.copy_end_after_kernel_end = at(copy_end_after_kernel_end_ms);
  r.overlap_ratio = ratio;
  r.ideal_ratio = 1.5;
  return r;
}

struct MadeUpOverlap {
  overlap::Config config;
  overlap::Figures figures;
};

MadeUpOverlap made_up_overlap(double pageable_after_ratio) {
  MadeUpOverlap o;
  o.config.kinds = {HostMemory::pageable, HostMemory::pinned};
  o.config.bytes = 64 * kMiB;
  o.config.kernel_ms = 10;
  o.figures.measured.kernel_alone = at(10.0);
  // The copy queued after the kernel ended 2 ms before it.
  o.figures.measured.cases = {overlap_case(HostMemory::pageable, true, pageable_after_ratio, -2.0),
                              overlap_case(HostMemory::pageable, false, 1.0, 5.0),
                              overlap_case(HostMemory::pinned, false, 1.4, -1.0)};
  for (const HostMemory kind : o.config.kinds) o.figures.checks.add("overlap", o.config.bytes, kind, std::nullopt);
  return o;
}

Report overlap_report(const MadeUpOverlap& o, const char* subcommand = "overlap") {
  return testing::report_of("02_pinned_vs_pageable", subcommand, overlap::report, o.config, o.figures, test_gpu());
}

TEST(OverlapVerdict, UnderFivePercentOverOneIsNoOverlapAndTheCopyEndIsSignedRight) {
  const std::vector<Verdict> verdicts = overlap::verdicts(made_up_overlap(1.03).figures.measured);
  ASSERT_EQ(verdicts.size(), 2U);
  EXPECT_EQ(verdicts[0].id, "overlap.host_blocked");
  EXPECT_EQ(verdicts[0].outcome, "blocked");
  EXPECT_EQ(verdicts[1].id, "overlap.copy_beside_kernel");
  EXPECT_EQ(verdicts[1].outcome, "not_overlapped");
  EXPECT_THAT(verdicts[1].sentence, AllOf(HasSubstr("Here the copy did not run beside the kernel either"),
                                          HasSubstr("it ended 2.000 ms before the kernel (overlap 1.03x)")));
  EXPECT_DOUBLE_EQ(verdicts[1].threshold.get<double>(), kOverlappedRatio - 1.0);
  EXPECT_DOUBLE_EQ(verdicts[1].figures.at("copy_end_after_kernel_end_ms").get<double>(), -2.0);
}

TEST(OverlapVerdict, AboveFivePercentTheCopyRanBesideTheKernelAndTheClaimIsHalfTrue) {
  const std::vector<Verdict> verdicts = overlap::verdicts(made_up_overlap(1.5).figures.measured);
  ASSERT_EQ(verdicts.size(), 2U);
  EXPECT_EQ(verdicts[1].outcome, "overlapped");
  EXPECT_THAT(verdicts[1].sentence, AllOf(HasSubstr("Yet with the kernel already queued, the copy ran beside it"),
                                          HasSubstr("is half true"),
                                          HasSubstr("pinned memory returns in 0.0100 ms and gets 1.40x")));
  EXPECT_DOUBLE_EQ(verdicts[1].figures.at("pinned_copy_first_overlap_ratio").get<double>(), 1.4);
}

TEST(OverlapVerdict, WithoutPageableMemoryThereIsNothingToJudge) {
  overlap::Measurements pinned_only = made_up_overlap(1.5).figures.measured;
  std::erase_if(pinned_only.cases, [](const overlap::CaseResult& r) { return r.c.kind == HostMemory::pageable; });
  EXPECT_THAT(overlap::verdicts(pinned_only), IsEmpty());
}

TEST(OverlapReport, TheJsonKeepsTheCombinedRunsNamesAndTheKernelFirstBounds) {
  const Report report = overlap_report(made_up_overlap(1.5));
  EXPECT_EQ(verdicts_printed(report).size(), 2U);
  EXPECT_THAT(report.console(), AllOf(HasSubstr("cudaMemcpyAsync of 64 MiB on one stream beside a busy kernel"),
                                      HasSubstr("all 2 round trips verified (round-trip bit-exact) (every kind's")));
  const nlohmann::json doc = report.document();
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
  EXPECT_FALSE(doc.contains("timeline")) << "only the timeline subcommand draws";
}

TEST(OverlapReport, TheTimelineNamesEachCaseAndWritesNoTraceWithNothingRecorded) {
  MadeUpOverlap o = made_up_overlap(1.5);
  o.config.draw = true;
  o.config.timeline_pairs = 3;
  o.config.trace_path = "never.json";
  for (const overlap::Case& c : overlap::timeline_cases(o.config.kinds)) {
    RecordedTimeline unavailable;
    unavailable.unavailable_reason = "no CUPTI here";
    o.figures.pictures.push_back({overlap::describe(c), unavailable});
  }
  const Report report = overlap_report(o, "timeline");
  EXPECT_THAT(report.console(), AllOf(HasSubstr("3 batches of a copy and a kernel each"),
                                      HasSubstr("pageable H2D, copy then kernel:"), HasSubstr("no CUPTI here"),
                                      Not(HasSubstr("written to never.json"))));
  const nlohmann::json timeline = report.document().at("timeline");
  EXPECT_EQ(timeline.at("cases").size(), 3U);
  EXPECT_EQ(timeline.at("cases").at(0).at("recorded"), false);
  EXPECT_EQ(timeline.at("batches_per_case"), 3);
  EXPECT_TRUE(timeline.at("trace_file").is_null());
}

TEST(OverlapReport, ABufferThatCameBackWrongFailsTheRunAndIsNamed) {
  MadeUpOverlap o = made_up_overlap(1.5);
  o.figures.checks.add("overlap", o.config.bytes, HostMemory::pinned, ByteMismatch{12, std::byte{0x0b}, std::byte{0x00}});
  const Report report = overlap_report(o);
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.console(), HasSubstr("verification failed: round trip not bit-exact (overlap, 64 MiB, pinned "
                                          "memory): byte 12 expected 0x0b, got 0x00"));
  EXPECT_THAT(report.document().at("verification").at("failure").get<std::string>(), HasSubstr("byte 12"));
}

// ---- the pinning's report ---------------------------------------------------------------------

TEST(PinningReport, EveryAllocationMustBePageLockedAndOneMustHaveBeenMade) {
  PinningCost cost;
  cost.bytes = kMiB;
  cost.checks = 6;
  cost.page_locked_checks = 6;
  EXPECT_TRUE(pinning_verified({cost}));
  EXPECT_FALSE(pinning_verified({})) << "nothing allocated, nothing verified";
  PinningConfig config;
  config.sizes = {kMiB, 4 * kGiB};
  config.plan = PinningPlan{{kMiB}, {4 * kGiB}, 6 * kGiB};
  config.repeats = 3;
  Report passed("02_pinned_vs_pageable", "pinning-cost", test_gpu());
  report_pinning(config, {cost}, passed);
  EXPECT_TRUE(passed.passed());
  EXPECT_THAT(passed.console(), AllOf(HasSubstr("median of 3 rounds;"), HasSubstr("skipped 4 GiB"),
                                      HasSubstr("all 6 cudaMallocHost and cudaHostRegister allocations verified")));
  const nlohmann::json doc = passed.document();
  EXPECT_EQ(doc.at("measurements").size(), 5U) << "five calls at 1 MiB";
  EXPECT_EQ(doc.at("pinning").at("skipped_sizes"), nlohmann::json({4 * kGiB}));
  EXPECT_EQ(doc.at("config").at("pin_sizes"), nlohmann::json({kMiB, 4 * kGiB}));

  cost.page_locked_checks = 5;
  config.repeats = 1;
  Report failed("02_pinned_vs_pageable", "pinning-cost", test_gpu());
  report_pinning(config, {cost}, failed);
  EXPECT_FALSE(failed.passed());
  EXPECT_THAT(failed.console(), AllOf(HasSubstr("median of 1 round;"),
                                      HasSubstr("verification failed: an allocation the driver does not report")));
}

// ---- the lesson's report ---------------------------------------------------------------------------

void add_samples(lesson02::CopySamples& samples, double copy, double call) {
  for (int round = 0; round < 3; ++round) {
    samples.copy.push_back(Millis(copy));
    samples.call.push_back(Millis(call));
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

lesson02::Options lesson_options() {
  lesson02::Options options;
  options.sizes = {64 << 10, 1 << 20, 16 << 20, 256 << 20};
  options.async_bytes = 64 * kMiB;
  return options;
}

TEST(Lesson02Report, OneScreenWithItsVerdictsAndTheSweepsNames) {
  testing::TempDir dir;
  lesson02::Options options = lesson_options();
  options.json_path = dir.file("02.json");
  std::ostringstream out;
  EXPECT_TRUE(lesson02::report(out, options, DeviceInfo{}, made_up_lesson()));
  const std::string text = out.str();
  EXPECT_LE(lines_of(text), 40U) << text;
  EXPECT_THAT(text, AllOf(HasSubstr("H2D at 256 MiB: pinned 55.0 GB/s, pageable 8.0 GB/s: pinned memory moved 6.88x "
                                    "faster."),
                          HasSubstr("pageable H2D: the call returned only after the copy (99% of its 8.400 ms)"),
                          HasSubstr("pinned H2D: the call returned at once (0% of its 1.220 ms)"),
                          HasSubstr("all 2 host memory kinds verified (round-trip bit-exact) (every byte arrived")));
  const nlohmann::json doc = testing::read_json(options.json_path);
  EXPECT_TRUE(doc.at("subcommand").is_null());
  std::map<std::string, int> names;
  for (const auto& m : doc.at("measurements")) ++names[m.at("name").get<std::string>()];
  EXPECT_EQ(names, (std::map<std::string, int>{{"copy", 16}, {"async_copy", 4}, {"async_call", 4}}));
  EXPECT_NEAR(doc.at("bounds").at("pinned_h2d_peak_gbps").get<double>(), 55.0, 1e-9);
  EXPECT_NEAR(doc.at("bounds").at("pinned_over_pageable_d2h_at_largest").get<double>(), 55.0 / 15.0, 1e-9);
  EXPECT_DOUBLE_EQ(doc.at("bounds").at("pageable_h2d_async_host_blocked_ms").get<double>(), 8.3);
  // Its six verdicts, in the words printed.
  std::map<std::string, std::string> outcomes;
  for (const auto& v : doc.at("verdicts")) {
    const Verdict verdict = verdict_from_json(v);
    EXPECT_THAT(text, HasSubstr(verdict.sentence));
    outcomes[verdict.id] = verdict.outcome;
  }
  EXPECT_EQ(outcomes, (std::map<std::string, std::string>{{"bandwidth.h2d", "faster"},
                                                           {"bandwidth.d2h", "faster"},
                                                           {"async_call.pageable.h2d", "synchronous"},
                                                           {"async_call.pinned.h2d", "at_once"},
                                                           {"async_call.pageable.d2h", "synchronous"},
                                                           {"async_call.pinned.d2h", "at_once"}}));
}

TEST(Lesson02Report, BytesThatDidNotArriveFailTheRunAndAreNamed) {
  lesson02::Figures f = made_up_lesson();
  f.checks[1] = "after a round trip, byte 7 of 256 MiB is 0x00, expected 0x0b";
  std::ostringstream out;
  EXPECT_FALSE(lesson02::report(out, lesson_options(), DeviceInfo{}, f));
  EXPECT_THAT(out.str(), AllOf(HasSubstr("verification failed: pinned memory, after a round trip, byte 7"),
                               Not(HasSubstr("every byte arrived"))));
}

// ---- the checks ------------------------------------------------------------------------------------

TEST(ByteChecks, NothingCheckedIsNoPassAndTheFirstFailureIsNamed) {
  ByteChecks checks;
  EXPECT_FALSE(checks.passed());
  EXPECT_EQ(checks.failure_message(), "nothing was checked");
  checks.add("sweep", 4096, HostMemory::pinned, std::nullopt);
  EXPECT_TRUE(checks.passed());
  StageResult result;
  verify_with(result, checks);
  EXPECT_EQ(result.verification.message(), "the 1 round trip verified (round-trip bit-exact)");
  checks.add("sweep", 4096, HostMemory::pageable, ByteMismatch{12, std::byte{0x0b}, std::byte{0x00}});
  EXPECT_FALSE(checks.passed());
  EXPECT_FALSE(checks.verified("sweep", 4096, HostMemory::pageable));
  EXPECT_TRUE(checks.verified("sweep", 4096, HostMemory::pinned));
  EXPECT_FALSE(checks.verified("overlap", 4096, HostMemory::pinned)) << "no check of it";
  verify_with(result, checks);
  EXPECT_EQ(result.variants_verified, 1);
  EXPECT_EQ(result.verification.message(),
            "verification failed: round trip not bit-exact (sweep, 4 KiB, pageable memory): byte 12 expected 0x0b, "
            "got 0x00");
}

}  // namespace cpu_stage02_report
}  // namespace csg::copies
