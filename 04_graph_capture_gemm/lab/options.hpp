// The options several of stage 04's subcommands share, all checked before
// any CUDA call: pinned host memory by default (as stage 03: the pool needs
// page-locked memory to overlap), and the refusal of an option a subcommand
// would not use. (The timeline's are timeline/stage_timeline.hpp's; a
// subcommand's own are in its folder.)
#pragma once

#include "experiment/lab.hpp"

namespace csg::graphs {

// A subcommand's common options and its pool's.
struct ArticleOptions {
  CommonOptions common;
  PoolConfig pool;
};

// The defaults of a subcommand on the article's workload: pinned host memory.
inline CommonDefaults pinned_defaults() { return {.host_memory = HostMemory::pinned}; }

// A subcommand that sets its own workload with its own options: no --batches,
// --m, --n, --k (nor --kernel, --tf32: it adds --kernel itself where it
// offers one). `rounds`: false for one that counts its own (no --warmup, --repeats).
inline CommonDefaults own_workload_defaults(bool rounds = true) {
  return {.host_memory = HostMemory::pinned, .gemm_workload = false, .rounds = rounds};
}

// A subcommand that times nothing (it captures, launches once and reports):
// no --max-minutes, no --warmup or --repeats.
inline CommonDefaults untimed_defaults() {
  return {.host_memory = HostMemory::pinned, .max_minutes = false, .rounds = false};
}

}  // namespace csg::graphs
