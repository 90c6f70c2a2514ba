#include "measure/stage_sums.hpp"

#include <stdexcept>


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

std::vector<TimedVariant> stage_sum_variants(BatchBuffers& buffers, const Gemm& gemm, cudaStream_t stream,
                                             CopyCall copies, EventTimer& timer) {
  const Workload work = buffers.work();
  // Times `body` with events on `stream`.
  auto timed = [&timer, stream](auto body) {
    return [&timer, stream, body] {
      timer.start(stream);
      body();
      return timer.stop();
    };
  };
  auto all_h2d = [&buffers, work, stream, copies] {
    for (int b = 0; b < work.batches; ++b) {
      copy(buffers.device_a(b), buffers.host_a(b), work.a_bytes(), cudaMemcpyHostToDevice, stream, copies);
    }
  };
  auto all_kernels = [&buffers, &gemm, work, stream] {
    for (int b = 0; b < work.batches; ++b) {
      gemm.run(buffers.device_a(b), buffers.device_b(), buffers.device_c(b), work.shape, stream);
    }
  };
  auto all_d2h = [&buffers, work, stream, copies] {
    for (int b = 0; b < work.batches; ++b) {
      copy(buffers.host_c(b), buffers.device_c(b), work.c_bytes(), cudaMemcpyDeviceToHost, stream, copies);
    }
  };
  return {
      TimedVariant{nullptr, timed(all_h2d), nullptr},
      TimedVariant{[&buffers, stream] { buffers.poison_device_outputs(stream); }, timed(all_kernels), nullptr},
      TimedVariant{[&buffers] { buffers.poison_host_outputs(); }, timed(all_d2h), nullptr},
  };
}

TimedVariant copies_both_ways_variant(BatchBuffers& buffers, const StreamPool& streams, EventTimer& timer) {
  if (streams.size() < 2) throw std::invalid_argument("copies_both_ways_variant: needs two streams");
  auto run = [&buffers, &streams, &timer] {
    const Workload& work = buffers.work();
    const cudaStream_t h2d_stream = streams[0];
    const cudaStream_t d2h_stream = streams[1];
    timer.start(h2d_stream);
    streams.fork_from(h2d_stream);
    for (int b = 0; b < work.batches; ++b) {
      copy(buffers.device_a(b), buffers.host_a(b), work.a_bytes(), cudaMemcpyHostToDevice, h2d_stream,
           CopyCall::async);
      copy(buffers.host_c(b), buffers.device_c(b), work.c_bytes(), cudaMemcpyDeviceToHost, d2h_stream,
           CopyCall::async);
    }
    streams.join_into(h2d_stream);
    return timer.stop();
  };
  return TimedVariant{nullptr, run, nullptr};
}

StageSums to_stage_sums(const std::vector<Summary>& summaries) {
  if (summaries.size() < 3) throw std::invalid_argument("to_stage_sums: need the H2D, kernel and D2H summaries");
  const std::size_t first = summaries.size() - 3;
  return StageSums{summaries[first], summaries[first + 1], summaries[first + 2]};
}

}  // namespace csg
