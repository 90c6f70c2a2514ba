// The naive GEMM against the CPU reference, element by element, at odd shapes
// (nothing a multiple of 32) and at the article's size.
#include <cmath>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "workload/gemm_kernels.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "cuda/stream.hpp"

namespace csg {
namespace {

class KernelTest : public testing::GpuTest, public ::testing::WithParamInterface<std::tuple<int, int, int, int>> {};

TEST_P(KernelTest, MatchesTheCpuReferenceExactly) {
  const auto [batches, m, n, k] = GetParam();
  Workload work;
  work.batches = batches;
  work.shape = GemmShape{m, n, k};
  BatchBuffers buffers(work, HostMemory::pinned, batches);
  buffers.fill_inputs(11);
  Stream stream;
  buffers.poison_outputs(stream.get());
  for (int b = 0; b < batches; ++b) {
    CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(b), buffers.host_a(b), work.a_bytes(), cudaMemcpyHostToDevice,
                               stream.get()));
    launch_gemm_naive(buffers.device_a(b), buffers.device_b(), buffers.device_c(b), work.shape, stream.get());
    CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(b), buffers.device_c(b), work.c_bytes(), cudaMemcpyDeviceToHost,
                               stream.get()));
  }
  stream.synchronize();

  // Full comparison against an independent CPU GEMM, not only the suite's verifier.
  std::vector<float> a(work.batch_count() * work.a_elems()), b(work.b_elems());
  fill_inputs(work, 11, a, b);
  const std::vector<float> expected = testing::reference_gemm(work, a, b);
  std::size_t wrong = 0;
  std::size_t first_wrong = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const float got = buffers.host_c(0)[i];
    if (!(got == expected[i])) {
      if (wrong == 0) first_wrong = i;
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0u) << "first wrong element at flat index " << first_wrong << ": expected "
                       << expected[first_wrong] << ", got " << buffers.host_c(0)[first_wrong];
  const VerifyResult result = buffers.verify(11);
  EXPECT_TRUE(result.passed) << result.message();
}

std::string shape_name(const ::testing::TestParamInfo<std::tuple<int, int, int, int>>& info) {
  const auto& [batches, m, n, k] = info.param;
  return std::to_string(batches) + "_batches_" + std::to_string(m) + "x" + std::to_string(n) + "x" +
         std::to_string(k);
}

INSTANTIATE_TEST_SUITE_P(Shapes, KernelTest,
                         ::testing::Values(std::tuple{1, 1, 1, 1}, std::tuple{3, 33, 17, 65},
                                           std::tuple{2, 1000, 3, 129}, std::tuple{1, 1024, 1024, 512}),
                         shape_name);

class PoisonTest : public testing::GpuTest {};

TEST_F(PoisonTest, AnOutputNobodyWroteFailsVerification) {
  Workload work;
  work.batches = 3;
  work.shape = GemmShape{16, 16, 16};
  BatchBuffers buffers(work, HostMemory::pinned, 3);
  buffers.fill_inputs(1);
  Stream stream;
  buffers.poison_outputs(stream.get());
  // Compute and copy back batches 0 and 1 only.
  for (int b = 0; b < 2; ++b) {
    CUDA_CHECK(cudaMemcpy(buffers.device_a(b), buffers.host_a(b), work.a_bytes(), cudaMemcpyHostToDevice));
    launch_gemm_naive(buffers.device_a(b), buffers.device_b(), buffers.device_c(b), work.shape, nullptr);
    CUDA_CHECK(cudaMemcpy(buffers.host_c(b), buffers.device_c(b), work.c_bytes(), cudaMemcpyDeviceToHost));
  }
  const VerifyResult result = buffers.verify(1);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 2);
  EXPECT_TRUE(std::isnan(result.first_failure->got));
}

TEST_F(PoisonTest, DevicePoisonIsNaN) {
  Workload work;
  work.batches = 1;
  work.shape = GemmShape{4, 4, 4};
  BatchBuffers buffers(work, HostMemory::pageable, 1);
  buffers.poison_device_outputs(nullptr);
  std::vector<float> back(work.c_elems(), 0.0f);
  CUDA_CHECK(cudaMemcpy(back.data(), buffers.device_c(0), work.c_bytes(), cudaMemcpyDeviceToHost));
  for (float v : back) EXPECT_TRUE(std::isnan(v));
}

class LaunchCheckTest : public testing::GpuTest {};

__global__ void empty_kernel() {}

TEST_F(LaunchCheckTest, AnIllegalLaunchThrowsNamingTheKernelAndLine) {
  try {
    empty_kernel<<<1, 4096>>>();  // more than 1024 threads per block
    CUDA_CHECK_LAUNCH("empty_kernel");
    FAIL() << "an illegal launch configuration went unreported";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    // CUDA 13 reports cudaErrorInvalidValue here; older releases said
    // cudaErrorInvalidConfiguration. Either way it must be named.
    EXPECT_TRUE(error.code() == cudaErrorInvalidValue || error.code() == cudaErrorInvalidConfiguration)
        << message;
    EXPECT_NE(message.find("launch of empty_kernel failed at tests/gpu/test_kernel.cu:"), std::string::npos)
        << message;
    EXPECT_NE(message.find(cudaGetErrorName(error.code())), std::string::npos) << message;
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the launch error is not sticky";
}

TEST_F(LaunchCheckTest, AFailedCallThrowsWithTheCallText) {
  try {
    CUDA_CHECK(cudaSetDevice(9999));
    FAIL() << "selecting a device that does not exist went unreported";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaSetDevice(9999) failed at tests/gpu/test_kernel.cu:"), std::string::npos)
        << message;
    EXPECT_NE(message.find("cudaErrorInvalidDevice"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace csg
