// Stage 04: stage 03's stream pool, captured once into a CUDA Graph in the
// article's six steps, then replayed. A graph does not make the copies or the
// kernels faster; what it cuts is the CPU's cost of issuing them: one
// cudaGraphLaunch instead of 3 x batches calls, paid for once by capture and
// instantiate. (Without step 4, the join, CUDA refuses to end the capture:
// the laboratory's skip-join shows it.)
//   ./04_graph_capture_gemm        (the article's 100 GEMMs on 8 streams; --help for the laboratory)

#include "common.cuh"
#include "lesson.hpp"

namespace {

using namespace csg::lesson04;

// step 2: fork: stream 0 records fork_event and every other stream waits on
// it; in a capture, that wait is what brings the other streams into it.
void fork_streams(const csg::StreamPool& pool) {
  CUDA_CHECK(cudaEventRecord(pool.fork_event(), pool[0]));
  for (int s = 1; s < pool.size(); ++s) CUDA_CHECK(cudaStreamWaitEvent(pool[s], pool.fork_event(), 0));
}

// step 3: every batch on the pool, as in stage 03: copy in, GEMM, copy out on stream i % pool_size.
void issue_batches(csg::BatchBuffers& b, const csg::StreamPool& pool) {
  const csg::Workload& w = b.work();
  const dim3 blocksize = csg::naive_block();       // dim3 blocksize(32, 32)
  const dim3 gridsize = csg::naive_grid(w.shape);  // ((N + 31) / 32, (M + 31) / 32)
  for (int i = 0; i < w.batches; ++i) {
    const cudaStream_t stream = pool[i % pool.size()];
    CUDA_CHECK(cudaMemcpyAsync(b.device_a(i), b.host_a(i), w.a_bytes(), cudaMemcpyHostToDevice, stream));
    csg::gemm_naive<<<gridsize, blocksize, 0, stream>>>(b.device_a(i), b.device_b(), b.device_c(i), w.shape.m,
                                                        w.shape.n, w.shape.k);
    CUDA_CHECK_LAUNCH("gemm_naive");
    CUDA_CHECK(cudaMemcpyAsync(b.host_c(i), b.device_c(i), w.c_bytes(), cudaMemcpyDeviceToHost, stream));
  }
}

// step 4: join: every other stream records its join_event and stream 0 waits
// on them all, so the graph (or the run) ends after every stream's last batch.
void join_streams(const csg::StreamPool& pool) {
  for (int s = 1; s < pool.size(); ++s) {
    CUDA_CHECK(cudaEventRecord(pool.join_event(s), pool[s]));
    CUDA_CHECK(cudaStreamWaitEvent(pool[0], pool.join_event(s), 0));
  }
}

// Steps 1 to 5a: record what steps 2 to 4 queue into a graph instead of running it.
csg::Graph capture_graph(csg::BatchBuffers& b, const csg::StreamPool& pool) {
  // step 1: capture: stream 0 starts recording and becomes the graph's entry
  CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
  fork_streams(pool);      // step 2
  issue_batches(b, pool);  // step 3
  join_streams(pool);      // step 4
  // step 5: end the capture ...
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(pool[0], &graph));
  return csg::Graph(graph);
}

// step 5: ... and instantiate. CUDA 12's call fills params.result_out and
// params.errNode_out, which say why an instantiation failed; the article's
// five-argument cudaGraphInstantiate is CUDA 11's.
csg::GraphExec instantiate(const csg::Graph& graph) {
  cudaGraphInstantiateParams params{};
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiateWithParams(&exec, graph.get(), &params);
  return csg::GraphExec::from_instantiation(exec, status, params);  // throws, naming result_out, on failure
}

struct RunTime {
  csg::Millis gpu;     // from the timer's start on stream 0 to the end of every batch
  csg::Millis issued;  // the host's time to issue the run
};

// step 6: launch, on stream 0, where the capture began: one call queues all of it.
RunTime replay(const csg::GraphExec& exec, const csg::StreamPool& pool, csg::EventTimer& timer) {
  timer.start(pool[0]);
  const csg::HostTimer host;
  CUDA_CHECK(cudaGraphLaunch(exec.get(), pool[0]));
  const csg::Millis issued = host.elapsed();
  return {timer.stop(), issued};
}

// The same work without a graph: stage 03's run, 3 x batches calls between the fork and the join.
RunTime stream_run(csg::BatchBuffers& b, const csg::StreamPool& pool, csg::EventTimer& timer) {
  timer.start(pool[0]);
  const csg::HostTimer host;
  fork_streams(pool);
  issue_batches(b, pool);
  join_streams(pool);
  const csg::Millis issued = host.elapsed();
  return {timer.stop(), issued};
}

// The lesson: check the device and the size, the article's program once,
// then the graph's costs and its replay against the streams in rounds, report.
int lesson(const Options& options) {
  csg::require_device();
  check_size(options);

  // The article's buffers (h_A, h_B, h_C from cudaMallocHost; d_A, d_B, d_C) and its graph_stream_pool.
  csg::BatchBuffers buffers(options.work, csg::HostMemory::pinned);
  buffers.fill_inputs(options.seed);  // init_data, and B copied to the device once
  const csg::StreamPool pool(options.streams);
  csg::EventTimer timer;

  // The article's program: the six steps once, waited for, and every batch checked.
  Figures f;
  const csg::Graph graph = capture_graph(buffers, pool);  // steps 1 to 5a
  const csg::GraphExec exec = instantiate(graph);         // step 5b
  buffers.poison_outputs(pool[0]);
  CUDA_CHECK(cudaGraphLaunch(exec.get(), pool[0]));  // step 6
  CUDA_CHECK(cudaStreamSynchronize(pool[0]));        // the article's wait
  f.six_steps_check = buffers.verify(options.seed);

  // Then in rounds, so that a slow moment of the machine hits every figure
  // alike: what making a graph costs (a new capture and a new exec), and a
  // replay of the graph against the same work issued on the pool.
  for (int round = 0; round < options.rounds(); ++round) {
    const bool timed = round >= options.warmup;
    const bool last = round + 1 == options.rounds();
    const csg::HostTimer capture_time;
    const csg::Graph again = capture_graph(buffers, pool);
    csg::keep(timed, f.capture, capture_time.elapsed());
    const csg::HostTimer instantiate_time;
    const csg::GraphExec again_exec = instantiate(again);
    csg::keep(timed, f.instantiate, instantiate_time.elapsed());

    buffers.poison_outputs(pool[0]);
    const RunTime graph_run = replay(exec, pool, timer);
    csg::keep(timed, f.replay, graph_run.gpu);
    csg::keep(timed, f.replay_issued, graph_run.issued);
    if (last) f.replay_check = buffers.verify(options.seed);

    buffers.poison_outputs(pool[0]);
    const RunTime streams_run = stream_run(buffers, pool, timer);
    csg::keep(timed, f.streams, streams_run.gpu);
    csg::keep(timed, f.streams_issued, streams_run.issued);
    if (last) f.streams_check = buffers.verify(options.seed);
    csg::round_done(round, options.rounds());
  }
  return report(options, f, graph) ? csg::kExitOk : csg::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) { return csg::run_stage(kStage, argc, argv, laboratory(), parse_options, lesson); }
