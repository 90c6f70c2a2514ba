// 03_stream_pool_gemm order: the same pool, issued in two orders. Depth-first
// is the article's loop (batch 0: H2D K D2H, batch 1: H2D K D2H, ...);
// breadth-first issues a wave of one batch per stream at a time, the wave's
// H2Ds, then its kernels, then its D2Hs. Each stream runs the same work in
// the same order either way; what changes is the order the host queues it,
// which matters where streams share hardware queues (CUDA_DEVICE_MAX_CONNECTIONS).
// With --host-memory pageable it shows the article's "async from pageable
// memory is not async": every cudaMemcpyAsync holds the host while the
// driver stages it, and the pool runs near the serial time.
//   03_stream_pool_gemm order --host-memory pageable
#include "laboratory.hpp"
#include "pool_experiment.hpp"

namespace csg::pool {
namespace {

const PoolExperiment kExperiment{
    .subcommand = "order",
    .description =
        "The stream pool in the article's depth-first issue order and in breadth-first order, against stage 01's "
        "serial loop on pageable and on pinned memory, in the same rounds; --host-memory pageable: the pool on "
        "pageable memory, where cudaMemcpyAsync holds the host.",
    .pool_flags = {.device_buffers = false, .sweep = false},  // the article's naive kernel, slots
    .variants = {.serial_baselines = true, .orders = 2, .engine_streams = false, .bounds = true},
    .orders = {IssueOrder::depth_first, IssueOrder::breadth_first}};

}  // namespace

const Subcommand kOrder{"order", "depth-first against breadth-first issue, on pinned or on pageable memory",
                        run_experiment<kExperiment>};

}  // namespace csg::pool
