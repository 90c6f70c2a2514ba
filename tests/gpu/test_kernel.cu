// Poison and launch checks: an output nobody wrote fails verification, device
// poison is NaN, and a bad launch or a failed call names itself. (Every
// kernel against the CPU reference: test_gemm_backends.cu.)
#include <cmath>
#include <stdexcept>
#include <vector>

#include "batches.hpp"
#include "workload/gemm.hpp"
#include "gpu_test.hpp"
#include "cuda/stream_pool.hpp"

namespace csg {
namespace {

class PoisonTest : public testing::GpuTest {};

// Batches 0 .. count-1 copied in, computed and copied back, in order on the
// default stream.
void compute_in_order(BatchBuffers& buffers, int count) {
  const Workload& work = buffers.work();
  for (int b = 0; b < count; ++b) {
    CUDA_CHECK(cudaMemcpy(buffers.device_a(b), buffers.host_a(b), work.a_bytes(), cudaMemcpyHostToDevice));
    launch_gemm_naive(buffers.device_a(b), buffers.device_b(), buffers.device_c(b), work.shape, nullptr);
    CUDA_CHECK(cudaMemcpy(buffers.host_c(b), buffers.device_c(b), work.c_bytes(), cudaMemcpyDeviceToHost));
  }
}

// Inputs filled from `seed`, every output poisoned, then batches 0 .. count-1
// computed.
void fill_poison_compute(BatchBuffers& buffers, std::uint64_t seed, cudaStream_t stream, int count) {
  buffers.fill_inputs(seed);
  buffers.poison_outputs(stream);
  compute_in_order(buffers, count);
}

TEST_F(PoisonTest, AnOutputNobodyWroteFailsVerification) {
  BatchBuffers buffers(Workload{3, {16, 16, 16}}, HostMemory::pinned, 3);
  Stream stream;
  fill_poison_compute(buffers, 1, stream.get(), 2);  // batches 0 and 1 only
  const VerifyResult result = buffers.verify(1);
  ASSERT_FALSE(result.passed);
  EXPECT_EQ(result.first_failure->batch, 2);
  EXPECT_TRUE(std::isnan(result.first_failure->got));
}

// A graph of fewer batches than the buffers hold: only its batches are
// poisoned and checked, on buffers with fewer device slots than batches too.
TEST_F(PoisonTest, APrefixIsPoisonedAndCheckedAloneAndItsBoundsAreEnforced) {
  const Workload work{5, {16, 16, 16}};
  BatchBuffers buffers(work, HostMemory::pinned, 2);
  Stream stream;
  fill_poison_compute(buffers, 3, stream.get(), work.batches);
  ASSERT_TRUE(buffers.verify(3).passed);
  buffers.poison_first(3, stream.get());
  EXPECT_TRUE(std::isnan(buffers.host_c(2)[0]));
  EXPECT_FALSE(std::isnan(buffers.host_c(3)[0])) << "batch 3 is beyond the prefix and keeps its output";
  std::vector<float> slot(work.c_elems(), 0.0f);
  for (int s = 0; s < 2; ++s) {  // both device slots (batches 0..2 use slots 0, 1, 0)
    CUDA_CHECK(cudaMemcpy(slot.data(), buffers.device_c(s), work.c_bytes(), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::isnan(slot.back())) << "device slot " << s;
  }
  const VerifyResult prefix = buffers.verify_first(3, 3);
  ASSERT_FALSE(prefix.passed);
  EXPECT_EQ(prefix.batches_checked, 3);
  EXPECT_EQ(prefix.first_failure->batch, 0);
  EXPECT_FALSE(buffers.verify(3).passed);
  compute_in_order(buffers, 3);  // batches 0..2 again: the prefix passes alone
  EXPECT_TRUE(buffers.verify_first(3, 3).passed);
  buffers.host_c(1)[5] += 1.0f;  // a wrong element in batch 1: the prefix of 1 does not see it, of 2 does
  EXPECT_TRUE(buffers.verify_first(3, 1).passed);
  const VerifyResult two = buffers.verify_first(3, 2);
  ASSERT_FALSE(two.passed);
  EXPECT_EQ(two.first_failure->batch, 1);
  EXPECT_THROW(buffers.poison_first(0, stream.get()), std::invalid_argument);
  EXPECT_THROW(buffers.poison_first(6, stream.get()), std::invalid_argument);
  EXPECT_THROW((void)buffers.verify_first(3, 6), std::invalid_argument);
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
