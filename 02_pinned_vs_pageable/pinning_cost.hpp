// What pinning host memory costs, call by call, for the article's claim
// that ("pinned memory is costly to allocate and takes physical memory away").
//   cudaMallocHost / cudaFreeHost   allocate, zero, lock and map pages for the GPU; unmap and free
//   malloc + first touch            what pageable memory costs to make resident:
//                                   aligned_alloc, then one write per 4 KiB page
//   cudaHostRegister / Unregister   lock (and map) an existing, already resident range
// Every call is timed on the host with steady_clock; a call's failure throws
// CudaError naming it, and owners free whatever was allocated.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "measure/stats.hpp"

namespace csg::copies {

struct PinningCost {
  std::uint64_t bytes = 0;
  Summary malloc_host;      // cudaMallocHost
  Summary free_host;        // cudaFreeHost
  Summary malloc_touch;     // aligned_alloc + first touch of every page
  Summary host_register;    // cudaHostRegister of that resident range
  Summary host_unregister;  // cudaHostUnregister
};

// Which sizes the experiment may pin: at most half the available host memory
// (MemAvailable), so the machine keeps room to work; the rest are skipped,
// and the stage says so. Without /proc/meminfo every size is tried.
struct PinningPlan {
  std::vector<std::uint64_t> sizes;
  std::vector<std::uint64_t> skipped;
  std::optional<std::uint64_t> available_bytes;
};
PinningPlan plan_pinning(const std::vector<std::uint64_t>& sizes, std::optional<std::uint64_t> available_bytes);

// For each size in turn (only one block is allocated at any time, so the most
// memory pinned at once is the largest size): one untimed warm-up round at
// the smallest size, then `repeats` rounds of every call.
std::vector<PinningCost> measure_pinning_costs(const std::vector<std::uint64_t>& sizes, int repeats);

}  // namespace csg::copies
