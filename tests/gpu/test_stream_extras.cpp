// Stage 03's experiments on stream priorities and contention, on the GPU at small
// sizes: every kernel's output checks out (the flood's block counts, the
// short kernels' sequences, the contention markers), and the structural facts
// hold: the priority range is the device's, the streams got the priorities
// they were meant to, the large-shared-memory kernel fits fewer blocks per SM
// than the small one, concurrency is a ratio of two kernels' times. No test
// compares speeds between modes: that is what the experiments report.
#include <cuda_runtime.h>

#include <string>

#include "03_stream_pool_gemm/lab/competition.hpp"
#include "check.hpp"
#include "gpu_test.hpp"

namespace csg::pool {
namespace gpu_stream_extras {

class StreamExtras : public testing::GpuTest {};

int device_attribute(cudaDeviceAttr attribute) {
  int device = 0;
  int value = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

PriorityConfig small_priorities() {
  return {.samples = 24,
          .flood_streams = 2,
          .flood_waves = 2,
          .flood_block_us = 10,
          .flood_depth = 6,
          .short_blocks = 3,  // odd sizes: every thread's index is checked
          .short_threads = 96,
          .short_steps = 257,
          .gap_us = 5,
          .plan = {1, 2},
          .seed = 12345};
}

TEST_F(StreamExtras, PrioritiesVerifyEveryKernelAndUseTheDevicesPriorityRange) {
  const PriorityConfig config = small_priorities();
  const PriorityResult r = measure_priorities(config);
  EXPECT_TRUE(r.verified) << r.failure;
  EXPECT_TRUE(r.failure.empty()) << r.failure;

  int least = 1;
  int greatest = 1;
  CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT_EQ(r.device.least_priority, least);
  EXPECT_EQ(r.device.greatest_priority, greatest);
  EXPECT_LE(r.device.greatest_priority, r.device.least_priority) << "lower numbers are greater priorities";
  EXPECT_EQ(r.idle.short_priority, 0);
  EXPECT_EQ(r.same_priority.short_priority, 0);
  EXPECT_EQ(r.high_priority.short_priority, greatest);

  EXPECT_EQ(r.device.sm_count, device_attribute(cudaDevAttrMultiProcessorCount));
  EXPECT_GE(r.device.flood_blocks_per_sm, 1);
  EXPECT_LE(r.device.flood_blocks_per_sm * kFloodThreads, device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor));
  EXPECT_EQ(r.flood_blocks_per_kernel, r.device.sm_count * r.device.flood_blocks_per_sm * config.flood_waves);

  // Every short kernel of every timed round is one latency sample.
  for (const PriorityMode* mode : {&r.idle, &r.same_priority, &r.high_priority}) {
    EXPECT_EQ(mode->latency.samples, config.samples * config.plan.repeats);
    EXPECT_GT(mode->latency.min_ms, 0.0);
    EXPECT_LE(mode->latency.median_ms, mode->latency.p95_ms);
  }
  // Busy is a share of the GPU's slots: above 0 with a flood, never much over
  // 1 (blocks still running at the stop count whole: at most one block's time).
  for (const PriorityMode* mode : {&r.same_priority, &r.high_priority}) {
    EXPECT_GT(mode->flood_busy, 0.0);
    EXPECT_LE(mode->flood_busy, 1.05);
    EXPECT_GT(mode->flood_blocks_per_ms, 0.0);
  }
  EXPECT_EQ(r.idle.flood_busy, 0.0);
  EXPECT_GE(r.flood_gaps, 0);
  const Verdict verdict = priorities_verdict(r);
  EXPECT_NE(verdict.outcome, "not_verified");
  EXPECT_FALSE(verdict.sentence.empty());
}

TEST_F(StreamExtras, ContentionVerifiesEveryBlockAndTheLargeKernelFitsFewerBlocks) {
  ContentionConfig config;
  config.kernel_us = 50;
  config.threads = 96;
  config.plan = {1, 5};
  const ContentionResult r = measure_contention(config);
  EXPECT_TRUE(r.verified) << r.failure;

  EXPECT_EQ(r.sm_count, device_attribute(cudaDevAttrMultiProcessorCount));
  EXPECT_EQ(r.blocks, r.sm_count);
  EXPECT_EQ(r.shared_per_sm_bytes, device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  EXPECT_EQ(r.small.shared_bytes, 0);
  // More than half an SM's shared memory, within what one block may opt in to.
  EXPECT_GT(2 * r.large.shared_bytes, r.shared_per_sm_bytes);
  EXPECT_LE(r.large.shared_bytes, r.shared_per_block_max_bytes);
  EXPECT_GE(r.small.blocks_per_sm, 2);
  EXPECT_GE(r.large.blocks_per_sm, 1);
  EXPECT_LT(r.large.blocks_per_sm, r.small.blocks_per_sm);

  for (const ContentionVariant* v : {&r.small, &r.large}) {
    EXPECT_EQ(v->alone.samples, config.plan.repeats);
    EXPECT_EQ(v->together.samples, config.plan.repeats);
    // A correctness bound, not a speed one: each block holds its SM kernel_us
    // (5% for the clock's and the events' resolution), alone as on two streams.
    EXPECT_GE(v->alone.min_ms, 0.95 * config.kernel_us * 1e-3);
    EXPECT_GE(v->together.min_ms, 0.95 * config.kernel_us * 1e-3);
    // Two kernels can't take less than one, nor (beyond noise) more than two.
    EXPECT_GE(concurrency(*v), 0.8);
    EXPECT_LE(concurrency(*v), 2.2);
  }
  const Verdict verdict = contention_verdict(r);
  EXPECT_NE(verdict.outcome, "not_verified");
  EXPECT_FALSE(verdict.sentence.empty());
}

}  // namespace gpu_stream_extras
}  // namespace csg::pool
