// Stage 02's command line: the common flags (StageCli) plus
//   --sizes LIST        transfer sizes of the bandwidth sweep (default: powers of 4, 4K..1G)
//   --host-memory LIST  which host memory kinds to measure (default: all four)
//   --quick             a short sweep (64K,1M,16M,256M), fewer repeats, pinning cost up to 1 GiB
//   --overlap-mib N     size of the copy in the overlap experiment (default 64)
//   --kernel-ms N       how long the busy kernel of that experiment runs (default 10)
//   --pin-max-mib N     largest size of the pinning-cost experiment (default 4096; 1024 with --quick)
// --batches, --m, --n and --k are accepted (every stage takes them) and unused.
//
// --host-memory is StageCli's list form (CommonDefaults::host_memory_list);
// --sizes is parsed strictly by parse_size_list (UsageError naming the flag).
// Everything is checked before any CUDA call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.hpp"
#include "cli/options.hpp"
#include "measure/estimate.hpp"
#include "timeline/stage_timeline.hpp"
#include "stage.hpp"

namespace csg::copies {

struct CopyOptions {
  CommonOptions common;                  // warmup, repeats, seed, json path (the GEMM fields are unused)
  std::vector<std::uint64_t> sizes;      // ascending, bytes
  std::vector<HostMemory> kinds;         // in the order pageable, pinned, registered, write-combined
  std::vector<HostMemory> overlap_kinds; // those of `kinds` the overlap experiment compares: pageable, pinned
  bool quick = false;
  std::uint64_t overlap_bytes = 0;
  int kernel_ms = 0;
  std::vector<std::uint64_t> pin_sizes;  // ascending, bytes; before the free-memory bound
  int pin_repeats = 0;
  TimelineOptions timeline;              // --timeline / --trace: draw the overlap experiment's cases
};

// The CommonDefaults and the description stage 02 builds its StageCli with.
CommonDefaults cli_defaults();
std::string cli_description();

// Adds --sizes, --quick, --overlap-mib, --kernel-ms, --pin-max-mib and the
// timeline options to `cli`.
void add_options(StageCli& cli);

// Parses everything; nothing after printing --help; throws UsageError.
std::optional<CopyOptions> parse_options(StageCli& cli, int argc, const char* const* argv);
std::optional<CopyOptions> parse_options(StageCli& cli, const std::vector<std::string>& args);

// The most the run holds at once: the bandwidth sweep at its largest size, or
// the overlap experiment (the pinning-cost experiment bounds itself).
MemoryNeeds memory_needs(const CopyOptions& options);

// The run's time at `rates` (measure/estimate.hpp): every copy of the sweep,
// the overlap cases, the pinning calls, every round.
double estimate_seconds(const CopyOptions& options, const Rates& rates);

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
