#include "stage_sums.cuh"

#include "gemm.cuh"
#include "timing.cuh"

namespace csg {
namespace {

void copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream, CopyCall call) {
  if (call == CopyCall::sync) {
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
  } else {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  }
}

}  // namespace

StageSums measure_stage_sums(BatchBuffers& buffers, cudaStream_t stream, CopyCall copies, const RepeatPlan& plan) {
  const Workload& work = buffers.work();
  EventTimer timer;
  auto timed = [&](auto&& body) {
    return [&timer, stream, body] {
      timer.start(stream);
      body();
      return timer.stop();
    };
  };
  auto nothing = [] {};

  StageSums sums;
  sums.h2d = measure(plan, nothing, timed([&] {
    for (int b = 0; b < work.batches; ++b) {
      copy(buffers.device_a(b), buffers.host_a(b), work.a_bytes(), cudaMemcpyHostToDevice, stream, copies);
    }
  }));
  sums.kernel = measure(plan, [&] { buffers.poison_device_outputs(stream); }, timed([&] {
    for (int b = 0; b < work.batches; ++b) {
      launch_gemm_naive(buffers.device_a(b), buffers.device_b(), buffers.device_c(b), work.shape, stream);
    }
  }));
  sums.d2h = measure(plan, [&] { buffers.poison_host_outputs(); }, timed([&] {
    for (int b = 0; b < work.batches; ++b) {
      copy(buffers.host_c(b), buffers.device_c(b), work.c_bytes(), cudaMemcpyDeviceToHost, stream, copies);
    }
  }));
  return sums;
}

}  // namespace csg
