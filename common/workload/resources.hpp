// Before allocating, compare what a run needs with what is free, and refuse
// with both numbers and a suggestion instead of failing halfway.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "owners.hpp"
#include "batches.hpp"

namespace csg {

struct MemoryNeeds {
  std::uint64_t device_bytes = 0;
  std::uint64_t host_bytes = 0;
  HostMemory host_kind = HostMemory::pageable;
};

// What BatchBuffers allocates: A and C for `device_slots` batches on the
// device, all batches of A and C on the host, and B on both.
MemoryNeeds memory_needs(const Workload& work, HostMemory host_kind, int device_slots);

// What two sets of buffers need together (a stage that keeps a second copy
// of the batches, for a baseline or an update experiment). Saturating: a
// request too large to count is certainly too large to fit. The host kind is `a`'s.
MemoryNeeds combined(const MemoryNeeds& a, const MemoryNeeds& b);

// MemAvailable from /proc/meminfo, or nothing where it can't be read.
std::optional<std::uint64_t> available_host_bytes();

// The host half of check_fits, which needs no GPU: compares
// `needs.host_bytes` with the host's available memory (keeping the same
// margin) and throws ResourceError if it does not fit. Does nothing where
// the available memory can't be read.
void check_host_fits(const MemoryNeeds& needs, const std::string& suggestion);

// Compares `needs` with cudaMemGetInfo's free bytes and the host's available
// memory (keeping a margin for the CUDA context and the OS); throws
// ResourceError ("needs 60.0 GiB of device memory, 12.0 GiB free; <suggestion>").
void check_fits(const MemoryNeeds& needs, const std::string& suggestion);

}  // namespace csg
