// Long requests are estimated before anything large is allocated and refused
// over --max-minutes; clean interrupts end a stage with 130 or 143 and one line.
// Both on the CPU side: the rates are given, the signal is real.
#include <gtest/gtest.h>

#include <csignal>
#include <optional>

#include "01_serial_baseline/report.hpp"
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"
#include "04_graph_capture_gemm/lab/costs/costs.hpp"
#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "stage.hpp"
#include "cli/options.hpp"
#include "measure/estimate.hpp"

namespace csg {
namespace cpu_estimate {

// Roughly a naive GEMM on an H200 and its PCIe Gen5 link.
constexpr Rates kRates{.kernel_flops_per_s = 2e12, .pinned_bytes_per_s = 50e9, .pageable_bytes_per_s = 20e9};

std::string refusal(double seconds, int max_minutes) {
  try {
    check_estimate(seconds, max_minutes, "the work");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(Estimate, WorkSecondsAreTheWorkOverTheRates) {
  const Workload work{100, GemmShape{512, 512, 256}};
  const WorkSeconds pinned = work_seconds(work, kRates, false);
  EXPECT_DOUBLE_EQ(pinned.kernels, 100.0 * 2.0 * 512 * 512 * 256 / 2e12);
  EXPECT_DOUBLE_EQ(pinned.h2d, 100.0 * work.a_bytes() / 50e9);
  EXPECT_DOUBLE_EQ(pinned.d2h, 100.0 * work.c_bytes() / 50e9);
  EXPECT_DOUBLE_EQ(pinned.serial(), pinned.kernels + pinned.h2d + pinned.d2h);
  EXPECT_DOUBLE_EQ(pinned.overlapped(), std::max({pinned.kernels, pinned.h2d, pinned.d2h}));
  const WorkSeconds pageable = work_seconds(work, kRates, true);
  EXPECT_DOUBLE_EQ(pageable.h2d, pinned.h2d * 50.0 / 20.0);
  EXPECT_DOUBLE_EQ(pageable.kernels, pinned.kernels);
  // A rate that could not be measured counts nothing rather than infinity.
  EXPECT_EQ(work_seconds(work, Rates{}, false).serial(), 0.0);
}

TEST(Estimate, TheOverlappedTimeIsTheLongestOfAllThreeIncludingTheD2h) {
  // n much larger than k: C is 64 times A, and the D2H is the longest of the three.
  const Workload work{100, GemmShape{512, 4096, 64}};
  const WorkSeconds t = work_seconds(work, kRates, false);
  ASSERT_GT(t.d2h, t.kernels);
  ASSERT_GT(t.d2h, t.h2d);
  EXPECT_DOUBLE_EQ(t.overlapped(), t.d2h);
}

TEST(Estimate, ExactlyAtTheLimitIsAllowed) { EXPECT_EQ(refusal(600.0, 10), ""); }

TEST(Estimate, OnlyEstimatesAboveFiveSecondsArePrinted) {
  ::testing::internal::CaptureStderr();
  check_estimate(4.0, 10, "the short work");
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("the short work"), std::string::npos);
  ::testing::internal::CaptureStderr();
  check_estimate(6.0, 10, "the long work");
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("estimated 6 s for the long work"), std::string::npos);
}

TEST(Estimate, OverTheLimitIsRefusedWithTheEstimateAndTheWayOut) {
  const std::string text = refusal(3.0 * 3600.0, 10);
  EXPECT_NE(text.find("about 180 min"), std::string::npos) << text;
  EXPECT_NE(text.find("the work"), std::string::npos) << text;
  EXPECT_NE(text.find("--max-minutes (10)"), std::string::npos) << text;
  EXPECT_EQ(refusal(599.0, 10), "");
  EXPECT_NE(refusal(601.0, 10), "");
  EXPECT_EQ(refusal(3.0 * 3600.0, 200), "");  // --max-minutes raises the limit
}

TEST(Estimate, TheHugeRequestFromTheIssueIsRefusedAndTheArticleSizeIsNot) {
  // 03 kernels --m 65536 --n 65536 --k 65536 --batches 1: hours of naive GEMMs.
  const RepeatPlan plan{2, 10};
  // Everything the laboratory's kernels and order subcommands time between them.
  const pool::PoolVariants all{.serial_baselines = true, .orders = 2, .engine_streams = true, .bounds = true};
  PoolConfig config;
  config.sweep = {1, 2, 4, 8, 16, 32};
  const Workload huge{1, GemmShape{65536, 65536, 65536}};
  const double huge_seconds = pool::estimate_seconds(huge, plan, config, HostMemory::pinned, kRates, all);
  EXPECT_GT(huge_seconds, 3600.0);
  EXPECT_NE(refusal(huge_seconds, 10), "");
  const Workload article{100, GemmShape{512, 512, 256}};
  const double article_seconds = pool::estimate_seconds(article, plan, config, HostMemory::pinned, kRates, all);
  EXPECT_LT(article_seconds, kSayEstimateAbove);
  EXPECT_GT(article_seconds, 0.0);
  // More rounds, more time: the estimate counts warm-up and repeats.
  EXPECT_NEAR(pool::estimate_seconds(article, RepeatPlan{4, 20}, config, HostMemory::pinned, kRates, all),
              2.0 * article_seconds, 1e-9);
}

TEST(Estimate, StagesOneAndFourCountTheirRoundsAndVariants) {
  StageCli cli("test", "test");
  const CommonOptions small = *cli.parse(std::vector<std::string>{});
  CommonOptions huge = small;
  huge.work = Workload{1, GemmShape{65536, 65536, 65536}};
  const double one_round =
      2.0 * work_seconds(small.work, kRates, small.host_memory == HostMemory::pageable).serial();
  EXPECT_NEAR(serial::estimate_seconds(small, kRates, false), 12.0 * one_round, 1e-12);
  EXPECT_NEAR(serial::estimate_seconds(small, kRates, true), 24.0 * one_round, 1e-12);
  EXPECT_NE(refusal(serial::estimate_seconds(huge, kRates, false), 10), "");
  const double article = graphs::costs_seconds(small, kRates);
  EXPECT_GT(article, 0.0);
  EXPECT_LT(article, 60.0) << small.work.batches << " batches of " << small.work.shape.m;
  CommonOptions twice = small;
  twice.plan = RepeatPlan{2 * small.plan.warmup, 2 * small.plan.repeats};
  EXPECT_NEAR(graphs::costs_seconds(twice, kRates), 2.0 * article, 1e-9) << "every round counts";
  EXPECT_NE(refusal(graphs::costs_seconds(huge, kRates), 10), "");
}

// A real SIGINT or SIGTERM, raised inside the stage frame (run_stage, the
// lessons' main), ends the "stage" at its next check with 128 + the signal
// and one line naming what was cut short. The lesson raises `g_signal`.
int g_signal = 0;

std::optional<int> no_options(int, char**) { return 0; }

int lesson_raising_the_signal(const int&) {
  if (g_signal != 0) ::raise(g_signal);
  throw_if_interrupted("the timing of 3 variants");
  return 0;
}

int interrupted_stage(int signal) {
  g_signal = signal;
  char program[] = "csg_test_stage";
  char* argv[] = {program, nullptr};
  return run_stage<int>("csg_test_stage", 1, argv, {}, no_options, lesson_raising_the_signal);
}

TEST(Interrupt, SigintEndsTheStageWith130AndOneLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(interrupted_stage(SIGINT)), ::testing::ExitedWithCode(130),
              "^csg_test_stage: interrupted by SIGINT: the timing of 3 variants was not finished; no results were "
              "written\n$");
}

TEST(Interrupt, SigtermEndsTheStageWith143) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(interrupted_stage(SIGTERM)), ::testing::ExitedWithCode(143), "interrupted by SIGTERM");
}

TEST(Interrupt, WithoutASignalTheStageRunsToTheEnd) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(interrupted_stage(0)), ::testing::ExitedWithCode(0), "^$");
}

}  // namespace cpu_estimate
}  // namespace csg
