// Stage 04's pieces in process: the article's fork/join capture of the
// stream-pool work, what CUDA builds from it, replays, the missing join, an
// exception mid-capture, exec update with new pointers, and the tiny runs.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "04_graph_capture_gemm/capture_guard.hpp"
#include "workload/gemm_kernels.hpp"
#include "gpu_test.hpp"
#include "cuda/graph.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/exec_update.hpp"
#include "04_graph_capture_gemm/tiny_work.hpp"
#include "reference.hpp"
#include "run_process.hpp"
#include "workload/stream_pool.hpp"

namespace csg {
namespace {

const Gemm kNaive;  // the article's kernel

constexpr int kBatches = 37;  // not a multiple of any pool size tested
constexpr std::uint64_t kSeed = 7;
const GemmShape kShape{33, 17, 65};  // odd sizes: partial tiles in both directions

Workload small_work(int batches = kBatches) { return Workload{batches, kShape}; }

// The stage's steps 1-5a, as in 04_graph_capture_gemm/main.cu.
Graph capture_work(const StreamPool& pool, BatchBuffers& buffers, int batches, bool join) {
  CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
  const CaptureGuard guard(pool);
  pool.fork_from(pool[0]);
  for (int batch = 0; batch < batches; ++batch) {
    const cudaStream_t stream = pool.for_batch(batch);
    enqueue_h2d(buffers, batch, stream);
    enqueue_gemm(kNaive, buffers, batch, stream);
    enqueue_d2h(buffers, batch, stream);
  }
  if (join) pool.join_into(pool[0]);
  return end_capture(pool[0]);
}

void launch_and_wait(const GraphExec& exec, const StreamPool& pool) {
  exec.launch(pool[0]);
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));
}

// Every element of every batch of host C against the CPU's C_i = A_i·B (exact:
// the data are small integers).
void expect_equals_reference(BatchBuffers& buffers, std::uint64_t seed) {
  const Workload& work = buffers.work();
  std::vector<float> a(work.batch_count() * work.a_elems());
  std::vector<float> b(work.b_elems());
  fill_inputs(work, seed, a, b);
  const std::vector<float> expected = testing::reference_gemm(work, a, b);
  const float* got = buffers.host_c(0);
  for (int batch = 0; batch < work.batches; ++batch) {
    for (std::size_t i = 0; i < work.c_elems(); ++i) {
      const std::size_t index = std::size_t(batch) * work.c_elems() + i;
      ASSERT_EQ(got[index], expected[index]) << "batch " << batch << ", element " << i;
    }
  }
}

class GraphCapturePool : public testing::GpuTest, public ::testing::WithParamInterface<int> {};

TEST_P(GraphCapturePool, GraphResultEqualsTheSerialResultForEveryBatch) {
  const int pool_size = GetParam();
  for (const int slots : {std::min(pool_size, kBatches), kBatches}) {  // the stage's slots, and per batch
    BatchBuffers buffers(small_work(), HostMemory::pinned, slots);
    buffers.fill_inputs(kSeed);
    const StreamPool pool(pool_size);
    const GraphExec exec = GraphExec::instantiate(capture_work(pool, buffers, kBatches, true));
    buffers.poison_outputs(pool[0]);
    launch_and_wait(exec, pool);
    EXPECT_TRUE(buffers.verify(kSeed).passed) << buffers.verify(kSeed).message();
    expect_equals_reference(buffers, kSeed);

    // The serial run (stage 01's loop on the legacy default stream) gives the same bits.
    const std::vector<float> from_graph(buffers.host_c(0), buffers.host_c(0) + kBatches * small_work().c_elems());
    buffers.poison_outputs(nullptr);
    for (int batch = 0; batch < kBatches; ++batch) {
      CUDA_CHECK(cudaMemcpy(buffers.device_a(batch), buffers.host_a(batch), buffers.work().a_bytes(),
                            cudaMemcpyHostToDevice));
      launch_gemm_naive(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), kShape, nullptr);
      CUDA_CHECK(cudaMemcpy(buffers.host_c(batch), buffers.device_c(batch), buffers.work().c_bytes(),
                            cudaMemcpyDeviceToHost));
    }
    const std::vector<float> serial(buffers.host_c(0), buffers.host_c(0) + kBatches * small_work().c_elems());
    EXPECT_EQ(0, std::memcmp(from_graph.data(), serial.data(), serial.size() * sizeof(float)));
  }
}

TEST_P(GraphCapturePool, OneIndependentChainPerStreamAndNoEventNodes) {
  const int pool_size = GetParam();
  BatchBuffers buffers(small_work(), HostMemory::pinned, std::min(pool_size, kBatches));
  buffers.fill_inputs(kSeed);
  const StreamPool pool(pool_size);
  const Graph graph = capture_work(pool, buffers, kBatches, true);
  const GraphStructure s = inspect_graph(graph);
  const std::size_t chains = std::size_t(std::min(pool_size, kBatches));
  EXPECT_EQ(s.kernel_nodes, std::size_t(kBatches));
  EXPECT_EQ(s.memcpy_nodes, std::size_t(2 * kBatches));
  EXPECT_EQ(s.event_nodes, 0u);
  EXPECT_EQ(s.empty_nodes + s.other_nodes, 0u);
  EXPECT_EQ(s.nodes, std::size_t(3 * kBatches));
  EXPECT_EQ(s.roots, chains);
  EXPECT_EQ(s.leaves, chains);
  EXPECT_EQ(s.chains, chains);
  EXPECT_EQ(s.edges, std::size_t(3 * kBatches) - chains);  // a chain of n nodes has n - 1 edges
  EXPECT_FALSE(any_capturing(pool));
}

TEST_P(GraphCapturePool, ReplayingTwiceWithPoisonInBetweenStillVerifies) {
  const int pool_size = GetParam();
  BatchBuffers buffers(small_work(), HostMemory::pinned, std::min(pool_size, kBatches));
  buffers.fill_inputs(kSeed);
  const StreamPool pool(pool_size);
  const GraphExec exec = GraphExec::instantiate(capture_work(pool, buffers, kBatches, true));
  for (int replay = 0; replay < 2; ++replay) {
    buffers.poison_outputs(pool[0]);
    ASSERT_FALSE(buffers.verify(kSeed).passed) << "poisoned outputs must fail";
    launch_and_wait(exec, pool);
    const VerifyResult check = buffers.verify(kSeed);
    EXPECT_TRUE(check.passed) << "replay " << replay << ": " << check.message();
    EXPECT_EQ(check.batches_checked, kBatches);
  }
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, GraphCapturePool, ::testing::Values(1, 3, 8));

class GraphCaptureTest : public testing::GpuTest {};

TEST_F(GraphCaptureTest, FewerBatchesThanStreamsGiveOneChainPerBatch) {
  BatchBuffers buffers(small_work(5), HostMemory::pinned, 5);
  buffers.fill_inputs(kSeed);
  const StreamPool pool(8);
  const GraphStructure s = inspect_graph(capture_work(pool, buffers, 5, true));
  EXPECT_EQ(s.nodes, 15u);
  EXPECT_EQ(s.roots, 5u);
  EXPECT_EQ(s.leaves, 5u);
}

TEST_F(GraphCaptureTest, MissingJoinIsRefusedAndTheStreamsCanCaptureAgain) {
  BatchBuffers buffers(small_work(), HostMemory::pinned, 3);
  buffers.fill_inputs(kSeed);
  const StreamPool pool(3);
  try {
    static_cast<void>(capture_work(pool, buffers, kBatches, false));
    FAIL() << "cudaStreamEndCapture accepted a capture whose forked streams were never joined";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorStreamCaptureUnjoined) << error.what();
  }
  EXPECT_FALSE(any_capturing(pool));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // The same streams capture, instantiate and run again.
  const GraphExec exec = GraphExec::instantiate(capture_work(pool, buffers, kBatches, true));
  buffers.poison_outputs(pool[0]);
  launch_and_wait(exec, pool);
  EXPECT_TRUE(buffers.verify(kSeed).passed);
}

TEST_F(GraphCaptureTest, AnExceptionMidCaptureLeavesNoStreamCapturing) {
  BatchBuffers buffers(small_work(), HostMemory::pinned, 3);
  buffers.fill_inputs(kSeed);
  const StreamPool pool(3);
  EXPECT_THROW(
      {
        CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
        const CaptureGuard guard(pool);
        pool.fork_from(pool[0]);
        enqueue_h2d(buffers, 0, pool[1]);
        throw std::runtime_error("a failure in the middle of step 3");
      },
      std::runtime_error);
  EXPECT_FALSE(any_capturing(pool));
  const GraphExec exec = GraphExec::instantiate(capture_work(pool, buffers, kBatches, true));
  buffers.poison_outputs(pool[0]);
  launch_and_wait(exec, pool);
  EXPECT_TRUE(buffers.verify(kSeed).passed);
}

TEST_F(GraphCaptureTest, ExecUpdateWithNewPointersComputesTheNewResult) {
  constexpr std::uint64_t kSecondSeed = kSeed + 100;
  BatchBuffers first(small_work(), HostMemory::pinned, 3);
  BatchBuffers second(small_work(), HostMemory::pinned, 3);
  first.fill_inputs(kSeed);
  second.fill_inputs(kSecondSeed);
  const StreamPool pool(3);
  const GraphExec exec = GraphExec::instantiate(capture_work(pool, first, kBatches, true));

  const ExecUpdateAttempt update = update_exec(exec, capture_work(pool, second, kBatches, true));
  EXPECT_TRUE(update.applied()) << update.describe();
  first.poison_outputs(pool[0]);
  second.poison_outputs(pool[0]);
  launch_and_wait(exec, pool);
  EXPECT_TRUE(second.verify(kSecondSeed).passed) << second.verify(kSecondSeed).message();
  expect_equals_reference(second, kSecondSeed);
  EXPECT_FALSE(first.verify(kSeed).passed) << "the updated exec still wrote the old outputs";

  // A different batch count changes the topology: refused, the exec must be re-instantiated.
  const ExecUpdateAttempt smaller = update_exec(exec, capture_work(pool, first, kBatches - 1, true));
  EXPECT_FALSE(smaller.applied());
  EXPECT_EQ(smaller.status, cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(smaller.result, cudaGraphExecUpdateErrorTopologyChanged) << smaller.describe();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(GraphCaptureTest, MeasureUpdatesVerifiesBothWays) {
  BatchBuffers first(small_work(), HostMemory::pinned, 3);
  BatchBuffers second(small_work(), HostMemory::pinned, 3);
  first.fill_inputs(kSeed);
  second.fill_inputs(kSeed + 1);
  const StreamPool pool(3);
  const UpdateCosts costs = measure_updates(
      RepeatPlan{1, 2},
      {[&](BatchBuffers& b, int batches) { return capture_work(pool, b, batches, true); }, &first, &second,
       kSeed + 1, pool[0]});
  EXPECT_TRUE(costs.updated_check.passed) << costs.updated_check.message();
  EXPECT_TRUE(costs.reinstantiated_check.passed) << costs.reinstantiated_check.message();
  EXPECT_TRUE(costs.new_pointers.applied());
  ASSERT_TRUE(costs.smaller_batches.has_value());
  EXPECT_EQ(costs.topology_change.result, cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT_EQ(costs.update_exec.samples, 2);
}

TEST_F(GraphCaptureTest, DotFileIsWritten) {
  BatchBuffers buffers(small_work(4), HostMemory::pinned, 2);
  buffers.fill_inputs(kSeed);
  const StreamPool pool(2);
  const Graph graph = capture_work(pool, buffers, 4, true);
  testing::TempDir dir;
  write_graph_dot(graph, dir.file("g.dot"));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"g.dot"});  // no temporary file left
  std::ifstream in(dir.file("g.dot"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("digraph"), std::string::npos);
}

TEST_F(GraphCaptureTest, TinyRunsAreCheckedAndCapturedOneNodePerOperation) {
  const StreamPool pool(3);
  const TinyConfig config{50, 16, HostMemory::pinned, kSeed};
  const TinyCosts costs = measure_launch_overhead(RepeatPlan{1, 2}, pool, config);
  EXPECT_TRUE(costs.empty_checked) << costs.empty_failure;
  EXPECT_TRUE(costs.gemm_streams_check.passed) << costs.gemm_streams_check.message();
  EXPECT_TRUE(costs.gemm_graph_check.passed) << costs.gemm_graph_check.message();
  EXPECT_EQ(costs.gemm_graph_check.batches_checked, 50);
  EXPECT_EQ(costs.empty_graph_nodes, 50u);
  EXPECT_EQ(costs.gemm_graph_nodes, 50u);
  EXPECT_EQ(costs.empty_graph.samples, 2);
  EXPECT_FALSE(any_capturing(pool));
}

}  // namespace
}  // namespace csg
