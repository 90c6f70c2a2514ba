// The tiny-work subcommand: where graphs win. Many operations too small for
// the GPU to be the limit: a chain of empty kernels on one stream, and tiny
// GEMMs (the article's naive kernel) spread over the pool, each issued launch
// by launch and replayed as one captured graph (launch_overhead.hpp measures;
// this file reports).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/tiny-work/launch_overhead.hpp"
#include "measure/estimate.hpp"
#include "report/result.hpp"
#include "stage.hpp"

namespace csg::graphs {

struct TinyRun {
  CommonOptions options;  // work: the tiny GEMMs (tiny_gemm_workload)
  TinyConfig config;
  TinyCosts costs;
};

// Measurements: tiny_empty_streams, tiny_empty_graph (params {"kernels"}),
// tiny_gemm_streams, tiny_gemm_graph, tiny_gemm_graph_launch_cpu (params
// {"gemms", "size", "streams"}); bounds: tiny_empty_stream_us_per_launch,
// tiny_empty_graph_us_per_node, tiny_gemm_stream_us_per_gemm,
// tiny_gemm_graph_us_per_gemm, tiny_gemm_graph_launch_cpu_us.
StageResult tiny_result(const DeviceInfo& device, const TinyRun& run);
// subcommand_json(result, "tiny-work") and "tiny": {"count", "size",
// "empty_graph_nodes", "gemm_graph_nodes"} ("empty_failure" when the counter was wrong).
nlohmann::json tiny_json(const StageResult& result, const TinyRun& run);
void print_tiny(std::ostream& out, const StageResult& result, const TinyRun& run);

// Every round at `rates` (the naive kernel at the tiny size): the two empty
// chains and the three GEMM runs, each at least one launch's cost (~4 µs)
// per operation.
double tiny_seconds(const TinyConfig& config, const RepeatPlan& plan, const Rates& rates);

}  // namespace csg::graphs
