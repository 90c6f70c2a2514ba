// With the naive kernel (~6 TFLOP/s on an H200) the kernels set the pool's
// pace and the copies hide behind them; cuBLAS is several times faster, and
// then the copies over PCIe set it: a faster kernel changes the regime, and
// the bound says which it is.
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
kernels: the pool and its bound with a naive, tiled or cuBLAS GEMM: the regime

The stream pool with another GEMM: stage 01's serial loop, the pool (depth-first), one stream per
engine and the pipeline bound of each, measured in the same rounds; the bound's limiting path names
the regime (compute-, PCIe-, launch- or stream-order-bound).
)";

constexpr const char* kRuns = R"(
# each kernel: pool, engine streams, bound: regime table, regimes.png, main table
q   naive            --kernel naive --warmup 1 --repeats 3
q   tiled            --kernel tiled --warmup 1 --repeats 3
q   cublas           --kernel cublas --warmup 1 --repeats 3
# ... each with the default rounds (--full, and the check)
q   cublas_tf32      --kernel cublas --tf32 --warmup 1 --repeats 3
fc  naive            --kernel naive
fc  tiled            --kernel tiled
fc  cublas           --kernel cublas
fc  cublas_tf32      --kernel cublas --tf32
t   naive            --kernel naive --batches 37 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 1,8,32 --warmup 1 --repeats 2
t   tiled_per_batch  --kernel tiled --batches 11 --m 64 --n 48 --k 40 --streams 4 --device-buffers per-batch --warmup 0 --repeats 1
t   cublas           --batches 13 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2,5 --warmup 0 --repeats 1
t   cublas_tf32      --tf32 --batches 9 --m 64 --n 48 --k 40 --streams 4 --device-buffers per-batch --warmup 0 --repeats 1
m   -                --kernel naive --batches 7 --m 33 --n 17 --k 65 --streams 3 --streams-sweep 2 --warmup 0 --repeats 1
s   tiled            --kernel tiled --batches 5 --m 33 --n 17 --k 65 --streams 2 --warmup 0 --repeats 1
)";

constexpr PoolShape kShape{
    .flags = {.device_buffers = true, .sweep = true, .sweep_default = "off"},
    .variants = {.serial_baselines = true, .orders = 1, .engine_streams = true, .bounds = true},
    .bound_details = true};

// .options: where the copies, not the kernels, set the pace
const Experiment<PoolRun, PoolFigures> kExperiment = declared<kShape>(kAbout, kRuns, pool_defaults(GemmKernel::cublas));

}  // namespace

extern const Subcommand kKernels = make_subcommand<kExperiment>();

}  // namespace csg::pool
