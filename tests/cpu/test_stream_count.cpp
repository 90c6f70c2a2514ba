// Stage 03's stream-count sweep on synthetic figures: the options, the
// estimate, and each branch of the mechanism sentence.
#include <gtest/gtest.h>

#include "03_stream_pool_gemm/stream_count.hpp"
#include "base/errors.hpp"
#include "measure/pipeline_bound.hpp"

namespace csg::pool {
namespace {

StreamCountConfig parse(std::vector<std::string> args) {
  StageCli cli("03_stream_pool_gemm", "test");
  add_stream_count_options(cli);
  static_cast<void>(cli.parse(args));
  return read_stream_count_options(cli);
}

TEST(StreamCount, DefaultsGoFromOneTo1024StreamsOnShortBatches) {
  const StreamCountConfig config = parse({});
  EXPECT_EQ(config.sizes.front(), 1);
  EXPECT_EQ(config.sizes.back(), 1024);
  EXPECT_EQ(config.sizes.size(), 11U);
  EXPECT_EQ(config.workload().batches, 1000);
  EXPECT_EQ(config.workload().shape.m, 128);
  EXPECT_EQ(config.workload().shape.k, 128);
  EXPECT_EQ(parse({"--count-sweep", "64,2,8"}).sizes, (std::vector<int>{2, 8, 64}));
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--count-sweep", "0"}, {"--count-sweep", "1025"}, {"--count-sweep", "1,,2"}, {"--count-batches", "0"},
           {"--count-size", "2000"}, {"--count-sweep", "none"}, {"--count-sweep", "off"},
           {"--count-sweep", "64,2,64"}}) {
    EXPECT_THROW(parse(bad), UsageError) << ::testing::PrintToString(bad);
  }
}

TEST(StreamCount, TheEstimateCountsEveryPoolSizeAndRound) {
  const Rates rates{.kernel_flops_per_s = 6e12, .pinned_bytes_per_s = 50e9, .pageable_bytes_per_s = 10e9};
  StreamCountConfig config;
  const double all = stream_count_seconds(config, RepeatPlan{2, 10}, rates);
  EXPECT_GT(all, 0.0);
  EXPECT_NEAR(stream_count_seconds(config, RepeatPlan{4, 20}, rates), 2.0 * all, 1e-9);
  config.sizes = {1};
  EXPECT_LT(stream_count_seconds(config, RepeatPlan{2, 10}, rates), all);
}

TEST(StreamCount, TheEstimateCountsEachPoolSizesBusiestStreamAloneOnOneStream) {
  // Issuing 1,000 batches takes the host ~9 ms whatever the pool, far above
  // the work itself; what sets 1 stream apart from 2 is its busiest stream:
  // all 1,000 batches alone on one stream, against 500.
  const Rates rates{.kernel_flops_per_s = 6e12, .pinned_bytes_per_s = 50e9, .pageable_bytes_per_s = 10e9};
  StreamCountConfig one;
  one.sizes = {1};
  StreamCountConfig two;
  two.sizes = {2};
  const WorkSeconds work = work_seconds(one.workload(), rates, false);
  // 12 rounds of half the serial work, ~20 ms; the second stream's two more
  // calls (a wait on the fork event, a join event) cost the host microseconds.
  const double rounds = 12.0;
  EXPECT_NEAR(stream_count_seconds(one, RepeatPlan{2, 10}, rates) - stream_count_seconds(two, RepeatPlan{2, 10}, rates),
              rounds * work.serial() / 2.0, 1e-3);
}

TEST(StreamCount, AWarmUpRoundCostsAsMuchAsATimedOne) {
  const Rates rates{.kernel_flops_per_s = 6e12, .pinned_bytes_per_s = 50e9, .pageable_bytes_per_s = 10e9};
  const StreamCountConfig config;
  auto seconds = [&](int warmup, int repeats) {
    return stream_count_seconds(config, RepeatPlan{warmup, repeats}, rates);
  };
  EXPECT_NEAR(seconds(2, 10), seconds(0, 12), 1e-12);
  EXPECT_GT(seconds(5, 10), seconds(0, 10));
}

TEST(StreamCount, FlatTimesSayTheExtraStreamsOnlyWaited) {
  const std::string text = stream_count_mechanism(
      {{1, 9.0, 3.0, BoundPath::kernels}, {8, 6.7, 3.1, BoundPath::kernels}, {1024, 6.8, 4.5, BoundPath::kernels}}, 8);
  EXPECT_NE(text.find("only waited"), std::string::npos) << text;
  EXPECT_NE(text.find("1024 streams share 8 hardware queues"), std::string::npos) << text;
  EXPECT_NE(text.find("3.10 ms at 8 streams to 4.50 ms at 1024"), std::string::npos) << text;
}

TEST(StreamCount, UpToFivePercentAboveTheBestTheExtraStreamsOnlyWaited) {
  // 1024 streams 4% slower than the best: within kWorseBy, no slowdown to explain.
  const std::string text = stream_count_mechanism(
      {{1, 9.0, 3.0, BoundPath::kernels}, {8, 6.7, 3.1, BoundPath::kernels}, {1024, 6.968, 4.5, BoundPath::kernels}}, 8);
  EXPECT_NE(text.find("only waited"), std::string::npos) << text;
}

TEST(StreamCount, AHostIssueBoundMakesTheLargestPoolHostPacedBelowNinetyPercent) {
  // Issuing takes 7.0 of 9.22 ms (76%), but the bound says the host sets it,
  // and the issue grew by 3.8 ms of the 2.48 ms lost.
  const std::string text = stream_count_mechanism(
      {{8, 6.74, 3.2, BoundPath::kernels}, {1024, 9.22, 7.0, BoundPath::host_issue}}, 8);
  EXPECT_NE(text.find("the host sets the pace"), std::string::npos) << text;
}

TEST(StreamCount, AHostPacedRunWhoseIssueGrewLittleIsPutOnTheGpuSide) {
  // The host's issue bounds the largest pool, but it grew by only 0.4 ms of the 1.0 ms lost.
  const std::string text = stream_count_mechanism(
      {{8, 8.0, 7.7, BoundPath::kernels}, {1024, 9.0, 8.1, BoundPath::host_issue}}, 8);
  EXPECT_NE(text.find("lost on the GPU side"), std::string::npos) << text;
  EXPECT_EQ(text.find("the host sets the pace"), std::string::npos) << text;
}

TEST(StreamCount, AsManyStreamsAsQueuesShareNothing) {
  const std::string text = stream_count_mechanism({{1, 9.0, 3.0, std::nullopt}, {8, 6.0, 3.0, std::nullopt}}, 8);
  EXPECT_EQ(text.find("share"), std::string::npos) << text;
}

TEST(StreamCount, AHostPacedSlowdownIsPutOnTheHost) {
  // The measured H200 shape: 8 streams 6.74 ms, 1024 streams 9.22 ms, the host needing 9.0 ms to issue.
  const std::string text = stream_count_mechanism(
      {{8, 6.74, 3.2, BoundPath::kernels}, {256, 7.70, 5.0, BoundPath::kernels}, {1024, 9.22, 9.0, BoundPath::host_issue}}, 8);
  EXPECT_NE(text.find("the host sets the pace"), std::string::npos) << text;
  EXPECT_NE(text.find("98%"), std::string::npos) << text;  // 9.0 of 9.22 ms
  // (9.0 - 3.2) ms over 1016 added streams.
  EXPECT_NE(text.find("5.71 us per added stream"), std::string::npos) << text;
}

TEST(StreamCount, ASlowdownTheHostDoesNotExplainIsPutOnTheGpuSide) {
  const std::string text = stream_count_mechanism(
      {{8, 6.74, 3.2, BoundPath::kernels}, {1024, 9.22, 3.5, BoundPath::kernels}}, 32);
  EXPECT_NE(text.find("lost on the GPU side"), std::string::npos) << text;
  EXPECT_NE(text.find("1024 streams share 32 hardware queues"), std::string::npos) << text;
  EXPECT_THROW(static_cast<void>(stream_count_mechanism({}, 8)), std::invalid_argument);
  // Fewer streams than queues: nothing about sharing.
  EXPECT_EQ(stream_count_mechanism({{1, 9.0, 3.0, std::nullopt}, {4, 6.0, 3.0, std::nullopt}}, 8).find("share"), std::string::npos);
}

}  // namespace
}  // namespace csg::pool
