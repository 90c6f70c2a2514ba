#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
engine-streams: the pool against one stream per engine (H2D, kernels, D2H), each with its bound

The stream pool (a stream per batch) against one stream per engine (every H2D on one stream, every
GEMM on another, every D2H on a third, events carrying each batch along), each with its pipeline
bound, in the same rounds.
)";

constexpr const char* kRuns = R"(
# one stream per engine: main table
fc   -
q    -  --warmup 1 --repeats 5
t    tiny  --batches 13 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
)";

constexpr PoolShape kShape{
    .flags = {.device_buffers = true, .sweep = false},
    .variants = {.serial_baselines = false, .orders = 1, .engine_streams = true, .bounds = true},
    .bound_details = true};

// .defaults: cuBLAS: where the copies set the pace; pinned only: both pipelines need page-locked memory to overlap.
const Experiment<PoolRun, PoolFigures> kExperiment =
    declared<kShape>(kAbout, kRuns, pool_defaults(GemmKernel::cublas, /*host_memory_choice=*/false));

}  // namespace

extern const Subcommand kEngineStreams = make_subcommand<kExperiment>();

}  // namespace csg::pool
