#include "options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <span>

#include "base/errors.hpp"
#include "base/units.hpp"
#include "copy_buffers.hpp"
#include "lesson.hpp"

namespace csg::copies {
namespace {

// Default sweep: 4 KiB (latency-bound, ~10 us per copy) to 1 GiB (~20 ms pinned
// at 55 GB/s), powers of 4: 10 sizes.
constexpr std::uint64_t kFirstDefaultBytes = 4 * kKiB;
constexpr std::uint64_t kLastDefaultBytes = kGiB;
// --quick: one size per regime (latency, ramp, near peak, peak), 5 repeats.
constexpr std::uint64_t kQuickSizes[] = {64 * kKiB, kMiB, 16 * kMiB, 256 * kMiB};
constexpr int kQuickWarmup = 1;
constexpr int kQuickRepeats = 5;

constexpr long long kDefaultOverlapMiB = 64;  // 64 MiB pageable H2D held the host 8.3 ms on the H200
constexpr long long kMaxOverlapMiB = 16384;
constexpr long long kDefaultKernelMs = 10;    // longer than that 8.3 ms, so the copy fits inside the kernel
constexpr long long kMaxKernelMs = 10000;
// A drawn case's batches: enough to see a pipeline issued from one thread settle.
constexpr long long kMaxTimelinePairs = 1000;
constexpr long long kDefaultPinMaxMiB = 4096;  // cudaMallocHost 1 GiB took 0.4 s on the H200: 4 GiB ~ 1.7 s a call
constexpr long long kMaxPinMaxMiB = 1LL << 20;  // 1 TiB
constexpr int kPinSizeCount = 4;                // max/64, max/16, max/4, max
constexpr std::uint64_t kSmallestPinBytes = kMiB;
// Allocating GiBs ten times teaches nothing the third time did not.
constexpr int kMaxPinRepeats = 3;

constexpr HostMemory kAllKinds[] = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                                    HostMemory::write_combined};
// The overlap compares the article's two kinds.
constexpr HostMemory kOverlapKinds[] = {HostMemory::pageable, HostMemory::pinned};

std::vector<std::uint64_t> pin_sizes_up_to(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes;
  for (int step = kPinSizeCount - 1; step >= 0; --step) {
    const std::uint64_t bytes = max_bytes >> (2 * step);
    if (bytes >= kSmallestPinBytes && (sizes.empty() || bytes != sizes.back())) sizes.push_back(bytes);
  }
  return sizes;
}

// No GEMM, no --kernel; --host-memory as a list of the kinds to measure.
CommonDefaults copy_defaults(std::span<const HostMemory> kinds) {
  CommonDefaults defaults;
  defaults.gemm_workload = false;
  defaults.kernel_choice = false;
  defaults.host_memory_choices.assign(kinds.begin(), kinds.end());
  defaults.host_memory_list = true;
  return defaults;
}

// The sweep's sizes: --sizes, else --quick's four, else the default powers of 4.
std::vector<std::uint64_t> sweep_sizes(const StageCli& cli) {
  if (cli.given("sizes")) return parse_size_list("sizes", cli.get_string("sizes"));
  if (cli.get_flag("quick")) return {std::begin(kQuickSizes), std::end(kQuickSizes)};
  return powers_of_4(kFirstDefaultBytes, kLastDefaultBytes);
}

// What one CopySet of `bytes` for `kinds` holds at once, on the host and on the device.
MemoryNeeds copy_set_needs(std::uint64_t bytes, std::span<const HostMemory> kinds) {
  MemoryNeeds needs;
  needs.host_kind = HostMemory::pinned;
  needs.host_bytes = CopySet::host_bytes_needed(bytes, kinds);
  needs.device_bytes = CopySet::device_bytes_needed(bytes);
  return needs;
}

double seconds_at(double bytes, double bytes_per_s) { return bytes_per_s > 0.0 ? bytes / bytes_per_s : 0.0; }

}  // namespace

std::optional<SweepOptions> parse_sweep_options(int argc, const char* const* argv) {
  StageCli cli(subcommand_program(lesson02::kStage, "sweep"),
               "H2D and D2H bandwidth over a size sweep for pageable, pinned, registered and write-combined host "
               "memory, one cudaMemcpyAsync each, timed with events; pinned H2D and D2H at once on two streams; and "
               "where pageable copies lose their time: the driver's staging copy, done by hand beside them.",
               copy_defaults(kAllKinds));
  cli.add_text("sizes",
               "Transfer sizes, e.g. 4K,64K,1M,1G (bytes; K/M/G/T are 2^10..2^40; at most 1T). Default: powers of "
               "4 from 4K to 1G; with --quick 64K,1M,16M,256M. --sizes wins over --quick",
               "", "LIST");
  cli.add_flag("quick", "Short run: sizes 64K,1M,16M,256M, 1 warm-up + 5 repeats (unless --warmup/--repeats are given)");
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv);
  if (!common) return std::nullopt;
  SweepOptions options{.common = *common,
                       .sizes = sweep_sizes(cli),
                       .kinds = common->host_memories,
                       .quick = cli.get_flag("quick")};
  if (options.quick && !cli.given("warmup")) options.common.plan.warmup = kQuickWarmup;
  if (options.quick && !cli.given("repeats")) options.common.plan.repeats = kQuickRepeats;
  return options;
}

MemoryNeeds memory_needs(const SweepOptions& options) { return copy_set_needs(options.sizes.back(), options.kinds); }

double estimate_seconds(const SweepOptions& options, const Rates& rates) {
  // Registered and write-combined memory copy about as fast as pinned; a
  // host memcpy runs at roughly the pageable copy's rate.
  double round = 0.0;
  for (const std::uint64_t bytes : options.sizes) {
    for (const HostMemory kind : options.kinds) {
      const double rate = kind == HostMemory::pageable ? rates.pageable_bytes_per_s : rates.pinned_bytes_per_s;
      round += 2.0 * seconds_at(double(bytes), rate);
    }
    round += seconds_at(2.0 * double(bytes), rates.pinned_bytes_per_s) +
             seconds_at(double(bytes), rates.pageable_bytes_per_s);
  }
  return (options.common.plan.warmup + options.common.plan.repeats) * round;
}

std::optional<OverlapOptions> parse_overlap_options(int argc, const char* const* argv, bool timeline) {
  StageCli cli(subcommand_program(lesson02::kStage, timeline ? "timeline" : "overlap"),
               timeline ? "The overlap experiment, then its telling cases once more each, recorded with CUPTI and "
                          "drawn: pageable H2D with the kernel queued first and with the copy issued first, pinned "
                          "H2D issued first."
                        : "cudaMemcpyAsync on one stream beside a busy kernel on another, from pageable and from "
                          "pinned memory, both directions, both issue orders: how long the call holds the host, and "
                          "whether the copy runs while the kernel does.",
               copy_defaults(kOverlapKinds));
  cli.add_int("overlap-mib", "Size of the copy, MiB", kDefaultOverlapMiB, 1, kMaxOverlapMiB);
  cli.add_int("kernel-ms", "How long the busy kernel runs, ms", kDefaultKernelMs, 1, kMaxKernelMs);
  if (timeline) {
    cli.add_int("timeline-batches",
                "Batches each drawn case issues, a batch being its copy and its kernel, one batch after another "
                "from one thread as a pipeline would (1: the case as measured)",
                1, 1, kMaxTimelinePairs);
    cli.add_output("trace", "Also write the recorded cases as Chrome trace-event JSON (https://ui.perfetto.dev)");
  }
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv);
  if (!common) return std::nullopt;
  return OverlapOptions{.common = *common,
                        .kinds = common->host_memories,
                        .bytes = static_cast<std::uint64_t>(cli.get_int("overlap-mib")) * kMiB,
                        .kernel_ms = static_cast<int>(cli.get_int("kernel-ms")),
                        .trace_path = timeline ? cli.get_string("trace") : "",
                        .timeline_pairs = timeline ? static_cast<int>(cli.get_int("timeline-batches")) : 1};
}

MemoryNeeds memory_needs(const OverlapOptions& options) { return copy_set_needs(options.bytes, options.kinds); }

double estimate_seconds(const OverlapOptions& options, const Rates& rates, bool timeline) {
  // Each case runs the kernel and the copy, at worst one after the other.
  const double one_case = options.kernel_ms * 1e-3 + seconds_at(double(options.bytes), rates.pageable_bytes_per_s);
  const double cases = 4.0 * double(options.kinds.size());  // each kind x 2 directions x 2 orders
  const int rounds = options.common.plan.warmup + options.common.plan.repeats;
  return rounds * (cases + 1.0) * one_case + (timeline ? 3.0 * options.timeline_pairs * one_case : 0.0);
}

std::optional<PinningOptions> parse_pinning_options(int argc, const char* const* argv) {
  CommonDefaults defaults = copy_defaults(kOverlapKinds);
  defaults.host_memory_choice = false;  // it allocates every kind it times
  StageCli cli(subcommand_program(lesson02::kStage, "pinning-cost"),
               "What pinning host memory costs, call by call, timed on the host: cudaMallocHost and cudaFreeHost; "
               "malloc and a first write to every page; cudaHostRegister and cudaHostUnregister of that range. Each "
               "size allocated alone, at most 3 timed rounds (--repeats), after --warmup rounds at the smallest size.",
               defaults);
  cli.add_int("pin-max-mib",
              "Largest size, MiB; sizes max/64, max/16, max/4, max (at least 1 MiB each), those beyond half the "
              "available memory skipped",
              kDefaultPinMaxMiB, 1, kMaxPinMaxMiB);
  const std::optional<CommonOptions> common = cli.parse_or_help(argc, argv);
  if (!common) return std::nullopt;
  return PinningOptions{.common = *common,
                        .sizes = pin_sizes_up_to(static_cast<std::uint64_t>(cli.get_int("pin-max-mib")) * kMiB),
                        .repeats = std::min(common->plan.repeats, kMaxPinRepeats)};
}

double estimate_seconds(const PinningOptions& options) {
  // cudaMallocHost took ~0.4 s per GiB on an H200; register and touch about as long again.
  constexpr double kPinSecondsPerByte = 0.8 / double(std::uint64_t{1} << 30);
  double seconds = 0.0;
  for (const std::uint64_t bytes : options.sizes) seconds += options.repeats * kPinSecondsPerByte * double(bytes);
  return seconds;
}

}  // namespace csg::copies

namespace csg::copies {
namespace {

struct Suffix {
  std::string_view short_name;  // "K"
  std::string_view long_name;   // "KiB"
  std::uint64_t bytes;
};

constexpr std::array<Suffix, 4> kSuffixes = {{
    {"K", "KiB", std::uint64_t{1} << 10},
    {"M", "MiB", std::uint64_t{1} << 20},
    {"G", "GiB", std::uint64_t{1} << 30},
    {"T", "TiB", std::uint64_t{1} << 40},
}};

bool same_letter(char a, char b) {
  return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
}

// The multiplier a suffix stands for; 0 when `suffix` is not one.
std::uint64_t suffix_bytes(std::string_view suffix) {
  if (suffix.empty()) return 1;
  for (const Suffix& s : kSuffixes) {
    if (suffix.size() == 1 && same_letter(suffix[0], s.short_name[0])) return s.bytes;
    if (suffix.size() == 3 && same_letter(suffix[0], s.long_name[0]) && suffix.substr(1) == "iB") return s.bytes;
  }
  return 0;
}

std::string expected_text(const std::string& flag) {
  return "--" + flag + " takes sizes like 4K,64K,1M,1G (bytes, K/M/G/T = 2^10/2^20/2^30/2^40, at most 1T)";
}

}  // namespace

std::uint64_t parse_size(const std::string& flag, std::string_view text) {
  std::string got = "'";  // built by appending: g++ 12 warns (-Wrestrict) about "'" + std::string(...)
  got.append(text).append("'");
  if (text.empty()) throw UsageError(expected_text(flag) + ", got an empty item");
  std::uint64_t count = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, count);  // digits only: no sign, no space
  if (error == std::errc::invalid_argument || end == first) throw UsageError(expected_text(flag) + ", got " + got);
  const std::uint64_t multiplier = suffix_bytes(std::string_view(end, static_cast<std::size_t>(last - end)));
  if (multiplier == 0) throw UsageError(expected_text(flag) + ", got " + got);
  if (error == std::errc::result_out_of_range) throw UsageError("--" + flag + " " + got + " overflows 64 bits");
  if (count == 0) throw UsageError("--" + flag + " takes sizes of at least 1 byte, got " + got);
  const auto bytes = checked_mul(count, multiplier);
  if (!bytes) throw UsageError("--" + flag + " " + got + " overflows 64 bits");
  if (*bytes > kMaxTransferBytes) {
    throw UsageError("--" + flag + " " + got + " is larger than 1T, more memory than any machine here has");
  }
  return *bytes;
}

std::vector<std::uint64_t> parse_size_list(const std::string& flag, std::string_view text) {
  if (text.empty()) throw UsageError("--" + flag + " needs a list of sizes, e.g. 4K,64K,1M");
  std::vector<std::uint64_t> sizes;
  std::size_t begin = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string_view item = text.substr(begin, comma == std::string_view::npos ? text.npos : comma - begin);
    const std::uint64_t bytes = parse_size(flag, item);
    if (std::find(sizes.begin(), sizes.end(), bytes) != sizes.end()) {
      throw UsageError("--" + flag + " lists " + format_size(bytes) + " twice ('" + std::string(item) + "')");
    }
    sizes.push_back(bytes);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

std::vector<std::uint64_t> powers_of_4(std::uint64_t first, std::uint64_t last) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = std::max<std::uint64_t>(first, 1); bytes <= last;) {
    sizes.push_back(bytes);
    const auto next = checked_mul(bytes, 4);
    if (!next) break;
    bytes = *next;
  }
  return sizes;
}

std::string format_size(std::uint64_t bytes) {
  for (auto s = kSuffixes.rbegin(); s != kSuffixes.rend(); ++s) {
    if (bytes >= s->bytes && bytes % s->bytes == 0) {
      return std::to_string(bytes / s->bytes) + " " + std::string(s->long_name);
    }
  }
  return std::to_string(bytes) + " B";
}

}  // namespace csg::copies
