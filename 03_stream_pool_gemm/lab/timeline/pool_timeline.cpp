// 03_stream_pool_gemm timeline: the pool (depth-first) timed in rounds, then
// one more run recorded with CUPTI and drawn, a row per stream: the article's
// second timeline, where one stream's copies run beside another's kernel.
// The pool is re-timed after the recording, to show that recording costs the
// timed runs nothing.
//   03_stream_pool_gemm timeline --batches 16 --trace pool.trace.json
#include "03_stream_pool_gemm/lab/laboratory.hpp"
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

namespace csg::pool {
namespace {

const PoolExperiment kExperiment{
    .subcommand = "timeline",
    .description = "The stream pool (depth-first) timed in rounds, then one more run recorded with CUPTI and drawn "
                   "as a timeline, a row per stream (H copy in, K kernel, D copy out), and re-timed after the "
                   "recording.",
    .kernel = GemmKernel::naive,
    .pool_flags = {.device_buffers = true, .sweep = false},
    .variants = {.serial_baselines = false, .orders = 1, .engine_streams = false, .bounds = false, .timeline = true}};

}  // namespace

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr Run kRuns[] = {
    // the pool on a timeline: timeline_03_stream_pool_gemm-timeline.png
    {.modes = "qfc", .args = "--trace {trace}"},
    {.modes = "c", .name = "cublas", .args = "--kernel cublas --trace {trace}"},
    {.modes = "t", .name = "tiny", .args = "--batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --timeline-batches 6"},
};

const Subcommand kTimeline{"timeline", "one pool run recorded with CUPTI and drawn, a row per stream",
                           run_experiment<kExperiment>, kRuns};

}  // namespace csg::pool
