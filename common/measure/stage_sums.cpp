#include "measure/stage_sums.hpp"

#include <algorithm>
#include <stdexcept>

#include "base/errors.hpp"

namespace csg {
namespace {

// Batches 0 .. batches-1 through `op`, one after another on `stream`, timed with events.
std::function<Millis()> timed_pass(EventTimer& timer, cudaStream_t stream, int batches,
                                   std::function<void(int, cudaStream_t)> op) {
  return [&timer, stream, batches, op = std::move(op)] {
    timer.start(stream);
    for (int batch = 0; batch < batches; ++batch) op(batch, stream);
    return timer.stop();
  };
}

}  // namespace

BatchOps batch_ops(BatchBuffers& buffers, const Gemm& gemm) {
  BatchOps ops;
  ops.h2d = [&buffers](int batch, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(buffers.device_a(batch), buffers.host_a(batch), buffers.work().a_bytes(),
                               cudaMemcpyHostToDevice, stream));
  };
  ops.compute = [&buffers, &gemm](int batch, cudaStream_t stream) {
    gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), buffers.work().shape, stream);
  };
  ops.d2h = [&buffers](int batch, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(batch), buffers.device_c(batch), buffers.work().c_bytes(),
                               cudaMemcpyDeviceToHost, stream));
  };
  return ops;
}

std::string_view to_string(IssueOrder order) {
  return order == IssueOrder::depth_first ? "depth_first" : "breadth_first";
}

void issue_batches(const BatchOps& ops, const StreamPool& pool, int batches, IssueOrder order) {
  if (order == IssueOrder::depth_first) {
    for (int i = 0; i < batches; ++i) {
      const cudaStream_t stream = pool.for_batch(i);
      ops.h2d(i, stream);
      ops.compute(i, stream);
      ops.d2h(i, stream);
    }
    return;
  }
  for (int wave = 0; wave < batches; wave += pool.size()) {
    const int end = std::min(batches, wave + pool.size());
    for (int i = wave; i < end; ++i) ops.h2d(i, pool.for_batch(i));
    for (int i = wave; i < end; ++i) ops.compute(i, pool.for_batch(i));
    for (int i = wave; i < end; ++i) ops.d2h(i, pool.for_batch(i));
  }
}

std::vector<TimedVariant> stage_sum_variants(const BatchOps& ops, BatchBuffers& buffers, cudaStream_t stream,
                                             EventTimer& timer) {
  const int batches = buffers.work().batches;
  return {
      TimedVariant{nullptr, timed_pass(timer, stream, batches, ops.h2d), nullptr},
      TimedVariant{[&buffers, stream] { buffers.poison_device_outputs(stream); },
                   timed_pass(timer, stream, batches, ops.compute), nullptr},
      TimedVariant{[&buffers] { buffers.poison_host_outputs(); }, timed_pass(timer, stream, batches, ops.d2h),
                   nullptr},
  };
}

std::vector<TimedVariant> first_op_variants(const BatchOps& ops, cudaStream_t stream, EventTimer& timer) {
  auto first = [&timer, stream](const std::function<void(int, cudaStream_t)>& op) {
    return TimedVariant{nullptr, timed_pass(timer, stream, 1, op), nullptr};
  };
  return {first(ops.h2d), first(ops.compute), first(ops.d2h)};
}

TimedVariant busiest_stream_variant(const BatchOps& ops, int batches, int streams, cudaStream_t stream,
                                    EventTimer& timer) {
  const int busiest = static_cast<int>(busiest_stream_batches(batches, streams));
  return TimedVariant{nullptr, timed_pass(timer, stream, busiest, [ops](int batch, cudaStream_t on) {
                        ops.h2d(batch, on);
                        ops.compute(batch, on);
                        ops.d2h(batch, on);
                      }),
                      nullptr};
}

BatchOps stream_zero_ops(const BatchOps& ops, int streams) {
  if (streams < 1) throw std::invalid_argument("stream_zero_ops: streams must be at least 1");
  auto on_stream_zero = [streams](const std::function<void(int, cudaStream_t)>& op) {
    return [op, streams](int batch, cudaStream_t stream) {
      if (batch % streams == 0) op(batch, stream);
    };
  };
  return {on_stream_zero(ops.h2d), on_stream_zero(ops.compute), on_stream_zero(ops.d2h)};
}

TimedVariant copies_both_ways_variant(const BatchOps& ops, const Workload& work, cudaStream_t h2d_stream,
                                      cudaStream_t d2h_stream, EventTimer& timer) {
  auto run = [ops, batches = work.batches, h2d_stream, d2h_stream, &timer] {
    timer.start(h2d_stream, {d2h_stream});
    for (int batch = 0; batch < batches; ++batch) {
      ops.h2d(batch, h2d_stream);
      ops.d2h(batch, d2h_stream);
    }
    return timer.stop();
  };
  return TimedVariant{nullptr, run, nullptr};
}

std::vector<TimedVariant> resource_variants(const BatchOps& ops,
                                            std::function<Millis(const BatchOps&)> run_like_the_variant) {
  if (!run_like_the_variant) throw std::invalid_argument("resource_variants: no run");
  const std::function<void(int, cudaStream_t)> nothing = [](int, cudaStream_t) {};
  const BatchOps only[] = {{nothing, ops.compute, nothing},  // kernels
                           {ops.h2d, nothing, nothing},      // H2D
                           {nothing, nothing, ops.d2h},      // D2H
                           {ops.h2d, nothing, ops.d2h}};     // both ways
  std::vector<TimedVariant> variants;
  for (const BatchOps& subset : only) {
    variants.push_back(TimedVariant{nullptr, [run_like_the_variant, subset] { return run_like_the_variant(subset); },
                                    nullptr});
  }
  return variants;
}

StageSums to_stage_sums(const std::vector<Summary>& summaries, std::size_t first) {
  if (summaries.size() < first + 3) throw std::invalid_argument("to_stage_sums: need the H2D, kernel and D2H summaries");
  return StageSums{summaries[first], summaries[first + 1], summaries[first + 2]};
}

}  // namespace csg
