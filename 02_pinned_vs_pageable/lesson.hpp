// Stage 02's lesson, beside main.cu: its options, the bytes its copies move
// and their check, the figures main.cu measures, and their report (the
// tables, the conclusions chosen by the figures, the JSON). The work is in
// lesson.cpp; the laboratory's experiments are listed in laboratory.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "owners.hpp"
#include "stage.hpp"

namespace csg::lesson02 {

inline constexpr const char* kStage = "02_pinned_vs_pageable";

struct Options : LessonOptions {   // and --warmup, --repeats, --seed (of the bytes), --json, --max-minutes
  std::vector<std::size_t> sizes;  // --sizes: the bandwidth's sizes, ascending (64K,1M,16M,256M)
  std::size_t async_bytes = 0;     // --async-mib: the cudaMemcpyAsync whose call is timed on the host (64 MiB)
  // What every buffer holds: the largest copy of the run.
  std::size_t buffer_bytes() const;
};

// Parses and checks every argument, the host memory the run needs included,
// before any CUDA call (UsageError, ResourceError: exit 2); prints --help
// and returns nothing when asked for it.
std::optional<Options> parse_options(int argc, char** argv);

// Refuses (ResourceError or UsageError, exit 2) a run whose buffers would
// not fit on the device, or which would take longer than --max-minutes.
void check_size(const Options& options);

// The laboratory: every experiment beyond the article, one subcommand each.
Laboratory laboratory();

// The bytes every copy moves: a pattern from the seed in which no byte is
// zero, so that a destination filled with zeros first shows any byte no copy reached.
void fill_pattern(std::span<std::byte> bytes, std::uint64_t seed);
// Empty when `bytes` hold the pattern; else which byte differs, and how.
std::string pattern_mismatch(std::span<const std::byte> bytes, std::uint64_t seed);

// The article's two kinds of host memory, and the two directions, as main.cu indexes them.
inline constexpr HostMemory kKinds[] = {HostMemory::pageable, HostMemory::pinned};
inline constexpr cudaMemcpyKind kDirections[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost};
inline constexpr int kKindCount = 2;
inline constexpr int kDirectionCount = 2;

struct CopySamples {
  Samples copy;  // the copy itself: CUDA events around it on its stream
  Samples call;  // the cudaMemcpyAsync call: the host's clock around it
};

struct SizeFigures {
  std::size_t bytes = 0;
  CopySamples copies[kKindCount][kDirectionCount];  // [kind][direction], as kKinds and kDirections
};

struct Figures {
  std::vector<SizeFigures> sweep;  // one per --sizes: the bandwidths
  SizeFigures async;               // --async-mib: how long the call keeps the host
  std::string checks[kKindCount];  // per kind: empty when every byte arrived, else what differed
};

// Prints the tables and what they mean, and writes the JSON when asked;
// returns whether every copy moved every byte.
bool report(const Options& options, const Figures& figures);

}  // namespace csg::lesson02
