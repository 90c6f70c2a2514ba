#include "02_pinned_vs_pageable/lab/pinning-cost/pinning_cost.hpp"

#include <cuda_runtime.h>

#include <iostream>
#include <utility>

#include "base/errors.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "check.hpp"
#include "02_pinned_vs_pageable/lab/laboratory.hpp"
#include "02_pinned_vs_pageable/lesson.hpp"
#include "measure/timers.hpp"
#include "owners.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "report/result.hpp"
#include "report/table.hpp"

namespace csg::copies {
namespace {

constexpr std::size_t kPageBytes = 4096;
constexpr std::uint64_t kPinnableFractionDivisor = 2;  // pin at most half of what is available

// Owns one cudaHostRegister'ed range; release() unregisters (and can be timed).
class HostRegistration {
 public:
  HostRegistration(void* ptr, std::size_t bytes) {
    CUDA_CHECK(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
    ptr_ = ptr;
  }
  ~HostRegistration() {
    if (ptr_ != nullptr) CUDA_CHECK_NOEXCEPT(cudaHostUnregister(ptr_));
  }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;
  void release() { CUDA_CHECK(cudaHostUnregister(std::exchange(ptr_, nullptr))); }

 private:
  void* ptr_ = nullptr;
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
  HostRegistration registration(pageable.data(), bytes);
  out.host_register.push_back(timer.elapsed());
  check_page_locked(pageable.data(), out);
  timer.restart();
  registration.release();
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

void print_pinning(std::ostream& out, const PinningPlan& plan, const std::vector<PinningCost>& costs, int repeats) {
  out << "\nwhat pinning costs, ms (median of " << plural(repeats, "round")
      << "; GB/s = bytes made usable per second)\n";
  if (!costs.empty()) {
    Table table({"size", "cudaMallocHost", "GB/s", "cudaFreeHost", "malloc + touch", "GB/s", "cudaHostRegister",
                 "GB/s", "cudaHostUnregister"});
    for (const PinningCost& c : costs) {
      const double b = static_cast<double>(c.bytes);
      table.add_row({format_size(c.bytes), ms_text(c.malloc_host.median_ms), gbps_text(b, c.malloc_host.median_ms),
                     ms_text(c.free_host.median_ms), ms_text(c.malloc_touch.median_ms),
                     gbps_text(b, c.malloc_touch.median_ms), ms_text(c.host_register.median_ms),
                     gbps_text(b, c.host_register.median_ms), ms_text(c.host_unregister.median_ms)});
    }
    table.print(out);
  }
  for (std::uint64_t bytes : plan.skipped) {
    out << "skipped " << format_size(bytes) << ": more than half of the " << format_bytes(*plan.available_bytes)
        << " of host memory available\n";
  }
  if (!costs.empty()) {
    out << "Peak pinned memory: " << format_size(costs.back().bytes) << " in this experiment";
    if (plan.available_bytes) out << "; " << format_bytes(*plan.available_bytes) << " were available";
    out << ".\n";
  }
  out << "Pinned pages can't be swapped or moved: the rest of the system loses them until they are freed.\n";
  int checks = 0;
  for (const PinningCost& c : costs) checks += c.checks;
  if (pinning_verified(costs)) {
    out << "all " << plural(checks, "cudaMallocHost and cudaHostRegister allocation")
        << " page-locked, as the driver reports them\n";
  } else {
    out << "VERIFICATION FAILED: " << (checks == 0 ? "nothing was allocated" : "an allocation the driver does not report page-locked") << '\n';
  }
}

nlohmann::json pinning_json(const PinningOptions& options, const DeviceInfo& device, const PinningPlan& plan,
                            const std::vector<PinningCost>& costs) {
  CopyResult copy(device, {
                               {"pin_sizes", sizes_json(options.sizes)},
                               {"pin_repeats", options.repeats},
                               {"seed", options.common.seed},
                           });
  StageResult& result = copy.result;
  int checks = 0;
  int page_locked = 0;
  for (const PinningCost& c : costs) {
    const Work made_usable{static_cast<double>(c.bytes), 0.0};
    const std::pair<const char*, const Summary*> calls[] = {
        {"cudaMallocHost", &c.malloc_host},      {"cudaFreeHost", &c.free_host},
        {"malloc_first_touch", &c.malloc_touch}, {"cudaHostRegister", &c.host_register},
        {"cudaHostUnregister", &c.host_unregister}};
    for (const auto& [call, stats] : calls) {
      copy.add({"pin_cost", {{"call", call}, {"bytes", c.bytes}}, *stats, made_usable, false}, false);
    }
    checks += c.checks;
    page_locked += c.page_locked_checks;
  }
  if (!costs.empty()) result.bounds["pinning_peak_pinned_bytes"] = costs.back().bytes;
  result.verification.passed = pinning_verified(costs);
  result.verification.batches_checked = checks;
  result.verification.method = "page-locked (cudaPointerGetAttributes)";
  result.variants_verified = page_locked;
  if (!result.verification.passed) copy.failure = "an allocation was not page-locked, or nothing was allocated";
  nlohmann::json doc = to_json(copy, std::string("pinning-cost"));
  nlohmann::json skipped = nlohmann::json::array();
  for (std::uint64_t bytes : plan.skipped) skipped.push_back(bytes);
  doc["pinning"] = {{"sizes", sizes_json(plan.sizes)},
                    {"skipped_sizes", skipped},
                    {"available_host_bytes",
                     plan.available_bytes ? nlohmann::json(*plan.available_bytes) : nlohmann::json(nullptr)}};
  return doc;
}

int run_pinning_cost(int argc, char** argv) {
  const std::optional<PinningOptions> options = parse_pinning_options(argc, argv);  // before any CUDA call
  if (!options) return kExitOk;
  const int device = require_device();
  const PinningPlan plan = plan_pinning(options->sizes, available_host_bytes());
  if (plan.sizes.empty()) {
    throw ResourceError("every size of --pin-max-mib is more than half of the " +
                        format_bytes(*plan.available_bytes) + " of host memory available; choose a smaller --pin-max-mib");
  }
  check_estimate(estimate_seconds(*options), options->common.max_minutes,
                 "pinning " + plural(std::ssize(plan.sizes), "size"));
  progress("pinning cost: " + plural(std::ssize(plan.sizes), "size") + ", " + plural(options->repeats, "round") +
           " each");
  const std::vector<PinningCost> costs =
      measure_pinning_costs(plan.sizes, options->repeats, options->common.plan.warmup);
  const DeviceInfo info = query_device_info(device);
  std::cout << subcommand_program(lesson02::kStage, "pinning-cost") << " on " << info.summary() << '\n';
  print_pinning(std::cout, plan, costs, options->repeats);
  if (!options->common.json_path.empty()) {
    write_json_file(options->common.json_path, pinning_json(*options, info, plan, costs));
  }
  return pinning_verified(costs) ? kExitOk : kExitFailure;
}

}  // namespace csg::copies
