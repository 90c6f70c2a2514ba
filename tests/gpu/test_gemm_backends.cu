// The three GEMM backends of issue 9 (naive, tiled, cuBLAS FP32 and TF32):
// each equals the CPU reference for every batch at odd shapes and at the
// article's size, tiled equals naive bit for bit, and cuBLAS captured into a
// graph replays correctly.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "04_graph_capture_gemm/capture_guard.hpp"
#include "workload/gemm_backend.hpp"
#include "gpu_test.hpp"
#include "cuda/graph.hpp"
#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "reference.hpp"
#include "workload/stream_pool.hpp"

namespace csg {
namespace {

constexpr std::uint64_t kSeed = 11;

const std::vector<GemmChoice> kAllKernels = {
    {GemmKernel::naive, false}, {GemmKernel::tiled, false}, {GemmKernel::cublas, false}, {GemmKernel::cublas, true}};

// Shapes with partial tiles in every direction, a single element, and long thin ones.
const std::vector<GemmShape> kOddShapes = {{1, 1, 1}, {33, 17, 65}, {1000, 3, 129}, {3, 1000, 17}, {65, 64, 1}};

std::string label(const GemmChoice& choice, const GemmShape& shape) {
  return gemm_name(choice) + " " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
         std::to_string(shape.k);
}

// Stage 03's depth-first loop with the GEMM behind `gemm`: fork, batch i's
// H2D, GEMM and D2H on stream i % pool, join.
void issue_batches(const Gemm& gemm, BatchBuffers& buffers, const StreamPool& pool) {
  pool.fork_from(pool[0]);
  for (int batch = 0; batch < buffers.work().batches; ++batch) {
    const cudaStream_t stream = pool.for_batch(batch);
    enqueue_h2d(buffers, batch, stream);
    enqueue_gemm(gemm, buffers, batch, stream);
    enqueue_d2h(buffers, batch, stream);
  }
  pool.join_into(pool[0]);
}

// Every batch through `gemm`, outputs poisoned first; returns when all are back.
void run_batches(const Gemm& gemm, BatchBuffers& buffers, const StreamPool& pool) {
  buffers.poison_outputs(pool[0]);
  issue_batches(gemm, buffers, pool);
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));
}

std::vector<float> all_c(BatchBuffers& buffers) {
  const float* c = buffers.host_c(0);
  return {c, c + buffers.work().batch_count() * buffers.work().c_elems()};
}

class GemmBackends : public testing::GpuTest {};

// Every kernel, every batch of `work`, every element against the CPU
// reference (computed once), plus the stages' own check.
void expect_every_kernel_equals_the_reference(const Workload& work) {
  BatchBuffers buffers(work, HostMemory::pinned, work.batches);
  buffers.fill_inputs(kSeed);
  std::vector<float> a(work.batch_count() * work.a_elems());
  std::vector<float> b(work.b_elems());
  fill_inputs(work, kSeed, a, b);
  const std::vector<float> expected = testing::reference_gemm(work, a, b);
  const StreamPool pool(2);
  for (const GemmChoice& choice : kAllKernels) {
    const Gemm gemm(choice);
    run_batches(gemm, buffers, pool);
    const std::vector<float> got = all_c(buffers);
    ASSERT_EQ(got.size(), expected.size());
    std::size_t mismatches = 0;
    std::size_t first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != expected[i] && mismatches++ == 0) first = i;
    }
    EXPECT_EQ(mismatches, 0u) << label(choice, work.shape) << ": first at batch " << first / work.c_elems()
                              << ", element " << first % work.c_elems() << ": " << got[first] << " vs "
                              << expected[first];
    const VerifyResult check = buffers.verify(kSeed);
    EXPECT_TRUE(check.passed) << label(choice, work.shape) << ": " << check.message();
    EXPECT_EQ(check.batches_checked, work.batches);
  }
}

TEST_F(GemmBackends, EveryKernelEqualsTheCpuReferenceAtOddShapes) {
  for (const GemmShape& shape : kOddShapes) expect_every_kernel_equals_the_reference(Workload{3, shape});
}

TEST_F(GemmBackends, EveryKernelEqualsTheCpuReferenceAtTheArticlesSize) {
  // Two batches of 1024×1024×512: ~1 G multiply-adds for the CPU reference.
  expect_every_kernel_equals_the_reference(Workload{2, GemmShape{1024, 1024, 512}});
}

TEST_F(GemmBackends, TiledEqualsNaiveBitForBit) {
  const StreamPool pool(1);
  std::vector<GemmShape> shapes = kOddShapes;
  shapes.push_back({1024, 1024, 512});
  for (const GemmShape& shape : shapes) {
    const Workload work{2, shape};
    BatchBuffers buffers(work, HostMemory::pinned, work.batches);
    buffers.fill_inputs(kSeed);
    run_batches(Gemm(GemmChoice{GemmKernel::naive}), buffers, pool);
    const std::vector<float> naive = all_c(buffers);
    run_batches(Gemm(GemmChoice{GemmKernel::tiled}), buffers, pool);
    const std::vector<float> tiled = all_c(buffers);
    EXPECT_EQ(0, std::memcmp(naive.data(), tiled.data(), naive.size() * sizeof(float)))
        << label(GemmChoice{GemmKernel::tiled}, shape);
  }
}

// Stage 04's capture, with the GEMM behind `gemm`.
Graph capture(const Gemm& gemm, BatchBuffers& buffers, const StreamPool& pool) {
  CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
  const CaptureGuard guard(pool);
  issue_batches(gemm, buffers, pool);
  return end_capture(pool[0]);
}

TEST_F(GemmBackends, CublasCapturedIntoAGraphReplaysCorrectly) {
  const Workload work{13, GemmShape{33, 17, 65}};
  for (const bool tf32 : {false, true}) {
    BatchBuffers buffers(work, HostMemory::pinned, 4);  // slot per stream, as stage 04
    buffers.fill_inputs(kSeed);
    const StreamPool pool(4);
    const Gemm gemm(GemmChoice{GemmKernel::cublas, tf32});
    for (int i = 0; i < pool.size(); ++i) gemm.prepare(pool[i]);
    const Graph graph = capture(gemm, buffers, pool);
    const GraphStructure structure = inspect_graph(graph);
    EXPECT_EQ(structure.memcpy_nodes, std::size_t(2 * work.batches));
    EXPECT_GE(structure.kernel_nodes, std::size_t(work.batches)) << "at least one kernel per GEMM";
    const GraphExec exec = GraphExec::instantiate(graph);
    for (int replay = 0; replay < 3; ++replay) {
      buffers.poison_outputs(pool[0]);
      exec.launch(pool[0]);
      CUDA_CHECK(cudaStreamSynchronize(pool[0]));
      const VerifyResult check = buffers.verify(kSeed);
      EXPECT_TRUE(check.passed) << "tf32 " << tf32 << ", replay " << replay << ": " << check.message();
    }
  }
}

TEST_F(GemmBackends, CublasRefusesToCreateAHandleDuringCapture) {
  const Workload work{2, GemmShape{8, 8, 8}};
  BatchBuffers buffers(work, HostMemory::pinned, 2);
  buffers.fill_inputs(kSeed);
  const StreamPool pool(2);
  const Gemm gemm(GemmChoice{GemmKernel::cublas});  // not prepared
  EXPECT_THROW(static_cast<void>(capture(gemm, buffers, pool)), std::logic_error);
  EXPECT_FALSE(any_capturing(pool));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // The same Gemm works once the streams are prepared.
  for (int i = 0; i < pool.size(); ++i) gemm.prepare(pool[i]);
  const GraphExec exec = GraphExec::instantiate(capture(gemm, buffers, pool));
  buffers.poison_outputs(pool[0]);
  exec.launch(pool[0]);
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));
  EXPECT_TRUE(buffers.verify(kSeed).passed);
}

}  // namespace
}  // namespace csg
