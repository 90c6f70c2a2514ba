// Stage 04's lesson, through the functions its main.cu defines: the test
// compiles main.cu itself (its main renamed), so it runs the very six steps a
// learner reads, never a copy of them.
#define main stage04_lesson_main
#include "04_graph_capture_gemm/main.cu"
#undef main

#include <chrono>

#include "gpu_test.hpp"
#include "lesson_timing.hpp"
#include "workload/spin.hpp"

namespace {

class Lesson04 : public csg::testing::GpuTest {};

// What every step takes: the batches' buffers (inputs filled from `seed`), the
// pool of streams and the timer.
struct Bench {
  Bench(const csg::Workload& work, int streams, std::uint64_t seed)
      : buffers(work, csg::HostMemory::pinned), pool(streams) {
    buffers.fill_inputs(seed);
  }
  csg::BatchBuffers buffers;
  const csg::StreamPool pool;
  csg::EventTimer timer;
};

// Steps 1 to 5 build one node per copy and kernel (the fork and the join add
// none), and step 6 computes every batch; so does the same work on streams.
TEST_F(Lesson04, TheSixStepsBuildThreeNodesPerBatchAndComputeEveryBatch) {
  Bench b({11, {33, 17, 65}}, 3, 4);  // 11 batches on 3 streams: not a multiple
  auto& [buffers, pool, timer] = b;
  const csg::Graph graph = capture_graph(buffers, pool);
  EXPECT_EQ(graph.node_count(), 33u);
  EXPECT_EQ(graph.edge_count(), 33u - 3u) << "three chains of H2D -> kernel -> D2H, one per stream";
  const csg::GraphExec exec = instantiate(graph);
  buffers.poison_outputs(pool[0]);
  static_cast<void>(replay(exec, pool, timer));
  csg::VerifyResult check = buffers.verify(4);
  EXPECT_TRUE(check.passed) << check.message();
  buffers.poison_outputs(pool[0]);
  static_cast<void>(stream_run(buffers, pool, timer));
  check = buffers.verify(4);
  EXPECT_TRUE(check.passed) << check.message();
}

// Capturing queues nothing: after steps 1 to 5 the outputs still hold their poison.
TEST_F(Lesson04, CapturingRunsNothing) {
  Bench b({4, {16, 16, 16}}, 2, 2);
  auto& [buffers, pool, timer] = b;
  buffers.poison_outputs(pool[0]);
  const csg::Graph graph = capture_graph(buffers, pool);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_FALSE(buffers.verify(2).passed) << "the capture ran the work instead of recording it";
}

// The join (step 4) makes stream 0, and so the timer's stop, wait for every
// stream: stream 1 held back by a 100 ms spin still ends inside the run.
TEST_F(Lesson04, TheStreamRunEndsAfterEveryStreamsBatches) {
  Bench b({6, {32, 32, 32}}, 2, 9);
  auto& [buffers, pool, timer] = b;
  buffers.poison_outputs(pool[0]);
  csg::launch_spin(std::chrono::milliseconds(100), 1, pool[1]);
  const RunTime time = stream_run(buffers, pool, timer);
  EXPECT_GE(time.gpu.count(), 90.0) << "the run was timed without stream 1's batches";
  const csg::VerifyResult check = buffers.verify(9);
  EXPECT_TRUE(check.passed) << check.message();
}

// Step 6's host time is the cudaGraphLaunch call itself: replay() starts
// its host timer before the call and reads it after. Were the timer started
// after the call returned, the replay's issue time would be tens of
// nanoseconds against the launch's microseconds (a graph of 1,200 nodes),
// and the lesson's break-even would be wrong.
TEST_F(Lesson04, TheReplaysHostTimeCoversTheGraphLaunch) {
  Bench b({400, {16, 16, 16}}, 8, 5);
  auto& [buffers, pool, timer] = b;
  const csg::GraphExec exec = instantiate(capture_graph(buffers, pool));
  CUDA_CHECK(cudaGraphUpload(exec.get(), pool[0]));
  csg::testing::expect_same_timing(
      "the replay's host time", [&] { return replay(exec, pool, timer).issued; },
      [&] {
        const csg::HostTimer host;
        CUDA_CHECK(cudaGraphLaunch(exec.get(), pool[0]));
        const csg::Millis call = host.elapsed();
        CUDA_CHECK(cudaStreamSynchronize(pool[0]));
        return call;
      });
}

// The replay's GPU time is the graph's work: the same batches issued on the
// streams take about as long, since the GPU does the same work either way.
// Were the replay's timer started after the launch (its event then follows
// the whole graph), it would read microseconds against milliseconds.
TEST_F(Lesson04, TheReplaysGpuTimeIsTheSameWorkAsOnTheStreams) {
  Bench b({40, {256, 256, 256}}, 4, 6);
  auto& [buffers, pool, timer] = b;
  const csg::GraphExec exec = instantiate(capture_graph(buffers, pool));
  csg::testing::expect_same_timing(
      "the replay's GPU time", [&] { return replay(exec, pool, timer).gpu; },
      [&] { return stream_run(buffers, pool, timer).gpu; }, 7, {.low = 0.5, .high = 2.0, .slack_ms = 0.0});
}

// The streams' host time covers their issue: the fork, 3 x batches calls and
// the join. Were the timer started after the batches were issued, it would
// read the join alone.
TEST_F(Lesson04, TheStreamRunsHostTimeCoversItsIssue) {
  Bench b({400, {16, 16, 16}}, 8, 8);
  auto& [buffers, pool, timer] = b;
  csg::testing::expect_same_timing(
      "the streams' host time", [&] { return stream_run(buffers, pool, timer).issued; },
      [&] {
        const csg::HostTimer host;
        fork_streams(pool);
        issue_batches(buffers, pool);
        join_streams(pool);
        const csg::Millis calls = host.elapsed();
        CUDA_CHECK(cudaStreamSynchronize(pool[0]));
        return calls;
      },
      9, {.low = 0.5, .high = 2.0});
}

}  // namespace
