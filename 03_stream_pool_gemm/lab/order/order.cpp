// The same pool, issued in two orders. Depth-first
// is the article's loop (batch 0: H2D K D2H, batch 1: H2D K D2H, ...);
// breadth-first issues a wave of one batch per stream at a time, the wave's
// H2Ds, then its kernels, then its D2Hs. Each stream runs the same work in
// the same order either way; what changes is the order the host queues it,
// which matters where streams share hardware queues (CUDA_DEVICE_MAX_CONNECTIONS).
// With --host-memory pageable it shows the article's "async from pageable
// memory is not async": every cudaMemcpyAsync holds the host while the
// driver stages it, and the pool runs near the serial time.
#include "03_stream_pool_gemm/lab/pool_experiment.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
order: depth-first against breadth-first issue, on pinned or on pageable memory

The stream pool in the article's depth-first issue order and in breadth-first order, against stage
01's serial loop on pageable and on pinned memory, in the same rounds; --host-memory pageable: the
pool on pageable memory, where cudaMemcpyAsync holds the host.
)";

constexpr const char* kRuns = R"(
# the pool on pageable memory, both orders: main table, stages.png (the pageable pool)
q   pageable  --host-memory pageable --warmup 1 --repeats 3
# both orders on pinned memory: main table
fc  pageable  --host-memory pageable
fc  -
t   tiny      --batches 13 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
t   pageable  --batches 9 --m 40 --n 40 --k 40 --streams 2 --host-memory pageable --warmup 0 --repeats 1
)";

// The article's naive kernel, one device slot per stream.
constexpr PoolShape kShape{
    .flags = {.device_buffers = false, .sweep = false},
    .variants = {.serial_baselines = true, .orders = 2, .engine_streams = false, .bounds = true}};

const Experiment<PoolRun, PoolFigures> kExperiment = declared<kShape>(kAbout, kRuns, pool_defaults(std::nullopt));

}  // namespace

extern const Subcommand kOrder = make_subcommand<kExperiment>();

}  // namespace csg::pool
