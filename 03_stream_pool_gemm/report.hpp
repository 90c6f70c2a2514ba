// Stage 03's results: one table of every variant, then the lines that say
// what the figures mean (speed-ups, the bound, the regime, the sweep, device
// memory), and the JSON.
#pragma once

#include <ostream>
#include <string>

#include "cli/pool_options.hpp"
#include "measurements.hpp"
#include "stream_count.hpp"
#include "report/result.hpp"

namespace csg::pool {

StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs);

// The pool-size sweep of `runs` (its pool_sweep entries) as a table, what the
// data says about it, and the hardware-queue note past CUDA_DEVICE_MAX_CONNECTIONS.
void print_sweep(std::ostream& out, const PoolMeasurements& runs, const std::string& heading);

// The stream-count sweep (its own PoolMeasurements): the table, the verdict and the mechanism.
void print_stream_count(std::ostream& out, const StreamCountConfig& config, const PoolMeasurements& runs);
nlohmann::json stream_count_json(const StreamCountConfig& config, const PoolMeasurements& runs);

void print_pool_result(std::ostream& out, const StageResult& result, const CommonOptions& options,
                       const PoolConfig& config, const PoolMeasurements& runs);

}  // namespace csg::pool
