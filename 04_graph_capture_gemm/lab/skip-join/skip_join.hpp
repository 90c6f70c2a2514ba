// The skip-join subcommand: the article says that without step 4 (join) the
// graph "exits early". It does not: cudaStreamEndCapture refuses a capture
// whose forked streams were never joined back
// (cudaErrorStreamCaptureUnjoined), and there is no graph to launch. This
// subcommand captures without the join, shows what CUDA said and what became
// of the streams, captures again with the join on the same streams (and
// launches and verifies that graph), then exits 1: the error is the point.
#pragma once

#include "04_graph_capture_gemm/graph_inspect.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "check.hpp"
#include "experiment/report.hpp"

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

// "skip_join.end_capture": the error in plain words ("refused") or that CUDA
// accepted the capture ("accepted"), what happened to the streams, and the
// capture with the join.
Verdict end_capture_verdict(const MissingJoin& run);

// "skip_join": {"end_capture_error" (null when accepted), "end_capture_message",
// "still_capturing", "recaptured": the structure, "recaptured_verified"}; the
// verdict; and the run failed (exit 1): without the join there is no graph.
void report_skip_join(const ArticleOptions& options, const MissingJoin& run, Report& report);

}  // namespace csg::graphs
