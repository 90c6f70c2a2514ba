// Stage 02's batched-copies from made-up figures, no GPU: every branch of its
// four verdicts, a failed check or a refused call concluding nothing; the
// "batched_copies" section (per_copy_issue_us for the After-the-article
// table, the ways), the measurements and the verification; sentences that
// say the figures the table prints; the ways' calls; the options and their
// ranges, through the declaration and through the built stage; the estimate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "02_pinned_vs_pageable/lab/batched-copies/batched_copies.hpp"
#include "base/errors.hpp"
#include "declaration_checks.hpp"
#include "made_up.hpp"
#include "matchers.hpp"
#include "run_process.hpp"
#include "subcommand_checks.hpp"
#include "usage_checks.hpp"

namespace csg::copies::batched {
namespace cpu_batched_copies {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr int kCopies = 200;

WayFigures& way(Figures& f, WayId id) {
  for (WayFigures& w : f.ways) {
    if (w.id == id) return w;
  }
  throw std::logic_error("no such way in the made-up figures");
}

// One way that ran and verified: issued in `issue_ms`, moved in `transfer_ms`,
// `together_ms` beside the 10 ms kernel.
WayFigures ran(WayId id, double issue_ms, double transfer_ms, double together_ms) {
  WayFigures w;
  w.id = id;
  w.calls = calls_of(way_of(id), kCopies);
  w.issue = testing::flat(issue_ms);
  w.transfer = testing::flat(transfer_ms);
  w.together = testing::flat(together_ms);
  w.overlap_ratio = (10.0 + transfer_ms) / together_ms;
  w.ideal_ratio = (10.0 + transfer_ms) / std::max(10.0, transfer_ms);
  w.runs_checked = 24;
  w.verified = true;
  return w;
}

// The article's 200 copies (400 MiB) on an H100-like machine: pinned, 3.55 us
// a copy as cudaMemcpyAsync and 2.30 as one batch (torchcomms' figures);
// pageable, the host held through the copies except with order any.
Figures article() {
  Figures f;
  f.copies = kCopies;
  f.bytes = 400 * kMiB;
  f.kernel_alone = testing::flat(10.0);
  f.ways = {ran(WayId::pinned_async, 0.710, 7.6, 10.2),
            ran(WayId::pinned_batch, 0.460, 7.6, 10.2),
            ran(WayId::pinned_batch_split, 0.500, 7.6, 10.2),
            ran(WayId::pageable_async, 52.0, 52.5, 55.0),
            ran(WayId::pageable_batch, 50.0, 51.0, 54.0),
            ran(WayId::pageable_batch_any, 20.0, 50.0, 53.0),
            ran(WayId::pageable_batch_during_call, 51.0, 51.5, 54.5)};
  return f;
}

Config article_config() { return Config{}; }  // the article's workload, 2 warm-up + 10 runs, a 10 ms kernel

Report report_of(const Figures& f) {
  return testing::report_of("02_pinned_vs_pageable", "batched-copies", report, article_config(), f);
}

// ---- the verdicts, every branch ---------------------------------------------------------

struct IssueCase {
  const char* name;
  double batch_issue_ms;  // against 0.710 ms for 200 cudaMemcpyAsync: 3.55 us a copy
  const char* outcome;
  std::vector<std::string> words;
};

class BatchedCopiesIssue : public ::testing::TestWithParam<IssueCase> {};

TEST_P(BatchedCopiesIssue, ChosenByTheTimePerCopy) {
  const IssueCase& c = GetParam();
  Figures f = article();
  way(f, WayId::pinned_batch).issue = testing::flat(c.batch_issue_ms);
  const Verdict verdict = issue_verdict(f);
  EXPECT_THAT(verdict, IsVerdict("batched_copies.issue", c.outcome, c.words));
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("3.55 us a copy"), HasSubstr("200 cudaMemcpyAsync calls took 0.710 ms")));
  EXPECT_DOUBLE_EQ(verdict.figures.at("memcpy_async_per_copy_us").get<double>(), 3.55);
  EXPECT_DOUBLE_EQ(verdict.figures.at("batch_per_copy_us").get<double>(), c.batch_issue_ms * 1000.0 / kCopies);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kIssueWithin);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, BatchedCopiesIssue,
    ::testing::Values(
        IssueCase{"cuts", 0.460, "cuts", {"2.30 us a copy", "the batch cut the host's time per copy 1.54x"}},
        IssueCase{"cuts_just_past_the_band", 0.630, "cuts", {"3.15 us a copy", "cut the host's time per copy 1.13x"}},
        IssueCase{"same", 0.680, "same", {"3.40 us a copy", "no difference (within 10%)", "does not pay for the host"}},
        IssueCase{"worse", 0.900, "worse", {"4.50 us a copy", "cost the host 1.27x more per copy", "does not pay"}}),
    [](const ::testing::TestParamInfo<IssueCase>& param_info) { return std::string(param_info.param.name); });

TEST(BatchedCopiesIssueSplit, TheCallsOf25AreQuotedBesideTheOneCall) {
  const Verdict verdict = issue_verdict(article());
  EXPECT_THAT(verdict.sentence, HasSubstr("in 8 calls of 25, 2.50 us"));
  EXPECT_EQ(verdict.figures.at("split_calls"), 8);
}

struct TransferCase {
  const char* name;
  double batch_ms;  // against 7.6 ms for 200 cudaMemcpyAsync
  const char* outcome;
  std::vector<std::string> words;
};

class BatchedCopiesTransfer : public ::testing::TestWithParam<TransferCase> {};

TEST_P(BatchedCopiesTransfer, ChosenByTheEventsAroundTheCopies) {
  const TransferCase& c = GetParam();
  Figures f = article();
  way(f, WayId::pinned_batch).transfer = testing::flat(c.batch_ms);
  const Verdict verdict = transfer_verdict(f);
  EXPECT_THAT(verdict, IsVerdict("batched_copies.transfer", c.outcome, c.words));
  EXPECT_THAT(verdict.sentence, HasSubstr("the 200 cudaMemcpyAsync calls (7.600 ms, 55.2 GB/s)"));
  EXPECT_DOUBLE_EQ(verdict.figures.at("ms").get<double>(), c.batch_ms);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kTransferWithin);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, BatchedCopiesTransfer,
    ::testing::Values(
        TransferCase{"faster", 7.0, "faster", {"in 7.000 ms (59.9 GB/s)", "faster than", "kept the copy engine busier"}},
        TransferCase{"same", 7.7, "same", {"about as fast as", "changes the host's work, not the transfer"}},
        TransferCase{"slower", 9.0, "slower", {"1.18x slower than", "more slowly here"}}),
    [](const ::testing::TestParamInfo<TransferCase>& param_info) { return std::string(param_info.param.name); });

struct OverlapCase {
  const char* name;
  double async_ratio, batch_ratio;
  const char* outcome;
  std::vector<std::string> words;
  double async_ideal = 0.0, batch_ideal = 0.0;  // 0: the article's (both 1.76x, 7.6 ms of copies)
};

class BatchedCopiesOverlap : public ::testing::TestWithParam<OverlapCase> {};

TEST_P(BatchedCopiesOverlap, ChosenByTheTwoOverlapRatios) {
  const OverlapCase& c = GetParam();
  Figures f = article();
  way(f, WayId::pinned_async).overlap_ratio = c.async_ratio;
  way(f, WayId::pinned_batch).overlap_ratio = c.batch_ratio;
  if (c.async_ideal > 0.0) way(f, WayId::pinned_async).ideal_ratio = c.async_ideal;
  if (c.batch_ideal > 0.0) way(f, WayId::pinned_batch).ideal_ratio = c.batch_ideal;
  const Verdict verdict = overlap_verdict(f);
  EXPECT_THAT(verdict, IsVerdict("batched_copies.overlap", c.outcome, c.words));
  EXPECT_DOUBLE_EQ(verdict.figures.at("batch_overlap_ratio").get<double>(), c.batch_ratio);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("overlapped_ratio").get<double>(), kOverlappedRatio);
  EXPECT_DOUBLE_EQ(verdict.threshold.at("overlap_within").get<double>(), kOverlapWithin);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, BatchedCopiesOverlap,
    ::testing::Values(
        OverlapCase{"as_async", 1.72, 1.70, "overlaps_as_async", {"the batch got 1.70x", "copies 1.72x", "as the separate copies do"}},
        OverlapCase{"less", 1.72, 1.45, "overlaps_less", {"still overlaps the kernel, but less", "more than 5% below"}},
        // Each way against its own ideal: the separate copies took longer (more
        // to hide behind the kernel), so their ratio is higher at the same overlap.
        OverlapCase{"slower_copies", 1.89, 1.78, "overlaps_as_async",
                    {"copies 1.89x (ideal 1.88x)", "100% and 101% of their ideals", "as the separate copies do"},
                    1.88, 1.78},
        OverlapCase{"less_of_its_ideal", 1.72, 1.72, "overlaps_less",
                    {"86% and 98% of their ideals", "against each one's ideal"}, 1.76, 2.0},
        OverlapCase{"not", 1.72, 1.02, "not_overlapped", {"the separate copies overlapped the kernel, the batch did not"}},
        OverlapCase{"only_batch", 1.00, 1.50, "only_batch", {"only the batch overlapped"}},
        OverlapCase{"neither", 1.01, 1.00, "neither_overlapped", {"neither overlapped", "nothing to compare"}}),
    [](const ::testing::TestParamInfo<OverlapCase>& param_info) { return std::string(param_info.param.name); });

struct OrderCase {
  const char* name;
  double any_issue_ms, during_issue_ms;  // against 50 ms in stream order
  const char* outcome;
  std::vector<std::string> words;
};

class BatchedCopiesPageableOrder : public ::testing::TestWithParam<OrderCase> {};

TEST_P(BatchedCopiesPageableOrder, ByTheBestOtherOrder) {
  const OrderCase& c = GetParam();
  Figures f = article();
  way(f, WayId::pageable_batch_any).issue = testing::flat(c.any_issue_ms);
  way(f, WayId::pageable_batch_during_call).issue = testing::flat(c.during_issue_ms);
  const Verdict verdict = pageable_order_verdict(f);
  EXPECT_THAT(verdict, IsVerdict("batched_copies.pageable_order", c.outcome, c.words));
  EXPECT_THAT(verdict.sentence, AllOf(HasSubstr("stream order held the host 50.00 ms"),
                                      HasSubstr("(200 cudaMemcpyAsync: 52.00 ms)")));
  EXPECT_DOUBLE_EQ(verdict.figures.at("any_issue_ms").get<double>(), c.any_issue_ms);
  EXPECT_DOUBLE_EQ(verdict.threshold.get<double>(), kOrderWithin);
}

INSTANTIATE_TEST_SUITE_P(
    Branches, BatchedCopiesPageableOrder,
    ::testing::Values(
        OrderCase{"frees_host", 20.0, 51.0, "frees_host", {"order any 20.00 ms", "gave the host back 2.50x sooner"}},
        OrderCase{"during_call_frees", 60.0, 25.0, "frees_host", {"order during_api_call gave the host back 2.00x"}},
        OrderCase{"no_change", 48.0, 51.0, "no_change", {"changed nothing for the host (within 10%)"}},
        OrderCase{"holds_longer", 60.0, 70.0, "holds_host_longer", {"held the host longer than stream order"}}),
    [](const ::testing::TestParamInfo<OrderCase>& param_info) { return std::string(param_info.param.name); });

TEST(BatchedCopiesPageableOrderRefused, ARefusedStreamOrderBatchIsTheFinding) {
  Figures f = article();
  way(f, WayId::pageable_batch).refused = "cudaErrorInvalidValue: invalid argument";
  EXPECT_THAT(pageable_order_verdict(f),
              IsVerdict("batched_copies.pageable_order", "refused",
                        {"the driver refused cudaMemcpyBatchAsync of pageable memory in stream order",
                         "(cudaErrorInvalidValue: invalid argument); order any: accepted"}));
  const Report report = report_of(f);
  EXPECT_TRUE(report.passed()) << "a pageable way the driver refuses is a finding, not a failure";
  EXPECT_THAT(report.console(), HasSubstr("refused: cudaErrorInvalidValue"));
}

TEST(BatchedCopiesPageableOrderRefused, EveryOtherOrderRefusedSaysSo) {
  Figures f = article();
  way(f, WayId::pageable_batch_any).refused = "cudaErrorNotSupported: operation not supported";
  way(f, WayId::pageable_batch_during_call).refused = "cudaErrorInvalidValue: invalid argument";
  const Verdict verdict = pageable_order_verdict(f);
  EXPECT_THAT(verdict, IsVerdict("batched_copies.pageable_order", "refused",
                                 {"order any refused (cudaErrorNotSupported", "took no other source access order"}));
  EXPECT_EQ(verdict.figures.at("during_api_call_refused"), "cudaErrorInvalidValue: invalid argument");
}

// ---- nothing concluded from a failed check or a refused pinned call ----------------------

TEST(BatchedCopiesNoConclusion, AFailedCheckConcludesNothingAndFailsTheRun) {
  Figures f = article();
  WayFigures& batch = way(f, WayId::pinned_batch);
  batch.verified = false;
  batch.failure = "byte 12 (A_0) expected 0x0b, got 0x00";
  for (const Verdict& verdict : {issue_verdict(f), transfer_verdict(f), overlap_verdict(f)}) {
    EXPECT_THAT(verdict, IsVerdict("", "no_conclusion", {"no conclusion, a check of 1 cudaMemcpyBatchAsync, stream "
                                                         "order from pinned memory failed (byte 12 (A_0)"}));
  }
  EXPECT_EQ(pageable_order_verdict(f).outcome, "frees_host") << "the pageable ways verified";
  const Report report = report_of(f);
  testing::expect_failed(report, "bit-exact", "verification failed: 1 cudaMemcpyBatchAsync, stream order from "
                                              "pinned memory: byte 12 (A_0) expected 0x0b, got 0x00");
  EXPECT_EQ(report.document().at("batched_copies").at("ways").at(1).at("verified"), false);
}

TEST(BatchedCopiesNoConclusion, AFailedPageableCheckConcludesNothingAboutTheOrder) {
  Figures f = article();
  way(f, WayId::pageable_batch_any).verified = false;
  way(f, WayId::pageable_batch_any).failure = "byte 0 (A_0) expected 0x0b, got 0x00";
  EXPECT_THAT(pageable_order_verdict(f),
              IsVerdict("batched_copies.pageable_order", "no_conclusion", {"order any from pageable memory failed"}));
  EXPECT_FALSE(report_of(f).passed());
}

TEST(BatchedCopiesNoConclusion, APinnedCallTheDriverRefusedFailsTheRun) {
  Figures f = article();
  way(f, WayId::pinned_batch).refused = "cudaErrorInvalidValue: invalid argument";
  EXPECT_THAT(issue_verdict(f), IsVerdict("batched_copies.issue", "no_conclusion",
                                          {"the driver refused 1 cudaMemcpyBatchAsync, stream order from pinned"}));
  const Report report = report_of(f);
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.console(), HasSubstr("FAILED: the driver refused 1 cudaMemcpyBatchAsync, stream order from "
                                          "pinned memory: cudaErrorInvalidValue"));
  EXPECT_TRUE(report.document().at("batched_copies").at("per_copy_issue_us").at("pinned").at("batch").is_null());
}

// ---- what the report prints and writes ----------------------------------------------------

TEST(BatchedCopiesReport, PrintsARowPerWayEveryVerdictAndTheChecks) {
  const Report report = report_of(article());
  EXPECT_THAT(testing::printed_verdict_ids(report),
              ElementsAre("batched_copies.issue", "batched_copies.transfer", "batched_copies.overlap",
                          "batched_copies.pageable_order"));
  EXPECT_THAT(report.console(),
              AllOf(HasSubstr("200 copies host to device, A_i (2 MiB) and B_i (2 MiB) of 100 batches: 400 MiB"),
                    HasSubstr("pinned: 200 cudaMemcpyAsync "), HasSubstr("pinned: 1 cudaMemcpyBatchAsync, stream order "),
                    HasSubstr("pinned: 8 cudaMemcpyBatchAsync of 25, stream order "),
                    HasSubstr("pageable: 200 cudaMemcpyAsync "), HasSubstr("pageable: 1 cudaMemcpyBatchAsync, order any "),
                    HasSubstr("pageable: 1 cudaMemcpyBatchAsync, during the call "),
                    HasSubstr("all 168 runs verified"), HasSubstr("(every run of every way, warm-up included)")));
  EXPECT_TRUE(report.passed());
}

TEST(BatchedCopiesReport, TheIssueSentenceSaysTheFiguresTheTableAndJsonHold) {
  const Report report = report_of(article());
  const nlohmann::json per_copy = report.document().at("batched_copies").at("per_copy_issue_us").at("pinned");
  const std::string batch_us = fixed(per_copy.at("batch").get<double>(), 2);
  const std::string async_us = fixed(per_copy.at("memcpy_async").get<double>(), 2);
  EXPECT_EQ(batch_us, "2.30");
  EXPECT_EQ(async_us, "3.55");
  EXPECT_THAT(issue_verdict(article()).sentence,
              AllOf(HasSubstr(batch_us + " us a copy"), HasSubstr(async_us + " us a copy")));
  EXPECT_THAT(report.console(), AllOf(HasSubstr(" 2.30 "), HasSubstr(" 3.55 ")));
}

TEST(BatchedCopiesReport, JsonHoldsPerCopyIssueTimesForTheAfterTheArticleTable) {
  Figures f = article();
  way(f, WayId::pageable_batch_any).refused = "cudaErrorInvalidValue: invalid argument";
  const nlohmann::json doc = report_of(f).document();
  const nlohmann::json& section = doc.at("batched_copies");
  const nlohmann::json& per_copy = section.at("per_copy_issue_us");
  EXPECT_DOUBLE_EQ(per_copy.at("pinned").at("memcpy_async").get<double>(), 3.55);
  EXPECT_DOUBLE_EQ(per_copy.at("pinned").at("batch").get<double>(), 2.30);
  EXPECT_DOUBLE_EQ(per_copy.at("pageable").at("memcpy_async").get<double>(), 260.0);
  EXPECT_DOUBLE_EQ(per_copy.at("pageable").at("batch").get<double>(), 250.0);
  const nlohmann::json& config = section.at("config");
  EXPECT_EQ(config.at("batches"), 100);
  EXPECT_EQ(config.at("copies"), 200);
  EXPECT_EQ(config.at("a_bytes"), 2 * kMiB);
  EXPECT_EQ(config.at("b_bytes"), 2 * kMiB);
  EXPECT_EQ(config.at("copies_per_split_call"), kCopiesPerSplitCall);
  EXPECT_EQ(config.at("kernel_ms"), 10);
  EXPECT_EQ(section.at("kernel_alone_ms"), 10.0);
  EXPECT_EQ(section.at("pageable_memory_access"), false);
  const nlohmann::json& ways = section.at("ways");
  ASSERT_THAT(ways, SizeIs(7));
  EXPECT_EQ(ways.at(2).at("way"), "pinned_batch_split");
  EXPECT_EQ(ways.at(2).at("calls"), 8);
  EXPECT_EQ(ways.at(2).at("source_order"), "stream");
  EXPECT_DOUBLE_EQ(ways.at(1).at("transfer_ms").get<double>(), 7.6);
  EXPECT_DOUBLE_EQ(ways.at(1).at("overlap_ratio").get<double>(), 17.6 / 10.2);
  EXPECT_EQ(ways.at(1).at("runs_checked"), 24);
  EXPECT_TRUE(ways.at(1).at("refused").is_null());
  EXPECT_EQ(ways.at(5).at("way"), "pageable_batch_any");
  EXPECT_EQ(ways.at(5).at("refused"), "cudaErrorInvalidValue: invalid argument");
  EXPECT_TRUE(ways.at(5).at("issue_ms").is_null());
  EXPECT_EQ(ways.at(6).at("source_order"), "during_api_call");
}

TEST(BatchedCopiesReport, WhatACapturingStreamAnsweredIsPrintedAndCarried) {
  Figures f = article();
  EXPECT_TRUE(report_of(f).document().at("batched_copies").at("capture_status").is_null());
  EXPECT_THAT(report_of(f).console(), Not(HasSubstr("on a capturing stream")));
  f.capture_status = "cudaErrorStreamCaptureUnsupported";
  EXPECT_EQ(report_of(f).document().at("batched_copies").at("capture_status"), "cudaErrorStreamCaptureUnsupported");
  EXPECT_THAT(report_of(f).console(), HasSubstr("on a capturing stream, one cudaMemcpyBatchAsync returned "
                                                "cudaErrorStreamCaptureUnsupported: the batch can't be captured"));
  f.capture_status = "cudaSuccess";
  EXPECT_THAT(report_of(f).console(), HasSubstr("returned cudaSuccess: the batch can be captured into a graph"));
}

TEST(BatchedCopiesReport, MeasurementsAreEachWayAloneAndWithTheKernel) {
  Figures f = article();
  way(f, WayId::pageable_batch_any).refused = "cudaErrorInvalidValue: invalid argument";
  const Report report = report_of(f);
  const StageResult& result = report.result;
  ASSERT_THAT(result.measurements, SizeIs(1 + 2 * 6)) << "the busy kernel, then each way that ran, twice";
  EXPECT_EQ(result.measurements.at(0).name, "busy_kernel");
  EXPECT_FALSE(result.measurements.at(0).verifiable);
  const Measurement& batch = result.measurements.at(3);
  EXPECT_EQ(batch.name, "batched_copies");
  EXPECT_EQ(batch.params.at("way"), "pinned_batch");
  EXPECT_DOUBLE_EQ(batch.stats.median_ms, 7.6);
  ASSERT_TRUE(batch.host_issue.has_value());
  EXPECT_DOUBLE_EQ(batch.host_issue->median_ms, 0.460);
  EXPECT_EQ(result.measurements.at(4).name, "batched_copies_with_kernel");
  EXPECT_EQ(result.verification.batches_checked, 6 * 24);
  EXPECT_EQ(result.verification.checked, "run");
  EXPECT_EQ(result.variants_verified, 6);
  EXPECT_EQ(report.document().at("config").at("copies"), 200);
}

// ---- the ways -------------------------------------------------------------------------------

TEST(BatchedCopiesWays, TheSplitBatchIsOneCallPer25Copies) {
  EXPECT_EQ(calls_of(way_of(WayId::pinned_async), 200), 200);
  EXPECT_EQ(calls_of(way_of(WayId::pinned_batch), 200), 1);
  EXPECT_EQ(calls_of(way_of(WayId::pinned_batch_split), 200), 8);
  EXPECT_EQ(calls_of(way_of(WayId::pinned_batch_split), 201), 9);
  EXPECT_EQ(calls_of(way_of(WayId::pinned_batch_split), 8), 1);
  EXPECT_EQ(describe(way_of(WayId::pinned_batch_split), 8), "1 cudaMemcpyBatchAsync of 8, stream order");
  EXPECT_EQ(describe(way_of(WayId::pageable_batch_during_call), 200), "1 cudaMemcpyBatchAsync, during the call");
  EXPECT_EQ(to_string(way_of(WayId::pageable_batch_any).order), "any");
}

// ---- the options ------------------------------------------------------------------------------

Config options(const std::vector<std::string>& args) {
  return testing::read_declared(defaults(), add_options, read, args);
}

TEST(BatchedCopiesOptions, TheArticlesSizesByDefaultAndTheSharedFlags) {
  const Config article = options({});
  EXPECT_EQ(article.common.work.batches, 100);
  EXPECT_EQ(article.common.work.shape.m, 1024);
  EXPECT_EQ(article.common.work.shape.n, 1024);
  EXPECT_EQ(article.common.work.shape.k, 512);
  EXPECT_EQ(article.kernel_ms, 10);
  EXPECT_EQ(article.common.plan.warmup, 2);
  EXPECT_EQ(article.common.plan.repeats, 10);
  EXPECT_EQ(bytes_of(article.common.work), 400 * kMiB) << "A_i and B_i, 2 MiB each, of 100 batches";
  const Config tiny = options({"--batches", "4", "--m", "64", "--n", "32", "--k", "16", "--kernel-ms", "1",
                               "--warmup", "0", "--repeats", "1"});
  EXPECT_EQ(tiny.common.work.batches, 4);
  EXPECT_EQ(bytes_of(tiny.common.work), 4U * (64 * 16 + 16 * 32) * 4);
  EXPECT_EQ(tiny.kernel_ms, 1);
  EXPECT_EQ(tiny.common.plan.repeats, 1);
}

struct BadOption {
  const char* name;
  std::vector<std::string> args;
  std::string must_mention;
};

class BatchedCopiesBadOption : public ::testing::TestWithParam<BadOption> {};

TEST_P(BatchedCopiesBadOption, IsAUsageErrorNamingTheFlag) {
  try {
    options(GetParam().args);
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& error) {
    EXPECT_THAT(error.what(), HasSubstr(GetParam().must_mention));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ranges, BatchedCopiesBadOption,
    ::testing::Values(BadOption{"kernel_ms_zero", {"--kernel-ms", "0"}, "--kernel-ms takes an integer in [1, 10000]"},
                      BadOption{"kernel_ms_too_long", {"--kernel-ms", "10001"}, "--kernel-ms takes an integer"},
                      BadOption{"kernel_ms_text", {"--kernel-ms", "ten"}, "--kernel-ms takes an integer"},
                      BadOption{"batches_zero", {"--batches", "0"}, "--batches takes an integer"},
                      BadOption{"batches_too_many", {"--batches", "500001"}, "--batches takes at most 500000 here"},
                      BadOption{"m_text", {"--m", "12x"}, "--m takes an integer"},
                      BadOption{"host_memory", {"--host-memory", "pinned"}, "unknown option '--host-memory'"},
                      BadOption{"kernel", {"--kernel", "tiled"}, "unknown option '--kernel'"}),
    [](const ::testing::TestParamInfo<BadOption>& param_info) { return std::string(param_info.param.name); });

#ifdef CSG_STAGE02_BINARY

TEST(BatchedCopiesCli, RefusesBadInputTakesGoodInputAndHelpsWithItsOwnFlags) {
  testing::expect_command_line_promises(
      CSG_STAGE02_BINARY,
      {.refused = {{{"batched-copies", "--kernel-ms", "0"}, "--kernel-ms takes an integer in [1, 10000]"},
                   {{"batched-copies", "--batches", "500001"}, "--batches takes at most 500000 here"},
                   {{"batched-copies", "--repeats", "0"}, "--repeats takes an integer"},
                   {{"batched-copies", "--host-memory", "pinned"}, "unknown option '--host-memory'"},
                   {{"batched-copies", "--overlap-mib", "4"}, "unknown option '--overlap-mib'"},
                   {{"batched-copies", "--batches", "2147483647", "--m", "65536", "--k", "65536"}, "overflow 64 bits"},
                   // 16 GiB per A_i: three host buffers of 500,000 of them fit no machine.
                   {{"batched-copies", "--batches", "500000", "--m", "65536", "--n", "1", "--k", "65536"},
                    "try fewer --batches"}},
       .accepted = {{"batched-copies"},
                    {"batched-copies", "--batches", "4", "--m", "64", "--n", "64", "--k", "64", "--kernel-ms", "1"}},
       .helps = {{"batched-copies", {"--batches", "--m", "--n", "--k", "--kernel-ms", "--warmup", "--repeats"},
                  {"--host-memory", "--kernel ", "--overlap-mib", "--sizes"}},
                 {"", {"batched-copies"}, {}}}});
}

TEST(BatchedCopiesCli, WithoutAGpuItEndsWith77AndOneLine) {
  const testing::ProcessResult run =
      testing::run_process({CSG_STAGE02_BINARY, "batched-copies", "--batches", "2"}, {"CUDA_VISIBLE_DEVICES="});
  EXPECT_EQ(run.exit_code, kExitNoDevice);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_THAT(run.err, HasSubstr("batched-copies"));
}

#endif  // CSG_STAGE02_BINARY

// ---- the estimate ------------------------------------------------------------------------------

TEST(BatchedCopiesEstimate, CountsEveryRoundAndStaysWellUnderHalfAMinute) {
  const Rates h200{.kernel_flops_per_s = 0.0, .pinned_bytes_per_s = 55e9, .pageable_bytes_per_s = 8e9};
  const Config article = options({});
  const double seconds = estimate_seconds(article, h200);
  EXPECT_GT(seconds, 2.0);
  EXPECT_LT(seconds, 25.0);
  const Config one_round = options({"--warmup", "0", "--repeats", "1"});
  EXPECT_LT(estimate_seconds(one_round, h200), seconds / 8.0);
  const Config longer_kernel = options({"--kernel-ms", "100"});
  // 90 ms more for the kernel alone and for each of the 7 ways beside it, in each of the 12 rounds.
  EXPECT_NEAR(estimate_seconds(longer_kernel, h200) - seconds, 12 * 90e-3 * 8, 1e-9);
  const Config tiny = options({"--batches", "4", "--m", "64", "--n", "64", "--k", "64", "--kernel-ms", "1"});
  EXPECT_LT(estimate_seconds(tiny, h200), 0.2);
}

}  // namespace cpu_batched_copies
}  // namespace csg::copies::batched
