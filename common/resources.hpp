// Before allocating, compare what a run needs with what is free, and refuse
// with both numbers and a suggestion instead of failing halfway.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "host_buffer.cuh"
#include "workload.hpp"

namespace csg {

struct MemoryNeeds {
  std::uint64_t device_bytes = 0;
  std::uint64_t host_bytes = 0;
  HostMemory host_kind = HostMemory::pageable;
};

// What BatchBuffers allocates: A and C for `device_slots` batches on the
// device, all batches of A and C on the host, and B on both.
MemoryNeeds memory_needs(const Workload& work, HostMemory host_kind, int device_slots);

// Two sets of the same buffers (a stage that keeps a second copy of the
// batches for a baseline in another host memory kind).
MemoryNeeds twice(const MemoryNeeds& needs);

// MemAvailable from /proc/meminfo, or nothing where it can't be read.
std::optional<std::uint64_t> available_host_bytes();

// Compares `needs` with cudaMemGetInfo's free bytes and the host's available
// memory (keeping a margin for the CUDA context and the OS); throws
// ResourceError ("needs 60.0 GiB of device memory, 12.0 GiB free; <suggestion>").
void check_fits(const MemoryNeeds& needs, const std::string& suggestion);

}  // namespace csg
