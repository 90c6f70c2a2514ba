// The memory-nodes subcommand (kAbout in memory_nodes.cpp), declared here
// for the tests.
#pragma once

#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {

// What cudaDeviceGetGraphMemAttribute reports for the device (bytes), and
// cudaMemGetInfo's free device memory at the same moment.
struct GraphMemory {
  std::uint64_t used_current = 0;      // cudaGraphMemAttrUsedMemCurrent: associated with graphs now
  std::uint64_t used_high = 0;         // cudaGraphMemAttrUsedMemHigh (reset to 0 at the baseline)
  std::uint64_t reserved_current = 0;  // cudaGraphMemAttrReservedMemCurrent: held by the graph allocator
  std::uint64_t reserved_high = 0;     // cudaGraphMemAttrReservedMemHigh (reset to 0 at the baseline)
  std::uint64_t device_free = 0;       // cudaMemGetInfo
};

// The moments the footprint is read, in the order the run reaches them.
enum class Moment {
  baseline,             // after cudaDeviceGraphMemTrim, high-water marks reset
  instantiated,         // the memory graph instantiated
  uploaded,             // ... and cudaGraphUpload-ed
  first_launch,         // ... launched once
  replays,              // ... after the timed replays
  second_uploaded,      // a second capture of the same work instantiated and uploaded
  second_launched,      // ... launched once
  both_launched,        // the first then the second, back to back on one stream
  destroyed,            // both execs and graphs destroyed
  trimmed,              // after cudaDeviceGraphMemTrim
};
inline constexpr int kMomentCount = 10;
std::string_view to_string(Moment moment);  // "baseline", "first_launch", ... (the JSON's names)

struct Footprint {
  std::array<GraphMemory, kMomentCount> at{};
  const GraphMemory& operator[](Moment m) const { return at[static_cast<std::size_t>(m)]; }
  GraphMemory& operator[](Moment m) { return at[static_cast<std::size_t>(m)]; }
};

// The bytes to compare the graph allocator's with.
struct MemorySizes {
  int batches = 0;
  int slots = 0;                          // device A/C pairs of the preallocated graph
  std::uint64_t pair_bytes = 0;           // one batch's A + C
  std::uint64_t allocations_bytes() const { return std::uint64_t(batches) * pair_bytes; }  // the memory graph's
  std::uint64_t preallocated_bytes() const { return std::uint64_t(slots) * pair_bytes; }  // the other graph's A, C
};

// Everything the run measured.
struct MemoryNodesFigures {
  MemorySizes sizes;
  Summary memory_replay;             // GPU time of one replay (events), interleaved with ...
  Summary preallocated_replay;       // ... the preallocated graph's
  Summary memory_launch_cpu;         // host time of cudaGraphLaunch, in the same runs
  Summary preallocated_launch_cpu;
  Summary memory_instantiate;        // host time of cudaGraphInstantiateWithParams, interleaved
  Summary preallocated_instantiate;
  std::size_t memory_nodes = 0;      // nodes of the memory graph (allocations and frees among them)
  std::size_t preallocated_nodes = 0;
  Footprint footprint;
  // Every output checked after every run: the first failure of each, else the last check.
  VerifyResult memory_check;         // the timed replays (inputs alternate; the last on --seed's)
  VerifyResult preallocated_check;
  VerifyResult first_launch_check;   // the memory graph's first launch
  VerifyResult second_check;         // the second graph alone, then both back to back
};

// ---- the verdicts: plain C++, the CPU tests call them on made-up figures ----

// Two medians are told apart only beyond this relative difference, or the
// larger of the two runs' own spreads ((median - min) / median) when larger.
inline constexpr double kMinReplayNoise = 0.02;
// Two byte counts are "about the same" within this share of the larger.
inline constexpr double kSameBytes = 0.10;

// memory_nodes.replay: the memory graph's replay against the preallocated graph's.
Verdict replay_verdict(const Summary& memory, const Summary& preallocated);
// memory_nodes.footprint: the memory graph's reserved bytes after its replays
// against the preallocated graph's device A and C.
Verdict footprint_verdict(std::uint64_t reserved, const MemorySizes& sizes);
// memory_nodes.reuse: reserved against the sum of every allocation of the
// graph: did the driver give a batch's freed A and C to a later batch?
Verdict reuse_verdict(std::uint64_t reserved, const MemorySizes& sizes);
// memory_nodes.sharing: reserved with both graphs launched against one graph's.
Verdict sharing_verdict(std::uint64_t one, std::uint64_t two);
// memory_nodes.destroy: what destroying the execs left reserved.
Verdict destroy_verdict(const GraphMemory& live, const GraphMemory& destroyed);
// memory_nodes.trim: what cudaDeviceGraphMemTrim gave back.
Verdict trim_verdict(const GraphMemory& destroyed, const GraphMemory& trimmed);

void report_memory_nodes(const ArticleOptions& config, const MemoryNodesFigures& figures, Report& report);

}  // namespace csg::graphs
