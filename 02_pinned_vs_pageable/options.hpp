// Stage 02's command lines: the byte sizes they take (--sizes 4K,64K,1M,1G)
// and the options of each laboratory subcommand, each with only its flags:
//   sweep         --sizes LIST, --host-memory LIST (all four kinds), --quick
//   overlap       --host-memory LIST (pageable, pinned), --overlap-mib N, --kernel-ms N
//   timeline      the overlap's flags and --trace FILE
//   pinning-cost  --pin-max-mib N
// and the flags every run takes (--warmup, --repeats, --seed, --json,
// --max-minutes). Everything is checked before any CUDA call; a refusal is a
// UsageError naming the flag and the value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"
#include "measure/estimate.hpp"
#include "stage.hpp"

namespace csg::copies {

// ---- sweep: bandwidth of every host memory kind over a size sweep ----------

struct SweepOptions {
  CommonOptions common;              // warmup, repeats, seed, json path, max-minutes
  std::vector<std::uint64_t> sizes;  // ascending, bytes
  std::vector<HostMemory> kinds;     // in the order pageable, pinned, registered, write-combined
  bool quick = false;
};

// Each parse_*_options takes the subcommand's words as run_subcommand passes
// them (argv[0] its name) and returns nothing after printing --help. The run
// checks that its memory_needs fit, before any CUDA call for the host's.
std::optional<SweepOptions> parse_sweep_options(int argc, const char* const* argv);

// What a sweep holds at once: its buffers at the largest size.
MemoryNeeds memory_needs(const SweepOptions& options);
// Every copy of every size and kind, every round, at `rates`.
double estimate_seconds(const SweepOptions& options, const Rates& rates);

// ---- overlap (and timeline): cudaMemcpyAsync beside a busy kernel ---------

struct OverlapOptions {
  CommonOptions common;
  std::vector<HostMemory> kinds;  // pageable, pinned or both, in that order
  std::uint64_t bytes = 0;        // --overlap-mib
  int kernel_ms = 0;              // --kernel-ms
  std::string trace_path;         // timeline's --trace; empty: none
  int timeline_pairs = 1;         // timeline's --timeline-batches: copy-and-kernel pairs each drawn case issues
};

// `timeline`: the timeline subcommand's options (the overlap's, --timeline-batches and --trace).
std::optional<OverlapOptions> parse_overlap_options(int argc, const char* const* argv, bool timeline);
MemoryNeeds memory_needs(const OverlapOptions& options);
// Every case, every round, at `rates`; with `timeline`, each drawn case once more.
double estimate_seconds(const OverlapOptions& options, const Rates& rates, bool timeline);

// ---- pinning-cost: what allocating and pinning host memory costs -----------

struct PinningOptions {
  CommonOptions common;
  std::vector<std::uint64_t> sizes;  // ascending, bytes; before the free-memory bound
  int repeats = 0;                   // --repeats, at most 3: allocating GiBs again teaches nothing new
};

std::optional<PinningOptions> parse_pinning_options(int argc, const char* const* argv);
// At ~0.8 s per GiB for the calls of one round.
double estimate_seconds(const PinningOptions& options);

}  // namespace csg::copies

// ---- byte sizes on the command line ----
// Byte sizes on the command line, e.g. --sizes 4K,64K,1M,1G.
//
// A size is a decimal count of bytes with an optional binary suffix:
// K/KiB = 2^10, M/MiB = 2^20, G/GiB = 2^30, T/TiB = 2^40 (upper or lower case
// letter). Parsing is strict: no zero, no empty item ("4K,,8K"), no stray
// text ("abc", "4KB", "1.5M"), no sign, nothing that overflows 64 bits, nothing
// above kMaxTransferBytes, no size listed twice. Every refusal is a UsageError
// naming the flag and the offending item, so it reads the same on every machine.
namespace csg::copies {

// 1 TiB: larger than the memory of any GPU or host this suite will meet, so
// a larger size is a typo, refused before anything else is checked. Sizes up
// to it are then checked against the machine's free memory.
inline constexpr std::uint64_t kMaxTransferBytes = std::uint64_t{1} << 40;

// One size ("64K" -> 65536). Throws UsageError mentioning "--<flag>".
std::uint64_t parse_size(const std::string& flag, std::string_view text);

// A comma-separated list, returned in ascending order.
std::vector<std::uint64_t> parse_size_list(const std::string& flag, std::string_view text);

// first, 4·first, 16·first, ... up to and including last (first ≥ 1).
std::vector<std::uint64_t> powers_of_4(std::uint64_t first, std::uint64_t last);

// The shortest exact spelling: "4 KiB", "256 MiB", "1 GiB", "1000 B", "1536 KiB".
std::string format_size(std::uint64_t bytes);

}  // namespace csg::copies
