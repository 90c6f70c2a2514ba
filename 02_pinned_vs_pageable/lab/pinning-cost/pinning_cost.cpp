#include "02_pinned_vs_pageable/lab/pinning-cost/pinning_cost.hpp"

#include "02_pinned_vs_pageable/options.hpp"
#include "02_pinned_vs_pageable/report.hpp"

namespace csg::copies {
namespace {

constexpr const char* kAbout = R"(
pinning-cost: what cudaMallocHost and cudaHostRegister cost, against malloc and a first touch

What pinning host memory costs, call by call, timed on the host: cudaMallocHost and cudaFreeHost;
malloc and a first write to every page; cudaHostRegister and cudaHostUnregister of that range. Each
size allocated alone, at most 3 timed rounds (--repeats), after --warmup rounds at the smallest
size.
)";

constexpr const char* kRuns = R"(
# what pinning costs: bounds, appendix
# ... up to 4 GiB (--full)
qc  -     --pin-max-mib 256
f   -
t   tiny  --pin-max-mib 4 --warmup 0 --repeats 1
)";

constexpr long long kDefaultPinMaxMiB = 4096;  // cudaMallocHost 1 GiB took 0.4 s on the H200: 4 GiB ~ 1.7 s a call
constexpr long long kMaxPinMaxMiB = 1LL << 20;  // 1 TiB
constexpr int kPinSizeCount = 4;                // max/64, max/16, max/4, max
constexpr std::uint64_t kSmallestPinBytes = kMiB;
// Allocating GiBs ten times teaches nothing the third time did not.
constexpr int kMaxPinRepeats = 3;
// cudaMallocHost took ~0.4 s per GiB on an H200; register and touch about as long again.
constexpr double kPinSecondsPerByte = 0.8 / double(kGiB);
constexpr std::uint64_t kPinnableFractionDivisor = 2;  // pin at most half of what is available
constexpr std::size_t kPageBytes = 4096;

// Each timed call: its column, its name in the JSON, its figures, and whether the table gives its GB/s.
struct Call {
  const char* column;
  const char* key;
  Summary PinningCost::*stats;
  bool rate;
};
constexpr Call kCalls[] = {{"cudaMallocHost", "cudaMallocHost", &PinningCost::malloc_host, true},
                           {"cudaFreeHost", "cudaFreeHost", &PinningCost::free_host, false},
                           {"malloc + touch", "malloc_first_touch", &PinningCost::malloc_touch, true},
                           {"cudaHostRegister", "cudaHostRegister", &PinningCost::host_register, true},
                           {"cudaHostUnregister", "cudaHostUnregister", &PinningCost::host_unregister, false}};

// Unregisters a cudaHostRegister'ed range a failed round leaves behind; the
// round unregisters its own in a timed call.
struct Unregister {
  void operator()(void* ptr) const noexcept { CUDA_CHECK_NOEXCEPT(cudaHostUnregister(ptr)); }
};

struct RoundSamples {
  std::vector<Millis> malloc_host, free_host, malloc_touch, host_register, host_unregister;
  int page_locked = 0;  // allocations the driver reported page-locked
  int checked = 0;
};

// Outside the timed calls: what the driver says `ptr` is.
void check_page_locked(const void* ptr, RoundSamples& out) {
  cudaPointerAttributes attributes{};
  CUDA_CHECK(cudaPointerGetAttributes(&attributes, ptr));
  ++out.checked;
  if (attributes.type == cudaMemoryTypeHost) ++out.page_locked;
}

void one_round(std::uint64_t bytes, RoundSamples& out) {
  {
    HostTimer timer;
    HostBuffer<std::byte> pinned(bytes, HostMemory::pinned);  // cudaMallocHost
    out.malloc_host.push_back(timer.elapsed());
    check_page_locked(pinned.data(), out);
    timer.restart();
    pinned.reset();  // cudaFreeHost
    out.free_host.push_back(timer.elapsed());
  }
  HostTimer timer;
  HostBuffer<std::byte> pageable(bytes, HostMemory::pageable);  // aligned_alloc: no pages yet
  volatile std::byte* pages = pageable.data();
  for (std::size_t offset = 0; offset < bytes; offset += kPageBytes) pages[offset] = std::byte{1};
  out.malloc_touch.push_back(timer.elapsed());

  timer.restart();
  CUDA_CHECK(cudaHostRegister(pageable.data(), bytes, cudaHostRegisterDefault));
  std::unique_ptr<void, Unregister> registration(pageable.data());
  out.host_register.push_back(timer.elapsed());
  check_page_locked(pageable.data(), out);
  timer.restart();
  CUDA_CHECK(cudaHostUnregister(registration.release()));
  out.host_unregister.push_back(timer.elapsed());
}

}  // namespace

PinningPlan plan_pinning(const std::vector<std::uint64_t>& sizes, std::optional<std::uint64_t> available_bytes) {
  PinningPlan plan;
  plan.available_bytes = available_bytes;
  for (const std::uint64_t bytes : sizes) {
    const bool fits = !available_bytes || bytes <= *available_bytes / kPinnableFractionDivisor;
    (fits ? plan.sizes : plan.skipped).push_back(bytes);
  }
  return plan;
}

std::vector<PinningCost> measure_pinning_costs(const std::vector<std::uint64_t>& sizes, int repeats, int warmup) {
  std::vector<PinningCost> costs;
  if (sizes.empty()) return costs;
  RoundSamples untimed;  // first-call costs of the driver's host allocator stay out of the figures
  for (int round = 0; round < warmup; ++round) one_round(sizes.front(), untimed);
  for (const std::uint64_t bytes : sizes) {
    RoundSamples samples;
    for (int round = 0; round < repeats; ++round) one_round(bytes, samples);
    costs.push_back(PinningCost{bytes, summarize(samples.malloc_host), summarize(samples.free_host),
                                summarize(samples.malloc_touch), summarize(samples.host_register),
                                summarize(samples.host_unregister), samples.page_locked, samples.checked});
  }
  return costs;
}

bool pinning_verified(const std::vector<PinningCost>& costs) {
  int checks = 0;
  for (const PinningCost& c : costs) {
    if (c.page_locked_checks != c.checks) return false;
    checks += c.checks;
  }
  return checks > 0;
}

void report_pinning(const PinningConfig& config, const std::vector<PinningCost>& costs, Report& report) {
  const PinningPlan& plan = config.plan;
  std::ostream& out = report.out();
  out << "\nwhat pinning costs, ms (median of " << plural(config.repeats, "round")
      << "; GB/s = bytes made usable per second)\n";
  if (!costs.empty()) {
    std::vector<Column<PinningCost>> columns = {{"size", [](const PinningCost& c) { return format_size(c.bytes); }}};
    for (const Call& call : kCalls) {
      const auto stats = call.stats;
      columns.push_back({call.column, [stats](const PinningCost& c) { return ms_text((c.*stats).median_ms); }});
      if (!call.rate) continue;
      columns.push_back({"GB/s", [stats](const PinningCost& c) { return gbps_text(c.bytes, (c.*stats).median_ms); }});
    }
    report.table(table_of(columns, costs));
  }
  for (const std::uint64_t bytes : plan.skipped) {
    out << "skipped " << format_size(bytes) << ": more than half of the " << format_bytes(*plan.available_bytes)
        << " of host memory available\n";
  }
  if (!costs.empty()) {
    out << "Peak pinned memory: " << format_size(costs.back().bytes) << " in this experiment";
    if (plan.available_bytes) out << "; " << format_bytes(*plan.available_bytes) << " were available";
    out << ".\n";
  }
  out << "Pinned pages can't be swapped or moved: the rest of the system loses them until they are freed.\n";

  StageResult& result = report.result;
  result.config = {{"pin_sizes", config.sizes}, {"pin_repeats", config.repeats}, {"seed", config.common.seed}};
  int checks = 0;
  int page_locked = 0;
  for (const PinningCost& c : costs) {
    for (const Call& call : kCalls) {
      result.measurements.push_back({.name = "pin_cost", .params = {{"call", call.key}, {"bytes", c.bytes}},
                                     .stats = c.*call.stats, .work = {double(c.bytes), 0.0}, .verifiable = false});
    }
    checks += c.checks;
    page_locked += c.page_locked_checks;
  }
  if (!costs.empty()) result.bounds["pinning_peak_pinned_bytes"] = costs.back().bytes;
  result.verification.passed = pinning_verified(costs);
  result.verification.batches_checked = checks;
  result.verification.checked = "cudaMallocHost and cudaHostRegister allocation";
  result.verification.method = "page-locked (cudaPointerGetAttributes)";
  if (!result.verification.passed) {
    result.verification.failure = checks == 0 ? "nothing was allocated" : "an allocation the driver does not report page-locked";
  }
  result.variants_verified = page_locked;
  report.sections["pinning"] = {
      {"sizes", plan.sizes},
      {"skipped_sizes", plan.skipped},
      {"available_host_bytes", plan.available_bytes ? nlohmann::json(*plan.available_bytes) : nlohmann::json(nullptr)}};
}

void add_pinning_options(StageCli& cli) {
  cli.add_int("pin-max-mib",
              "Largest size, MiB; sizes max/64, max/16, max/4, max (at least 1 MiB each), those beyond half the "
              "available memory skipped",
              kDefaultPinMaxMiB, 1, kMaxPinMaxMiB);
}

PinningConfig read_pinning(const StageCli& cli, CommonOptions& common) {
  const std::uint64_t max_bytes = static_cast<std::uint64_t>(cli.get_int("pin-max-mib")) * kMiB;
  std::vector<std::uint64_t> sizes;
  for (int step = kPinSizeCount - 1; step >= 0; --step) {
    const std::uint64_t bytes = max_bytes >> (2 * step);
    if (bytes >= kSmallestPinBytes && (sizes.empty() || bytes != sizes.back())) sizes.push_back(bytes);
  }
  PinningPlan plan = plan_pinning(sizes, available_host_bytes());
  if (plan.sizes.empty()) {
    throw ResourceError("every size of --pin-max-mib is more than half of the " +
                        format_bytes(*plan.available_bytes) + " of host memory available; choose a smaller --pin-max-mib");
  }
  return {.common = common,
          .sizes = std::move(sizes),
          .plan = std::move(plan),
          .repeats = std::min(common.plan.repeats, kMaxPinRepeats)};
}

namespace {

Estimate estimate(const PinningConfig& config, int /*device*/) {
  double seconds = 0.0;
  for (const std::uint64_t bytes : config.plan.sizes) seconds += config.repeats * kPinSecondsPerByte * double(bytes);
  return {seconds, "pinning " + plural(std::ssize(config.plan.sizes), "size") + ", " + plural(config.repeats, "round") +
                       " each"};
}

std::vector<PinningCost> measure(const PinningConfig& config) {
  return measure_pinning_costs(config.plan.sizes, config.repeats, config.common.plan.warmup);
}

CommonDefaults defaults() {
  constexpr HostMemory kKinds[] = {HostMemory::pageable, HostMemory::pinned};
  CommonDefaults d = copy_defaults(kKinds);
  d.host_memory_choice = false;  // it allocates every kind it times
  return d;
}

const Experiment<PinningConfig, std::vector<PinningCost>> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = defaults(), .options = add_pinning_options, .read = read_pinning, .estimate = estimate,
    .measure = measure, .report = report_pinning};

}  // namespace

extern const Subcommand kPinningCost = make_subcommand<kExperiment>();

}  // namespace csg::copies
