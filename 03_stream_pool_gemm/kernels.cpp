// 03_stream_pool_gemm kernels: the article's pipeline with another GEMM.
// With the naive kernel (~6 TFLOP/s on an H200) the kernels set the pool's
// pace and the copies hide behind them; cuBLAS is several times faster, and
// then the copies over PCIe set it: a faster kernel changes the regime, and
// the bound says which it is. Times stage 01's serial loop (pageable and
// pinned), the pool (depth-first), one stream per engine, the isolated sums
// and every resource alone on each pool size, in the same rounds.
//   03_stream_pool_gemm kernels --kernel cublas --tf32
#include "laboratory.hpp"
#include "pool_experiment.hpp"

namespace csg::pool {
namespace {

const PoolExperiment kExperiment{
    .subcommand = "kernels",
    .description =
        "The stream pool with another GEMM: stage 01's serial loop, the pool (depth-first), one stream per engine and "
        "the pipeline bound of each, measured in the same rounds; the bound's limiting path names the regime "
        "(compute-, PCIe-, launch- or stream-order-bound).",
    .kernel = GemmKernel::cublas,  // where the copies, not the kernels, set the pace
    .pool_flags = {.device_buffers = true, .sweep = true, .sweep_default = "off"},
    .variants = {.serial_baselines = true, .orders = 1, .engine_streams = true, .bounds = true},
    .bound_details = true};

}  // namespace

const Subcommand kKernels{"kernels", "the pool and its bound with a naive, tiled or cuBLAS GEMM: the regime",
                          run_experiment<kExperiment>};

}  // namespace csg::pool
