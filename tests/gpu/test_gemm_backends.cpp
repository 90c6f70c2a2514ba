// The GEMM backends behind --kernel (naive, tiled, cuBLAS FP32 and TF32): each
// equals the CPU reference for every batch at odd shapes and at the article's
// size, tiled equals naive bit for bit, and cuBLAS refuses to create a handle
// inside a capture. (The stages' own loops with each kernel run end to end in
// the stage runs: tests/stage_runs/.)
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "batches.hpp"
#include "workload/gemm.hpp"

namespace csg {
namespace gpu_gemm_backends {

constexpr std::uint64_t kSeed = 11;

const std::vector<GemmChoice> kAllKernels = {
    {GemmKernel::naive, false}, {GemmKernel::tiled, false}, {GemmKernel::cublas, false}, {GemmKernel::cublas, true}};

// Shapes with partial tiles in every direction, a single element, and long thin ones.
const std::vector<GemmShape> kOddShapes = {{1, 1, 1}, {33, 17, 65}, {1000, 3, 129}, {3, 1000, 17}, {65, 64, 1}};

std::string label(const GemmChoice& choice, const GemmShape& shape) {
  return gemm_name(choice) + " " + std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
         std::to_string(shape.k);
}

// Every batch through `gemm` on one stream, outputs poisoned first: all A_i
// in, C_i = A_i · B for each, all C_i out; returns when all are back.
void run_batches(const Gemm& gemm, BatchBuffers& buffers, cudaStream_t stream) {
  const Workload& work = buffers.work();
  buffers.poison_outputs(stream);
  CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(0), buffers.host_a(0), work.batch_count() * work.a_bytes(),
                             cudaMemcpyHostToDevice, stream));  // one slot per batch: A is contiguous
  for (int batch = 0; batch < work.batches; ++batch) {
    gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape, stream);
  }
  CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(0), buffers.device_c(0), work.batch_count() * work.c_bytes(),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
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
  const Stream stream;
  for (const GemmChoice& choice : kAllKernels) {
    const Gemm gemm(choice);
    run_batches(gemm, buffers, stream.get());
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
  const Stream stream;
  std::vector<GemmShape> shapes = kOddShapes;
  shapes.push_back({1024, 1024, 512});
  for (const GemmShape& shape : shapes) {
    const Workload work{2, shape};
    BatchBuffers buffers(work, HostMemory::pinned, work.batches);
    buffers.fill_inputs(kSeed);
    run_batches(Gemm(GemmChoice{GemmKernel::naive}), buffers, stream.get());
    const std::vector<float> naive = all_c(buffers);
    run_batches(Gemm(GemmChoice{GemmKernel::tiled}), buffers, stream.get());
    const std::vector<float> tiled = all_c(buffers);
    EXPECT_EQ(0, std::memcmp(naive.data(), tiled.data(), naive.size() * sizeof(float)))
        << label(GemmChoice{GemmKernel::tiled}, shape);
  }
}

TEST_F(GemmBackends, CublasRefusesToCreateAHandleDuringCaptureAndWorksOncePrepared) {
  const Workload work{2, GemmShape{8, 8, 8}};
  BatchBuffers buffers(work, HostMemory::pinned, work.batches);
  buffers.fill_inputs(kSeed);
  const Stream stream;
  const Gemm gemm(GemmChoice{GemmKernel::cublas});  // not prepared
  CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  EXPECT_THROW(gemm.run(buffers.device_a(0), buffers.device_b(), buffers.device_c(0), work.shape, stream.get()),
               std::logic_error);
  cudaGraph_t partial = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream.get(), &partial));  // the refusal queued nothing: an empty graph
  const Graph dropped(partial);
  cudaStreamCaptureStatus status{};
  CUDA_CHECK(cudaStreamIsCapturing(stream.get(), &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);

  // Prepared first, the same GEMM captures, and the replay computes every batch.
  gemm.prepare(stream.get());
  buffers.poison_outputs(stream.get());
  CUDA_CHECK(cudaMemcpy(buffers.device_a(0), buffers.host_a(0), work.batch_count() * work.a_bytes(),
                        cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  for (int batch = 0; batch < work.batches; ++batch) {
    gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape, stream.get());
  }
  const GraphExec exec = GraphExec::instantiate(end_capture(stream.get()));
  CUDA_CHECK(cudaGraphLaunch(exec.get(), stream.get()));
  CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(0), buffers.device_c(0), work.batch_count() * work.c_bytes(),
                             cudaMemcpyDeviceToHost, stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  EXPECT_TRUE(buffers.verify(kSeed).passed);
}

}  // namespace gpu_gemm_backends
}  // namespace csg
