// Stage 03's results: the result document of a set of pool measurements, and
// the parts of the report that the lesson and the laboratory's subcommands
// each pick from. Every sentence that interprets the figures is a verdict
// from conclusions.hpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/pool_options.hpp"
#include "conclusions.hpp"
#include "experiment/report.hpp"
#include "measurements.hpp"
#include "report/result.hpp"

namespace csg::pool {

// Every measurement of `runs`, each pool variant with its own bound, and the
// verification: the first failure, else the passing check of the serial run
// on the config's host memory, or of the first variant where there is none.
StageResult measurements_result(const std::string& stage, const DeviceInfo& device, nlohmann::json config,
                                const PoolMeasurements& runs);

// measurements_result with the config of a pool run (the common fields, the
// pool's and device memory). With the main pool measured in depth-first order
// and its resource runs, `bounds` holds its bound, its regime and the
// kernel's GFLOP/s; with the serial runs as well, the speed-ups over them;
// with one stream per engine, its time.
StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs);

// The pool-size sweep of `runs`: its pool_sweep entries, in the order measured.
std::vector<const PoolMeasurements::Entry*> sweep_entries(const PoolMeasurements& runs);
std::vector<SweepPoint> sweep_points(const PoolMeasurements& runs);
// A variant's "% of bound" and "limited by" cells: "-" without a bound.
std::string percent_of_bound_text(const PoolMeasurements& runs, const PoolMeasurements::Entry& entry);
std::string limited_by_text(const PoolMeasurements& runs, const PoolMeasurements::Entry& entry);

// ---- the parts of a report ------------------------------------------------------------

// The pool-size sweep as a table under `heading`, where time stops improving
// (the verdict `plateau_id`), and the hardware-queue note past
// CUDA_DEVICE_MAX_CONNECTIONS; nothing without a sweep.
void add_sweep(Report& report, const PoolMeasurements& runs, const std::string& heading, const char* plateau_id);
// The workload, the pool and the rounds, and the config's warnings (streams that get no work).
void add_pool_header(Report& report, const CommonOptions& options, const PoolConfig& config);
// Every variant of report.result but the resource runs (the bound's table shows those).
void add_variants(Report& report);
// The pool (depth-first) against the serial runs on pageable and pinned
// memory ("pool.vs_serial_pageable", "pool.vs_serial_pinned"); breadth-first
// against it, where measured ("order.breadth_first"); on pageable memory,
// whether the pool overlapped anything ("pool.pageable").
void add_pool_against_serial(Report& report, const CommonOptions& options, const PoolConfig& config,
                             const PoolMeasurements& runs);
// The isolated sums, one batch's fill and drain, each path of the main
// pool's bound, the bound itself and the pool against it ("pool.bound"),
// each resource alone on each pool size, the partial waves
// ("pool.partial_wave"), and any other variant that beat its own bound.
void add_pool_bound(Report& report, const Workload& work, const PoolMeasurements& runs);
// The main pool against its bound ("pool.bound"), when it has one.
void add_main_bound(Report& report, const PoolMeasurements& runs);
// Every other variant with a bound that `which` picks, judged against it as
// the main pool is ("pool.variant_bound"), where it beat its bound, or with
// `loose` also where it stayed under kLooseBound of it.
void add_variant_bounds(Report& report, const PoolMeasurements& runs,
                        const std::function<bool(const PoolMeasurements::Entry&)>& which, bool loose);
// One stream per engine against the pool, and why ("pool.engine_streams"; nothing where not measured).
void add_engine_streams(Report& report, const PoolMeasurements& runs);
// The kernels' and the pool's GFLOP/s, and the regime the main pool's bound puts it in ("pool.regime").
void add_regime(Report& report, const CommonOptions& options, const PoolMeasurements& runs);
// Device memory of the two layouts and of this run.
void add_device_memory(Report& report, const PoolConfig& config, int batches);

}  // namespace csg::pool
