// Stage 02's command lines: the byte sizes they take (--sizes 4K,64K,1M,1G),
// and what the laboratory's subcommands offer alike (no GEMM, --host-memory as
// a list of the kinds measured). Everything is checked before any CUDA call;
// a refusal is a UsageError naming the flag and the value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options.hpp"

namespace csg::copies {

// No GEMM, no --kernel; --host-memory as a list of the kinds to measure,
// from `kinds` (all of them by default).
CommonDefaults copy_defaults(std::span<const HostMemory> kinds);

// Seconds to move `bytes` at `bytes_per_s` (0 for an unknown rate), for the estimates.
double seconds_at(double bytes, double bytes_per_s);

// ---- byte sizes on the command line, e.g. --sizes 4K,64K,1M,1G ----
//
// A decimal count of bytes with an optional binary suffix, K/KiB = 2^10 up to
// T/TiB = 2^40 (either case of letter). Strict: no zero, empty item, stray text
// ("4KB", "1.5M"), sign, overflow, size above kMaxTransferBytes or size listed
// twice; each refusal a UsageError naming the flag and the item.

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
