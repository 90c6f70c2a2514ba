// Stage 03's laboratory: the stream pool beyond the article, one subcommand
// each, listed in the one table of laboratory.cpp (the stage's --help prints
// that list; "03_stream_pool_gemm SUBCOMMAND --help" its options). Each
// subcommand's name, --help line and run function are defined together, in
// the file named here:
//   kernels (kernels.cpp): the pool, one stream per engine and the bound with a faster GEMM: the regime
//   order (issue_order.cpp): depth-first against breadth-first issue, pinned or pageable memory
//   engine-streams (engine_streams.cpp): the pool against one stream per engine
//   count-sweep (stream_count.cpp): 1 to 1,024 streams on short batches
//   priorities (stream_priorities.cpp): short kernels beside a flood, at the default and the greatest priority
//   contention (shared_memory_contention.cpp): two streams' kernels, little and much shared memory per block
//   timeline (pool_timeline.cpp): one pool run recorded with CUPTI and drawn
#pragma once

#include "stage.hpp"

namespace csg::pool {

extern const Subcommand kKernels, kOrder, kEngineStreams, kCountSweep, kPriorities, kContention, kTimeline;

}  // namespace csg::pool
