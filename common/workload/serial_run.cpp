#include "workload/serial_run.hpp"

#include "timeline/op_scope.hpp"


namespace csg {

void run_serial_batches(BatchBuffers& buffers, const Gemm& gemm) {
  const Workload& work = buffers.work();
  for (int batch = 0; batch < work.batches; ++batch) {
    {  // each op is one OpScope: NVTX, and event pairs when a timeline asks for them
      const OpScope scope(OpKind::h2d, batch, nullptr, static_cast<double>(work.a_bytes()));
      CUDA_CHECK(cudaMemcpy(buffers.device_a(batch), buffers.host_a(batch), work.a_bytes(), cudaMemcpyHostToDevice));
    }
    {
      const OpScope scope(OpKind::kernel, batch, nullptr);
      gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape, nullptr);
    }
    {
      const OpScope scope(OpKind::d2h, batch, nullptr, static_cast<double>(work.c_bytes()));
      CUDA_CHECK(cudaMemcpy(buffers.host_c(batch), buffers.device_c(batch), work.c_bytes(), cudaMemcpyDeviceToHost));
    }
  }
}

}  // namespace csg
