// Real CUDA failures, provoked on the GPU: the message names the call, the
// file and line and the error; a stage frame turns it into exit code 1 with
// one line on stderr; owners release everything and no stream is left capturing.
#include <gtest/gtest.h>

#include <string>

#include "workload/batch_buffers.hpp"
#include "04_graph_capture_gemm/capture_guard.hpp"
#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "report/stage_main.hpp"
#include "workload/stream_pool.hpp"

namespace csg {
namespace {

const Gemm kNaive;  // the article's kernel

class CudaFailureTest : public testing::GpuTest {};

TEST_F(CudaFailureTest, AnIllegalCallDuringCaptureIsNamedAndLeavesNoStreamCapturing) {
  const Workload work{4, GemmShape{16, 16, 16}};
  BatchBuffers buffers(work, HostMemory::pinned, 2);
  buffers.fill_inputs(1);
  const StreamPool pool(2);
  try {
    CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
    const CaptureGuard guard(pool);
    pool.fork_from(pool[0]);
    enqueue_h2d(buffers, 1, pool[1]);
    // Synchronising a capturing stream is illegal: it invalidates the capture.
    CUDA_CHECK(cudaStreamSynchronize(pool[1]));
    FAIL() << "synchronising a capturing stream went unreported";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaStreamSynchronize(pool[1]) failed at tests/gpu/test_cuda_failures.cu:"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(cudaGetErrorName(error.code())), std::string::npos) << message;
  }
  EXPECT_FALSE(any_capturing(pool));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failure must not be left for the next check";
  // The same streams still work.
  buffers.poison_outputs(pool[0]);
  for (int batch = 0; batch < work.batches; ++batch) {
    enqueue_h2d(buffers, batch, pool.for_batch(batch));
    enqueue_gemm(kNaive, buffers, batch, pool.for_batch(batch));
    enqueue_d2h(buffers, batch, pool.for_batch(batch));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(buffers.verify(1).passed);
}

TEST_F(CudaFailureTest, AStageFrameTurnsACudaFailureIntoExit1AndOneLine) {
  ::testing::internal::CaptureStderr();
  const int code = run_stage("test_stage", [] {
    DeviceBuffer<float> buffer(16);
    CUDA_CHECK(cudaMemcpy(buffer.data(), nullptr, 64, cudaMemcpyHostToDevice));  // a null source
    return kExitOk;
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitFailure) << err;
  EXPECT_NE(err.find("test_stage: CUDA error: cudaMemcpy(buffer.data(), nullptr, 64, cudaMemcpyHostToDevice) "
                     "failed at tests/gpu/test_cuda_failures.cu:"),
            std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace csg
