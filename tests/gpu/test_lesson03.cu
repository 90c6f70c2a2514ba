// Stage 03's lesson, through the functions its main.cu defines: the test
// compiles main.cu itself (its main renamed), so it calls the very loop a
// learner reads, never a copy of it.
#define main stage03_lesson_main
#include "03_stream_pool_gemm/main.cu"
#undef main

#include <chrono>

#include "gpu_test.hpp"
#include "workload/spin.hpp"

namespace {

class Lesson03 : public csg::testing::GpuTest {};

// The join is what makes the pool's run end after every stream's batches.
// Stream 1 is held back by a 100 ms spin queued before the run: its batches
// start only after it. With the join, stream 0 waits for them, the timer's
// stop comes after, and every batch is in host memory when pool_run returns.
// Without the join the timer stops with stream 0's own batches, a few us in,
// and stream 1's outputs are still the NaN they were poisoned with.
TEST_F(Lesson03, ThePoolsRunEndsAfterEveryStreamsBatches) {
  const csg::Workload work{8, {48, 40, 32}};
  csg::BatchBuffers buffers(work, csg::HostMemory::pinned);
  buffers.fill_inputs(7);
  csg::StreamPool pool(2);
  csg::EventTimer timer;
  for (Ops ops : {kAll, kKernel}) {
    buffers.poison_outputs(pool[0]);
    csg::launch_spin(std::chrono::milliseconds(100), 1, pool[1]);
    const PoolTime time = pool_run(buffers, pool, timer, ops);
    EXPECT_GE(time.gpu.count(), 90.0) << "the run was timed without stream 1's batches";
    EXPECT_EQ(cudaStreamQuery(pool[1]), cudaSuccess) << "stream 1 was still working after the run";
    if (ops == kAll) {
      const csg::VerifyResult check = buffers.verify(7);
      EXPECT_TRUE(check.passed) << check.message();
    }
  }
}

// A run of some batches issues what it is asked for, on the streams the
// article gives them: with only the copies in, host C keeps its poison, and
// the whole loop fills every batch; so does the serial baseline.
TEST_F(Lesson03, ThePoolsRunIssuesEveryBatchOnItsStream) {
  const csg::Workload work{7, {33, 17, 65}};  // 7 batches on 3 streams: not a multiple
  csg::BatchBuffers buffers(work, csg::HostMemory::pinned);
  buffers.fill_inputs(3);
  csg::StreamPool pool(3);
  csg::EventTimer timer;
  buffers.poison_outputs(pool[0]);
  static_cast<void>(pool_run(buffers, pool, timer, kH2d));
  EXPECT_FALSE(buffers.verify(3).passed) << "nothing computed C, yet it verified";
  static_cast<void>(pool_run(buffers, pool, timer));
  const csg::VerifyResult check = buffers.verify(3);
  EXPECT_TRUE(check.passed) << check.message();
  EXPECT_EQ(check.batches_checked, 7);
  // And stage 01's loop, the lesson's baseline, on the same buffers.
  buffers.poison_outputs(nullptr);
  EXPECT_GT(serial_run(buffers, timer).count(), 0.0);
  EXPECT_TRUE(buffers.verify(3).passed) << "the serial baseline left a batch unwritten";
}

}  // namespace
