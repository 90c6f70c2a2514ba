// Stage 04's lesson, beside main.cu: its options, the figures main.cu
// measures, and their report (the table, the verdicts chosen by the
// figures, the JSON). The work is in lesson.cpp; the laboratory's
// experiments are listed in laboratory.cpp.
#pragma once

#include <optional>
#include <ostream>
#include <span>

#include "batches.hpp"
#include "stage.hpp"

namespace csg {
struct DeviceInfo;
namespace graphs {
struct GraphStructure;
}
}  // namespace csg

namespace csg::lesson04 {

inline constexpr const char* kStage = "04_graph_capture_gemm";

struct Options : LessonOptions {  // and --warmup, --repeats, --seed, --json, --max-minutes
  Workload work;                   // --batches --m --n --k: the article's 100 GEMMs of 1024x1024x512
  int streams = 8;                 // --streams: the article's graph_stream_pool size
};

// Parses and checks every argument before any CUDA call (UsageError: exit 2);
// prints --help and returns nothing when asked for it.
std::optional<Options> parse_options(int argc, char** argv);

// Refuses (ResourceError or UsageError, exit 2) a run whose buffers would
// not fit, or which would take longer than --max-minutes on this GPU.
void check_size(const Options& options);

// The laboratory: every experiment beyond the article, one subcommand each.
Laboratory laboratory();

struct Figures {
  VerifyResult six_steps_check;  // the article's program once: capture, instantiate, launch, every batch
  Samples capture;               // steps 1 to 5a, a new graph each round (host time)
  Samples instantiate;           // step 5b, a new exec each round (host time)
  Samples replay;                // step 6: one cudaGraphLaunch of the graph (GPU time)
  Samples replay_issued;         // the host's time of that cudaGraphLaunch call
  Samples streams;               // the same work issued on the pool, stage 03's loop (GPU time)
  Samples streams_issued;        // the host's time to issue it: fork, 3 calls per batch, join
  VerifyResult replay_check, streams_check;  // every batch, after the last round
};

// Prints the table and what it means, and writes the JSON when asked;
// returns whether every batch of every run verified.
bool report(const Options& options, const Figures& figures, const Graph& graph);
// The same from the graph's structure, to `out`: what the CPU tests call.
bool report(std::ostream& out, const Options& options, const DeviceInfo& device, const Figures& figures,
            const graphs::GraphStructure& structure);

}  // namespace csg::lesson04
