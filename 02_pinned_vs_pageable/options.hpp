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
#include <vector>

#include "cli/options.hpp"
#include "workload/resources.hpp"
#include "timeline/timeline_options.hpp"

namespace csg {

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
CommonDefaults copy_cli_defaults();
std::string copy_cli_description();

// Adds --sizes, --quick, --overlap-mib, --kernel-ms, --pin-max-mib and the
// timeline options to `cli`.
void add_copy_options(StageCli& cli);

// Parses everything; nothing after printing --help; throws UsageError.
std::optional<CopyOptions> parse_copy_options(StageCli& cli, int argc, const char* const* argv);
std::optional<CopyOptions> parse_copy_options(StageCli& cli, const std::vector<std::string>& args);

// The most the run holds at once: the bandwidth sweep at its largest size, or
// the overlap experiment (the pinning-cost experiment bounds itself).
MemoryNeeds copy_memory_needs(const CopyOptions& options);

}  // namespace csg
