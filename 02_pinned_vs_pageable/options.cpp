#include "options.hpp"

#include <algorithm>

#include "copy_buffers.hpp"
#include "base/errors.hpp"
#include "size_list.hpp"
#include "base/units.hpp"

namespace csg {
namespace {

// Default sweep: 4 KiB (latency-bound, ~10 µs per copy) to 1 GiB (~20 ms pinned
// at 55 GB/s), powers of 4: 10 sizes.
constexpr std::uint64_t kFirstDefaultBytes = 4 * kKiB;
constexpr std::uint64_t kLastDefaultBytes = kGiB;
// --quick: one size per regime (latency, ramp, near peak, peak), 5 repeats.
constexpr std::uint64_t kQuickSizes[] = {64 * kKiB, kMiB, 16 * kMiB, 256 * kMiB};
constexpr int kQuickWarmup = 1;
constexpr int kQuickRepeats = 5;

constexpr long long kDefaultOverlapMiB = 64;  // the article's figure: 64 MiB pageable H2D blocked the host 8.3 ms
constexpr long long kMaxOverlapMiB = 16384;
constexpr long long kDefaultKernelMs = 10;    // longer than that 8.3 ms, so the copy fits inside the kernel
constexpr long long kMaxKernelMs = 10000;
constexpr long long kDefaultPinMaxMiB = 4096;  // cudaMallocHost 1 GiB took 0.4 s on the H200: 4 GiB ~ 1.7 s a call
constexpr long long kQuickPinMaxMiB = 1024;
constexpr long long kMaxPinMaxMiB = 1LL << 20;  // 1 TiB
constexpr int kPinSizeCount = 4;                // max/64, max/16, max/4, max
constexpr std::uint64_t kSmallestPinBytes = kMiB;
// Allocating GiBs ten times teaches nothing the third time did not.
constexpr int kMaxPinRepeats = 3;

constexpr HostMemory kAllKinds[] = {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                                    HostMemory::write_combined};

std::vector<std::uint64_t> pin_sizes_up_to(std::uint64_t max_bytes) {
  std::vector<std::uint64_t> sizes;
  for (int step = kPinSizeCount - 1; step >= 0; --step) {
    const std::uint64_t bytes = max_bytes >> (2 * step);
    if (bytes >= kSmallestPinBytes && (sizes.empty() || bytes != sizes.back())) sizes.push_back(bytes);
  }
  return sizes;
}

}  // namespace

CommonDefaults copy_cli_defaults() {
  CommonDefaults defaults;
  defaults.host_memory_choices.assign(std::begin(kAllKinds), std::end(kAllKinds));
  defaults.host_memory_list = true;  // --host-memory: which kinds to measure, default all four
  defaults.gemm_workload = false;    // --batches, --m, --n, --k are accepted and unused
  return defaults;
}

std::string copy_cli_description() {
  return "Pinned vs pageable host memory, measured: H2D/D2H bandwidth over a size sweep for pageable, pinned, "
         "registered and write-combined memory (and pinned both ways at once); where pageable copies lose their "
         "time (the staging copy); how long cudaMemcpyAsync from pageable memory blocks the host beside a busy "
         "kernel; what pinning itself costs.";
}

void add_copy_options(StageCli& cli) {
  cli.add_text("sizes",
               "Transfer sizes of the bandwidth sweep, e.g. 4K,64K,1M,1G (bytes; K/M/G/T are 2^10..2^40; at most "
               "1T). Default: powers of 4 from 4K to 1G; with --quick 64K,1M,16M,256M. --sizes wins over --quick",
               "", "LIST");
  cli.add_flag("quick",
               "Short run: sizes 64K,1M,16M,256M, 1 warm-up + 5 repeats (unless --warmup/--repeats are given), "
               "pinning cost up to 1 GiB");
  cli.add_int("overlap-mib", "Copy size of the overlap experiment, MiB", kDefaultOverlapMiB, 1, kMaxOverlapMiB);
  cli.add_int("kernel-ms", "How long the busy kernel of the overlap experiment runs, ms", kDefaultKernelMs, 1,
              kMaxKernelMs);
  cli.add_int("pin-max-mib",
              "Largest size of the pinning-cost experiment, MiB (0: 4096, or 1024 with --quick); sizes max/64, "
              "max/16, max/4, max (at least 1 MiB each), those beyond half the available memory skipped",
              0, 0, kMaxPinMaxMiB);
  add_timeline_options(cli);  // here: draw the overlap experiment's cases (--timeline-batches is unused)
}

std::optional<CopyOptions> parse_copy_options(StageCli& cli, int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  return parse_copy_options(cli, args);
}

std::optional<CopyOptions> parse_copy_options(StageCli& cli, const std::vector<std::string>& args) {
  auto common = cli.parse(args);
  if (!common) return std::nullopt;

  CopyOptions options;
  options.common = *common;
  options.quick = cli.get_flag("quick");
  if (options.quick && !cli.given("warmup")) options.common.plan.warmup = kQuickWarmup;
  if (options.quick && !cli.given("repeats")) options.common.plan.repeats = kQuickRepeats;

  if (cli.given("sizes")) {
    options.sizes = parse_size_list("sizes", cli.get_string("sizes"));
  } else if (options.quick) {
    options.sizes.assign(std::begin(kQuickSizes), std::end(kQuickSizes));
  } else {
    options.sizes = powers_of_4(kFirstDefaultBytes, kLastDefaultBytes);
  }

  options.kinds = options.common.host_memories;
  options.timeline = read_timeline_options(cli);
  for (HostMemory kind : options.kinds) {
    if (kind == HostMemory::pageable || kind == HostMemory::pinned) options.overlap_kinds.push_back(kind);
  }

  options.overlap_bytes = static_cast<std::uint64_t>(cli.get_int("overlap-mib")) * kMiB;
  options.kernel_ms = static_cast<int>(cli.get_int("kernel-ms"));
  long long pin_max_mib = cli.get_int("pin-max-mib");
  if (pin_max_mib == 0) pin_max_mib = options.quick ? kQuickPinMaxMiB : kDefaultPinMaxMiB;
  options.pin_sizes = pin_sizes_up_to(static_cast<std::uint64_t>(pin_max_mib) * kMiB);
  options.pin_repeats = std::min(options.common.plan.repeats, kMaxPinRepeats);
  return options;
}

MemoryNeeds copy_memory_needs(const CopyOptions& options) {
  const std::uint64_t largest = options.sizes.back();
  const std::vector<HostMemory>& overlap_kinds = options.overlap_kinds;
  MemoryNeeds needs;
  needs.host_kind = HostMemory::pinned;
  needs.host_bytes = CopySet::host_bytes_needed(largest, options.kinds);
  needs.device_bytes = CopySet::device_bytes_needed(largest);
  if (!overlap_kinds.empty()) {
    needs.host_bytes = std::max(needs.host_bytes, CopySet::host_bytes_needed(options.overlap_bytes, overlap_kinds));
    needs.device_bytes = std::max(needs.device_bytes, CopySet::device_bytes_needed(options.overlap_bytes));
  }
  return needs;
}

}  // namespace csg
