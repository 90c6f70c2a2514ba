// Real CUDA failures, provoked on the GPU: the message names the call, the
// file and line and the error; a stage frame turns it into exit code 1 with
// one line on stderr; owners release everything and no stream is left capturing.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include <algorithm>

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "base/errors.hpp"
#include "cuda/stream_pool.hpp"
#include "gpu_test.hpp"
#include "batches.hpp"
#include "stage.hpp"
#include "workload/gemm.hpp"

namespace csg {
namespace gpu_cuda_failures {

class CudaFailureTest : public testing::GpuTest {};

TEST_F(CudaFailureTest, AnIllegalCallDuringCaptureIsNamedAndLeavesNoStreamCapturing) {
  const Workload work{4, GemmShape{16, 16, 16}};
  BatchBuffers buffers(work, HostMemory::pinned, 2);
  buffers.fill_inputs(1);
  const StreamPool pool(2);
  try {
    CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
    const graphs::CaptureGuard guard(pool);
    CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
    CUDA_CHECK(cudaStreamWaitEvent(pool[1], pool.fork_event(), 0));  // stream 1 joins the capture
    CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(1), buffers.host_a(1), work.a_bytes(), cudaMemcpyHostToDevice,
                               pool[1]));
    // Synchronising a capturing stream is illegal: it invalidates the capture.
    CUDA_CHECK(cudaStreamSynchronize(pool[1]));
    FAIL() << "synchronising a capturing stream went unreported";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaStreamSynchronize(pool[1]) failed at tests/gpu/test_cuda_failures.cpp:"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(cudaGetErrorName(error.code())), std::string::npos) << message;
  }
  EXPECT_FALSE(graphs::any_capturing(pool));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the failure must not be left for the next check";
  // The same streams still work: a copy and a GEMM on stream 1 compute batch 1.
  buffers.poison_outputs(pool[0]);
  CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(1), buffers.host_a(1), work.a_bytes(), cudaMemcpyHostToDevice,
                             pool[1]));
  launch_gemm_naive(buffers.device_a(1), buffers.device_b(), buffers.device_c(1), work.shape, pool[1]);
  CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(1), buffers.device_c(1), work.c_bytes(), cudaMemcpyDeviceToHost,
                             pool[1]));
  CUDA_CHECK(cudaStreamSynchronize(pool[1]));
  const float* c = buffers.host_c(1);
  EXPECT_TRUE(std::none_of(c, c + work.c_elems(), [](float v) { return v != v; })) << "batch 1 left unwritten";
}

std::optional<int> no_options(int, char**) { return 0; }

int lesson_copying_from_null(const int&) {
  DeviceBuffer<float> buffer(16);
  CUDA_CHECK(cudaMemcpy(buffer.data(), nullptr, 64, cudaMemcpyHostToDevice));  // a null source
  return kExitOk;
}

TEST_F(CudaFailureTest, AStageFrameTurnsACudaFailureIntoExit1AndOneLine) {
  ::testing::internal::CaptureStderr();
  char program[] = "test_stage";
  char* argv[] = {program, nullptr};
  const int code = run_stage<int>("test_stage", 1, argv, {}, no_options, lesson_copying_from_null);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitFailure) << err;
  EXPECT_NE(err.find("test_stage: CUDA error: cudaMemcpy(buffer.data(), nullptr, 64, cudaMemcpyHostToDevice) "
                     "failed at tests/gpu/test_cuda_failures.cpp:"),
            std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace gpu_cuda_failures
}  // namespace csg
