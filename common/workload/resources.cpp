#include "workload/resources.hpp"

#include <cuda_runtime.h>

#include <fstream>
#include <sstream>

#include "check.hpp"
#include "base/errors.hpp"
#include "base/units.hpp"

namespace csg {
namespace {

// Keep this fraction of free memory for the CUDA context, cuBLAS workspaces,
// the page cache and everything else on the machine.
constexpr double kUsableFraction = 0.9;

}  // namespace

MemoryNeeds memory_needs(const Workload& work, HostMemory host_kind, int device_slots) {
  MemoryNeeds needs;
  needs.host_kind = host_kind;
  const std::uint64_t per_batch = work.a_bytes() + work.c_bytes();
  needs.device_bytes = std::uint64_t(device_slots) * per_batch + work.b_bytes();
  needs.host_bytes = work.batch_count() * per_batch + work.b_bytes();
  return needs;
}

MemoryNeeds combined(const MemoryNeeds& a, const MemoryNeeds& b) {
  MemoryNeeds sum = a;
  sum.device_bytes = checked_add(a.device_bytes, b.device_bytes).value_or(UINT64_MAX);
  sum.host_bytes = checked_add(a.host_bytes, b.host_bytes).value_or(UINT64_MAX);
  return sum;
}

std::optional<std::uint64_t> available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * kKiB;
  }
  return std::nullopt;
}

void check_host_fits(const MemoryNeeds& needs, const std::string& suggestion) {
  const auto free_host = available_host_bytes();
  if (!free_host) return;  // no /proc/meminfo: an allocation that fails will say so
  if (static_cast<double>(needs.host_bytes) > kUsableFraction * static_cast<double>(*free_host)) {
    throw ResourceError("this run needs " + format_bytes(needs.host_bytes) + " of host memory (" +
                        std::string(to_string(needs.host_kind)) + ") but only " + format_bytes(*free_host) +
                        " are available; " + suggestion);
  }
}

void check_fits(const MemoryNeeds& needs, const std::string& suggestion) {
  std::size_t free_device = 0;
  std::size_t total_device = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_device, &total_device));
  const double usable_device = kUsableFraction * static_cast<double>(free_device);
  if (static_cast<double>(needs.device_bytes) > usable_device) {
    throw ResourceError("this run needs " + format_bytes(needs.device_bytes) + " of device memory but only " +
                        format_bytes(free_device) + " of " + format_bytes(total_device) + " are free; " +
                        suggestion);
  }
  check_host_fits(needs, suggestion);
}

}  // namespace csg
