// Stage 03's lesson, beside main.cu: its options, the figures main.cu
// measures, and their report (the table, the pipeline bound, the conclusions
// chosen by the figures, the JSON). The work is in lesson.cpp; the
// laboratory's experiments are listed in laboratory.cpp.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "batches.hpp"
#include "stage.hpp"

namespace csg::lesson03 {

inline constexpr const char* kStage = "03_stream_pool_gemm";

struct Options : LessonOptions {  // and --warmup, --repeats, --seed, --json, --max-minutes
  Workload work;                   // --batches --m --n --k: the article's 100 GEMMs of 1024x1024x512
  int streams = 8;                 // --streams: the article's pool_size
  std::vector<int> pool_sizes;     // every pool timed, ascending: --streams-sweep (1,2,4,8) and --streams
};

// Parses and checks every argument before any CUDA call (UsageError: exit 2);
// prints --help and returns nothing when asked for it.
std::optional<Options> parse_options(int argc, char** argv);

// Refuses (ResourceError or UsageError, exit 2) a run whose buffers would
// not fit, or which would take longer than --max-minutes on this GPU.
void check_size(const Options& options);

// The laboratory: every experiment beyond the article, one subcommand each.
Laboratory laboratory();

struct PoolFigures {
  int streams = 0;
  Samples run;     // the article's loop on the pool, fork to join (GPU time)
  Samples issued;  // the host's time to issue that run
  // The bound's paths, each issued exactly as the run issues its work:
  Samples kernels, h2d, d2h, both_ways;  // one resource's work alone on the pool
  Samples busiest;                       // the busiest stream's batches alone on one stream
  VerifyResult check;                    // every batch of the run, after the last round
};

struct Figures {
  Samples serial_pageable, serial_pinned;  // stage 01's loop, the baselines
  VerifyResult serial_pageable_check, serial_pinned_check;
  Samples h2d_sum, kernel_sum, d2h_sum;        // every batch's op of one kind, on one stream
  Samples h2d_first, kernel_first, d2h_first;  // batch 0's op alone: the bound's fill and drain
  std::vector<PoolFigures> pools;              // one per Options::pool_sizes
};

// Prints the table and what it means, and writes the JSON when asked;
// returns whether every batch of every variant verified.
bool report(const Options& options, const Figures& figures);

}  // namespace csg::lesson03
