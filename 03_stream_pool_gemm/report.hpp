// Stage 03's results: the JSON of a set of pool measurements, and the parts
// of the printed report that the lesson and the laboratory's subcommands
// each pick from: a header, the table of every variant, the pool against the
// serial runs, the bound, one stream per engine, the regime, the sweep,
// device memory and the verification line. Every sentence that interprets
// the figures comes from conclusions.hpp.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/pool_options.hpp"
#include "conclusions.hpp"
#include "measurements.hpp"
#include "report/result.hpp"

namespace csg::pool {

// Every measurement of `runs`, each pool variant with its own bound, and the
// verification: the first failure, else the passing check of the serial run
// on the config's host memory, or of the first variant where there is none.
StageResult measurements_result(const std::string& stage, const DeviceInfo& device, nlohmann::json config,
                                const PoolMeasurements& runs);

// measurements_result with the config of a pool run (the common fields, the
// pool's and device memory). With the main pool
// measured in depth-first order and its resource runs, `bounds` holds its
// bound, its regime and the kernel's GFLOP/s; with the serial runs as well,
// the speed-ups over them; with one stream per engine, its time.
StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs);

// The pool-size sweep of `runs`: its pool_sweep entries, in the order measured.
std::vector<const PoolMeasurements::Entry*> sweep_entries(const PoolMeasurements& runs);
std::vector<SweepPoint> sweep_points(const PoolMeasurements& runs);
// The pool-size sweep as a table, what the data says about it, and the
// hardware-queue note past CUDA_DEVICE_MAX_CONNECTIONS; nothing without a sweep.
void print_sweep(std::ostream& out, const PoolMeasurements& runs, const std::string& heading);

// "<stage> <what> on <device>", the workload, the pool and the rounds, and
// the config's warnings (streams that get no work).
void print_pool_header(std::ostream& out, const StageResult& result, const std::string& what,
                       const CommonOptions& options, const PoolConfig& config);
// Every variant but the resource runs (the bound's table shows those).
void print_variants(std::ostream& out, const StageResult& result);
// The pool (depth-first) against the serial runs on pageable and pinned
// memory; the breadth-first pool against it, where measured; on pageable
// memory, whether the pool overlapped anything.
void print_pool_against_serial(std::ostream& out, const CommonOptions& options, const PoolConfig& config,
                               const PoolMeasurements& runs);
// The isolated sums, one batch's fill and drain, each path of the main
// pool's bound, the bound itself, each resource alone on each pool size, the
// partial-wave note, and a warning for any variant that beat its own bound.
void print_pool_bound(std::ostream& out, const StageResult& result, const Workload& work,
                      const PoolMeasurements& runs);
// The warnings alone: any variant faster than its own bound by more than the noise.
void print_beaten_bounds(std::ostream& out, const StageResult& result);
// One stream per engine against the pool, and why (nothing where not measured).
void print_engine_streams(std::ostream& out, const PoolMeasurements& runs);
// The kernels' and the pool's GFLOP/s, and the regime the main pool's bound puts it in.
void print_regime(std::ostream& out, const CommonOptions& options, const PoolMeasurements& runs);
// Device memory of the two layouts and of this run.
void print_device_memory(std::ostream& out, const StageResult& result, const PoolConfig& config, int batches);
// "all 100 batches verified, in 12 variants" (or the first failure).
void print_verification(std::ostream& out, const StageResult& result);

// The result's JSON with "subcommand": `subcommand` (null for the lesson).
nlohmann::json subcommand_json(const StageResult& result, const char* subcommand);

}  // namespace csg::pool
