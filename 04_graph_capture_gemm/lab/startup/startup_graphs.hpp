// What building K bucket graphs costs, measured. First, untimed, one graph
// of 1 batch built, launched and verified: the process's first capture and
// launch (module loading) are out of the figures. Then the first build: the
// largest bucket count's graphs on the shared pool, timed as below, with the
// device memory its execs take (cudaMemGetInfo after a device synchronise,
// before the first instantiate and after the last upload). The driver keeps
// that memory for the graphs built after them, so every row after it starts
// from the same state, and the first build is what a fresh process pays.
// Then, for each bucket count of the config, in each round, the shared
// pool's K graphs and then the separate buffers' K graphs (interleaved per
// bucket count, so a slow moment of the machine hits both alike). For each
// layout, one bucket after the other, as an engine's startup loop does:
//   capture      capture_batches (graph_steps.hpp) of the bucket's b batches
//   instantiate  instantiate (cudaGraphInstantiateWithParams); the graph is
//                destroyed after it, untimed
//   upload       cudaGraphUpload on pool stream 0 and a synchronise
// each host-timed (steady_clock) and summed over the K graphs. Then every
// graph is launched once from its bucket's own outputs poisoned (batches
// 0..b-1, device and host), waited for and its b batches verified; those
// launches are timed too (not part of startup).
//   Cost at the defaults (K = 8, 64, 256 over 1..256 batches of 64³, one
//   round) on an H200: ~42,000 batches captured per layout, and 33,000 more
//   by the first build, at ~10-20 µs each, launched and verified, plus the
//   separate buffers' allocation: 8.4 s in all.
#pragma once

#include <cstdint>

#include "cuda/stream_pool.hpp"
#include "04_graph_capture_gemm/lab/startup/startup_report.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {

// Free device memory (cudaMemGetInfo) after a device synchronise.
std::int64_t free_device_bytes();

// The first build and the rows of `config` (sizes, batches captured and
// both cells; padding waste left to fill_padding). `shared` holds at least
// config.max_batches batches of the config's shape, one device slot per
// batch, inputs filled from config.seed; `shared_bytes` is what its
// allocation took (its cells' buffer_bytes). Separate buffers are allocated
// per bucket count and freed after it. Throws std::invalid_argument for
// buffers too small; Interrupted (base/interrupt.hpp) between bucket counts
// after a signal.
StartupFigures measure_startup(const StartupConfig& config, const StreamPool& pool, const Gemm& gemm,
                              BatchBuffers& shared, std::int64_t shared_bytes);

}  // namespace csg::graphs
