// The article's six steps as the laboratory's subcommands run them, plain
// functions every subcommand and the tests share. The lesson (main.cu)
// writes the same calls out in the article's order; here they take a
// StreamPool (batch i on stream i % pool, captures begin on stream 0, which
// becomes the graph's entry) and a Gemm (--kernel: the article's naive
// kernel, tiled or cuBLAS, always through Gemm::run).
//   step 1  cudaStreamBeginCapture(pool[0])                   capture_batches
//   step 2  fork: every stream waits on stream 0's fork event  csg::fork
//   step 3  each batch's H2D, GEMM, D2H on stream i % pool     batch_ops, issue_batches
//                                             (measure/stage_sums.hpp, shared with stage 03)
//   step 4  join: stream 0 waits on every stream's join event  csg::join
//   step 5  cudaStreamEndCapture, cudaGraphInstantiateWithParams  capture_batches, instantiate
//   step 6  cudaGraphLaunch(exec, pool[0])                     launch
#pragma once

#include "experiment/lab.hpp"
#include "measure/stage_sums.hpp"

namespace csg::graphs {

// cuBLAS: a handle and its workspace for every stream of the pool, now: a
// capture may not allocate them. Nothing to do for the other kernels.
void prepare_pool(const Gemm& gemm, const StreamPool& pool);

// Stage 03's loop on the pool, without capture: fork, step 3, join.
void issue_on_streams(const BatchOps& ops, const StreamPool& pool, int batches);

// Join::no leaves out step 4: then cudaStreamEndCapture refuses the capture
// (cudaErrorStreamCaptureUnjoined), which the skip-join subcommand shows.
enum class Join { yes, no };

// Steps 1 to 5a: begin the capture on pool stream 0, fork, step 3 for
// batches 0 .. batches-1, join (unless Join::no), end the capture. A throw
// anywhere (a capture-time call failing, cudaStreamEndCapture refusing the
// graph) leaves no stream of the pool capturing (CaptureGuard).
Graph capture_batches(const BatchOps& ops, const StreamPool& pool, int batches, Join join = Join::yes,
                      IssueOrder order = IssueOrder::depth_first);

// Step 5b: cudaGraphInstantiateWithParams, CUDA 12's call that says why an
// instantiation failed (result_out, errNode_out); the article's five-argument
// cudaGraphInstantiate is CUDA 11's.
GraphExec instantiate(const Graph& graph);

// Step 6: cudaGraphLaunch on pool stream 0, where the capture began.
void launch(const GraphExec& exec, const StreamPool& pool);

// Step 6 checked: NaN into every output of `buffers` first, the launch, the
// article's wait (cudaStreamSynchronize), then every batch verified.
VerifyResult launch_and_verify(const GraphExec& exec, const StreamPool& pool, BatchBuffers& buffers,
                               std::uint64_t seed);

// Every node of `graph` (cudaGraphGetNodes).
std::vector<cudaGraphNode_t> nodes_of(const Graph& graph);

// The GPU time of what `issue` queues: events on `stream` around it.
template <class Issue>
Millis gpu_time(EventTimer& timer, cudaStream_t stream, Issue&& issue) {
  timer.start(stream);
  issue();
  return timer.stop();
}

// One timed run: the GPU time of what `issue` queues (events on `stream`
// around it), and in `issued` the host's time to issue it, read in the same run.
template <class Issue>
Millis gpu_and_issue_time(EventTimer& timer, cudaStream_t stream, Millis& issued, Issue&& issue) {
  timer.start(stream);
  const HostTimer host;
  issue();
  issued = host.elapsed();
  return timer.stop();
}

}  // namespace csg::graphs
