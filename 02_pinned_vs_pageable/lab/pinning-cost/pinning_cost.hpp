// What pinning host memory costs, call by call, for the article's claim
// that ("pinned memory is costly to allocate and takes physical memory away").
//   cudaMallocHost / cudaFreeHost   allocate, zero, lock and map pages for the GPU; unmap and free
//   malloc + first touch            what pageable memory costs to make resident:
//                                   aligned_alloc, then one write per 4 KiB page
//   cudaHostRegister / Unregister   lock (and map) an existing, already resident range
// Every call is timed on the host with steady_clock; outside the timed calls,
// the driver must report the cudaMallocHost block and the registered range
// page-locked (cudaPointerGetAttributes), else the figures time something else.
//
// JSON: measurements "pin_cost", one per (call, bytes), gbps = bytes made
// usable per second (verified: null); "pinning" (the sizes, those skipped,
// the available memory); bounds "pinning_peak_pinned_bytes"; verification:
// every allocation page-locked.
#pragma once

#include "experiment/lab.hpp"

namespace csg::copies {

struct PinningCost {
  std::uint64_t bytes = 0;
  Summary malloc_host;      // cudaMallocHost
  Summary free_host;        // cudaFreeHost
  Summary malloc_touch;     // aligned_alloc + first touch of every page
  Summary host_register;    // cudaHostRegister of that resident range
  Summary host_unregister;  // cudaHostUnregister
  int page_locked_checks = 0;  // allocations the driver reported page-locked, as they must be
  int checks = 0;              // allocations checked
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
// memory pinned at once is the largest size): `warmup` untimed rounds at
// the smallest size, then `repeats` rounds of every call.
std::vector<PinningCost> measure_pinning_costs(const std::vector<std::uint64_t>& sizes, int repeats, int warmup = 1);

// Whether every allocation was page-locked (and there was one).
bool pinning_verified(const std::vector<PinningCost>& costs);

struct PinningConfig {
  CommonOptions common;
  std::vector<std::uint64_t> sizes;  // --pin-max-mib's, ascending
  PinningPlan plan;                  // of those, the ones that fit half the available memory
  int repeats = 0;   // --repeats, at most 3: allocating GiBs again teaches nothing new
};

// --pin-max-mib N: the sizes max/64, max/16, max/4, max (at least 1 MiB
// each), planned against the available memory (ResourceError, exit 2,
// when none fits); --repeats capped at 3.
void add_pinning_options(StageCli& cli);
PinningConfig read_pinning(const StageCli& cli, CommonOptions& common);

// The table, the skipped sizes, what pinning takes from the system, the check and the JSON.
void report_pinning(const PinningConfig& config, const std::vector<PinningCost>& costs, Report& report);

}  // namespace csg::copies
