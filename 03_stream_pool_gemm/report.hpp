// Stage 03's results: one table of every variant, then the lines that say
// what the figures mean (speed-ups, the bound, the regime, the sweep, device
// memory), and the JSON.
#pragma once

#include <ostream>
#include <string>

#include "cli/pool_options.hpp"
#include "measurements.hpp"
#include "report/result.hpp"

namespace csg::pool {

StageResult pool_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                        const PoolConfig& config, int device_slots, const PoolMeasurements& runs);

void print_pool_result(std::ostream& out, const StageResult& result, const CommonOptions& options,
                       const PoolConfig& config, const PoolMeasurements& runs);

}  // namespace csg::pool
