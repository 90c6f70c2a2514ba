// The skip-join subcommand: the article says that without step 4 (join) the
// graph "exits early". It does not: cudaStreamEndCapture refuses a capture
// whose forked streams were never joined back
// (cudaErrorStreamCaptureUnjoined), and there is no graph to launch; the
// subcommand exits 1: the error is the point.
#pragma once

#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

struct MissingJoin {
  int streams = 0;
  // What cudaStreamEndCapture returned without the join; cudaSuccess: it
  // accepted the capture (not what CUDA 12 and 13 do).
  cudaError_t end_capture = cudaSuccess;
  bool still_capturing = false;   // any pool stream, afterwards (cudaStreamIsCapturing)
  GraphStructure recaptured;      // the same capture with the join, on the same streams
  VerifyResult recaptured_check;  // that graph launched once
};

// "skip_join.end_capture": the error in plain words, what happened to the
// streams, and the capture with the join.
Verdict end_capture_verdict(const MissingJoin& run);

void report_skip_join(const ArticleOptions& options, const MissingJoin& run, Report& report);

}  // namespace csg::graphs
