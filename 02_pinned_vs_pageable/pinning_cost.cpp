#include "pinning_cost.hpp"

#include <cuda_runtime.h>

#include <utility>

#include "check.hpp"
#include "owners.hpp"
#include "measure/timers.hpp"

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
};

void one_round(std::uint64_t bytes, RoundSamples& out) {
  {
    HostTimer timer;
    HostBuffer<std::byte> pinned(bytes, HostMemory::pinned);  // cudaMallocHost
    out.malloc_host.push_back(timer.elapsed());
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

std::vector<PinningCost> measure_pinning_costs(const std::vector<std::uint64_t>& sizes, int repeats) {
  std::vector<PinningCost> costs;
  if (sizes.empty()) return costs;
  RoundSamples warmup;
  one_round(sizes.front(), warmup);  // first-call costs of the driver's host allocator stay out of the figures
  for (const std::uint64_t bytes : sizes) {
    RoundSamples samples;
    for (int round = 0; round < repeats; ++round) one_round(bytes, samples);
    costs.push_back(PinningCost{bytes, summarize(samples.malloc_host), summarize(samples.free_host),
                                summarize(samples.malloc_touch), summarize(samples.host_register),
                                summarize(samples.host_unregister)});
  }
  return costs;
}

}  // namespace csg::copies
