// Stage 01's lesson, beside main.cu: its options, the figures main.cu
// measures, and their report (the table, the verdict chosen by the figures,
// the JSON). The work is in lesson.cpp; the laboratory's experiments are
// listed in laboratory.cpp.
#pragma once

#include <optional>

#include "batches.hpp"
#include "stage.hpp"

namespace csg::lesson01 {

inline constexpr const char* kStage = "01_serial_baseline";

struct Options : LessonOptions {  // and --warmup, --repeats, --seed, --json, --max-minutes
  Workload work;                   // --batches --m --n --k: the article's 100 GEMMs of 1024x1024x512
  // --host-memory: h_A and h_C from malloc (pageable, the article's first
  // timeline) or from cudaMallocHost (pinned, the article's next step).
  HostMemory host_memory = HostMemory::pageable;
};

// Parses and checks every argument before any CUDA call (UsageError: exit 2);
// prints --help and returns nothing when asked for it.
std::optional<Options> parse_options(int argc, char** argv);

// Refuses (ResourceError or UsageError, exit 2) a run whose buffers would
// not fit, or which would take longer than --max-minutes on this GPU.
void check_size(const Options& options);

// The stage's registry (laboratory.cpp): the lesson's runs, and every
// experiment beyond the article, one subcommand each.
Laboratory laboratory();

struct Figures {
  Samples serial;                        // the article's loop: every batch's H2D, kernel and D2H in turn
  Samples h2d_sum, kernel_sum, d2h_sum;  // every batch's op of one kind alone, the same calls on the same stream
  VerifyResult serial_check;             // every batch the serial run computed, after the last round
  VerifyResult sums_check;               // every batch the kernels alone computed and the D2H copies brought back
};

// Prints the table and what it means, and writes the JSON when asked;
// returns whether every batch of both passes verified.
bool report(const Options& options, const Figures& figures);

}  // namespace csg::lesson01
