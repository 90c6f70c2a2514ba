// Stage 03's laboratory: the stream pool beyond the article, one subcommand
// each, listed in the one table of laboratory.cpp (the stage's --help prints
// that list; "03_stream_pool_gemm SUBCOMMAND --help" its options):
//   kernels          the pool, one stream per engine and the bound with a faster GEMM: the regime
//   order            depth-first against breadth-first issue, pinned or pageable memory
//   engine-streams   the pool against one stream per engine
//   count-sweep      1 to 1,024 streams on short batches
//   priorities       short kernels beside a flood, at the default and the greatest priority
//   contention       two streams' kernels with little and with much shared memory per block
//   timeline         one pool run recorded with CUPTI and drawn
#pragma once

#include <optional>
#include <string>

#include "cli/options.hpp"

namespace csg::pool {

int run_kernels(int argc, char** argv);         // kernels.cpp
int run_order(int argc, char** argv);           // issue_order.cpp
int run_engine_streams(int argc, char** argv);  // engine_streams.cpp
int run_count_sweep(int argc, char** argv);     // stream_count.cpp
int run_priorities(int argc, char** argv);      // stream_priorities.cpp
int run_contention(int argc, char** argv);      // shared_memory_contention.cpp
int run_timeline(int argc, char** argv);        // pool_timeline.cpp

// "03_stream_pool_gemm <subcommand>": the program a subcommand's StageCli names.
std::string subcommand_program(const char* subcommand);
// cli.parse(argc, argv), every argument checked before any CUDA call; after
// printing --help, nothing.
std::optional<CommonOptions> parse_or_print_help(StageCli& cli, int argc, char** argv);

}  // namespace csg::pool
