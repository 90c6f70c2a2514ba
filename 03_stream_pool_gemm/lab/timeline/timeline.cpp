// The article's second timeline, where one stream's copies run beside
// another's kernel. The pool is re-timed after the recording, to show that
// recording costs the timed runs nothing.
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
timeline: one pool run recorded with CUPTI and drawn, a row per stream

The stream pool (depth-first) timed in rounds, then one more run recorded with CUPTI and drawn as a
timeline, a row per stream (H copy in, K kernel, D copy out), and re-timed after the recording.
)";

constexpr const char* kRuns = R"(
# the pool on a timeline: timeline_03_stream_pool_gemm-timeline.png
fc   -       --trace {trace}
q    -       --warmup 1 --repeats 2 --trace {trace}
c    cublas  --kernel cublas --trace {trace}
t    tiny    --batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --timeline-batches 6
)";

constexpr PoolShape kShape{
    .flags = {.device_buffers = true, .sweep = false},
    .variants = {.serial_baselines = false, .orders = 1, .engine_streams = false, .bounds = false, .timeline = true}};

const Experiment<PoolRun, PoolFigures> kExperiment = declared<kShape>(kAbout, kRuns, pool_defaults(GemmKernel::naive));

}  // namespace

extern const Subcommand kTimeline = make_subcommand<kExperiment>();

}  // namespace csg::pool
