#include "serial_run.cuh"

#include "gemm.cuh"

namespace csg {

void run_serial_batches(BatchBuffers& buffers) {
  const Workload& work = buffers.work();
  for (int batch = 0; batch < work.batches; ++batch) {
    CUDA_CHECK(cudaMemcpy(buffers.device_a(batch), buffers.host_a(batch), work.a_bytes(), cudaMemcpyHostToDevice));
    launch_gemm_naive(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape, nullptr);
    CUDA_CHECK(cudaMemcpy(buffers.host_c(batch), buffers.device_c(batch), work.c_bytes(), cudaMemcpyDeviceToHost));
  }
}

}  // namespace csg
