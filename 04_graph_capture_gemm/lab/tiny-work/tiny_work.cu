#include "04_graph_capture_gemm/lab/tiny-work/tiny_work.hpp"

#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/launch_costs.hpp"  // the empty chain and its counting twin

#include <vector>

#include "batches.hpp"
#include "workload/gemm.hpp"
#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "owners.hpp"
#include "cuda/graph.hpp"
#include "measure/timers.hpp"

namespace csg::graphs {
namespace {

// Batch i on stream i % pool, between the laboratory's fork and join.
void issue_tiny_gemms(BatchBuffers& gemms, const StreamPool& pool, const Gemm& gemm) {
  csg::fork(pool);
  for (int batch = 0; batch < gemms.work().batches; ++batch) {
    gemm.run(gemms.device_a(batch), gemms.device_b(), gemms.device_c(batch), gemms.work().shape,
             pool.for_batch(batch));
  }
  csg::join(pool);
}

}  // namespace

Workload tiny_gemm_workload(const TinyConfig& config) {
  return Workload{config.count, GemmShape{config.size, config.size, config.size}};
}

TinyCosts measure_launch_overhead(const RepeatPlan& plan, const StreamPool& pool, const Gemm& gemm,
                                  const TinyConfig& config) {
  const cudaStream_t stream = pool[0];
  TinyCosts costs;

  // The empty chain, and its counting twin.
  DeviceBuffer<unsigned long long> counter(1);
  const Graph empty_graph = capture_on(stream, [&] { issue_chain(config.count, stream); });
  costs.empty_graph_nodes = empty_graph.node_count();
  const GraphExec empty_exec = GraphExec::instantiate(empty_graph);
  CUDA_CHECK(cudaGraphUpload(empty_exec.get(), stream));
  const Graph counting_graph = capture_on(stream, [&] { issue_counting_chain(counter.data(), config.count, stream); });
  const GraphExec counting_exec = GraphExec::instantiate(counting_graph);

  // The tiny GEMMs: one device slot per GEMM, so every output stays to be
  // verified; their inputs go to the device once, before any timing.
  const Workload gemm_work = tiny_gemm_workload(config);
  BatchBuffers gemms(gemm_work, config.host_memory, gemm_work.batches);
  gemms.fill_inputs(config.seed);
  for (int batch = 0; batch < gemm_work.batches; ++batch) {
    CUDA_CHECK(cudaMemcpyAsync(gemms.device_a(batch), gemms.host_a(batch), gemm_work.a_bytes(),
                               cudaMemcpyHostToDevice, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const Graph gemm_graph = capture_on(pool[0], [&] { issue_tiny_gemms(gemms, pool, gemm); });
  costs.gemm_graph_nodes = gemm_graph.node_count();
  const GraphExec gemm_exec = GraphExec::instantiate(gemm_graph);
  CUDA_CHECK(cudaGraphUpload(gemm_exec.get(), stream));

  costs.empty_checked = true;
  int empty_runs = 0;
  auto reset_counter = [&] {
    CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  // The counting twin, once on the stream and once as a graph: the counter
  // must show every launch.
  auto check_counter = [&](const char* variant) {
    unsigned long long value = 0;
    CUDA_CHECK(cudaMemcpyAsync(&value, counter.data(), sizeof value, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    ++empty_runs;
    if (value != static_cast<unsigned long long>(config.count) && costs.empty_checked) {
      costs.empty_checked = false;
      costs.empty_failure = std::string(variant) + " run " + std::to_string(empty_runs) + ": the counter reads " +
                            std::to_string(value) + ", expected " + std::to_string(config.count);
    }
  };
  reset_counter();
  issue_counting_chain(counter.data(), config.count, stream);
  check_counter("counting chain on a stream");
  reset_counter();
  CUDA_CHECK(cudaGraphLaunch(counting_exec.get(), stream));
  check_counter("counting chain as a graph");
  if (costs.empty_graph_nodes != static_cast<std::size_t>(config.count) && costs.empty_checked) {
    costs.empty_checked = false;
    costs.empty_failure = "the empty chain's graph has " + plural(costs.empty_graph_nodes, "node") + ", expected " +
                          std::to_string(config.count);
  }
  auto poison_gemms = [&] { gemms.poison_outputs(stream); };
  // Outputs stay on the device in the timed runs; copy them back to check them.
  auto verify_gemms = [&] {
    for (int batch = 0; batch < gemm_work.batches; ++batch) {
      CUDA_CHECK(cudaMemcpyAsync(gemms.host_c(batch), gemms.device_c(batch), gemm_work.c_bytes(),
                                 cudaMemcpyDeviceToHost, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return gemms.verify(config.seed);
  };

  EventTimer timer;
  const std::vector<TimedVariant> variants = {
      {
          .prepare = nullptr,
          .run = [&] { timer.start(stream); issue_chain(config.count, stream); return timer.stop(); },
          .after_last = nullptr,
      },
      {
          .prepare = nullptr,
          .run = [&] { timer.start(stream); CUDA_CHECK(cudaGraphLaunch(empty_exec.get(), stream)); return timer.stop(); },
          .after_last = nullptr,
      },
      {
          .prepare = poison_gemms,
          .run = [&] { timer.start(stream); issue_tiny_gemms(gemms, pool, gemm); return timer.stop(); },
          .after_last = [&] { costs.gemm_streams_check = verify_gemms(); },
      },
      {
          .prepare = poison_gemms,
          .run = [&] { timer.start(stream); CUDA_CHECK(cudaGraphLaunch(gemm_exec.get(), stream)); return timer.stop(); },
          .after_last = [&] { costs.gemm_graph_check = verify_gemms(); },
      },
      {
          .prepare = poison_gemms,
          .run = [&] { return host_issue_time(stream, [&] { CUDA_CHECK(cudaGraphLaunch(gemm_exec.get(), stream)); }); },
          .after_last = [&] { costs.gemm_launch_check = verify_gemms(); },
      },
  };
  measure_interleaved_into(plan, variants, {&costs.empty_streams, &costs.empty_graph, &costs.gemm_streams,
                                            &costs.gemm_graph, &costs.gemm_graph_launch_cpu});
  return costs;
}

}  // namespace csg::graphs
