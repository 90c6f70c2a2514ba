// Why the empty chain has a counting twin: a kernel with no body has no
// output, and a counter in every timed node (a global memory round trip,
// ~0.5 µs) would dominate a graph node's cost; so the twin runs the same chain
// once each way, untimed. The tiny GEMMs' A and B go to the device once,
// before any timing; kernel nodes alone are cheap to launch: stage 04's copy
// nodes are what its launch pays for. Events on pool stream 0 around each run,
// so on the streams the host's pace sets the time. Napkin math (H200):
// ~4 µs per launch × 1000 = 4 ms on streams, ~0.7 µs per node × 1000 = 0.7 ms.
#pragma once

#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

struct TinyConfig {
  int count = 1000;  // kernels in the empty chain, and tiny GEMMs
  int size = 64;     // m = n = k of the tiny GEMMs
  int streams = 8;   // the pool the tiny GEMMs are spread over
  HostMemory host_memory = HostMemory::pinned;
  std::uint64_t seed = 1;
};

// The tiny GEMMs as a workload: `count` batches of size × size × size.
Workload tiny_gemm_workload(const TinyConfig& config);

struct TinyCosts {
  Summary empty_streams;
  Summary empty_graph;
  Summary gemm_streams;
  Summary gemm_graph;
  // Host time of one cudaGraphLaunch of the tiny-GEMM graph (`count` kernel
  // nodes, no copies), next to stage 04's graph of kernels AND copies.
  Summary gemm_graph_launch_cpu;
  bool empty_checked = false;      // every run's counter was right
  std::string empty_failure;       // the first wrong counter, if any
  VerifyResult gemm_streams_check;
  VerifyResult gemm_graph_check;
  VerifyResult gemm_launch_check;
  std::size_t empty_graph_nodes = 0;
  std::size_t gemm_graph_nodes = 0;
};

// "tiny_work.empty_kernels", "tiny_work.gemms": per operation of many tiny
// ones, issued on a stream against as graph nodes (comparison_verdict of the
// graph's µs against the stream's: faster, same, slower).
Verdict per_op_verdict(const std::string& id, const std::string& what, double stream_us, double graph_us);

// The run: its options (the tiny GEMMs as the workload: tiny_gemm_workload) and what was measured.
struct TinyRun {
  CommonOptions options;
  TinyConfig config;
};

// The measurements, the bounds per operation, the section "tiny" and the two
// verdicts; a wrong counter fails the run.
void report_tiny(const TinyRun& run, const TinyCosts& costs, Report& report);

}  // namespace csg::graphs
