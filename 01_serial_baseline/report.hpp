// Stage 01's results, for the lesson and the laboratory alike: the serial run
// and its stage sums, as one table, the verdict that says what they mean,
// and the JSON.
#pragma once

#include <ostream>
#include <string>

#include "experiment/report.hpp"
#include "report/result.hpp"
#include "measure/estimate.hpp"
#include "measure/stage_sums.hpp"

namespace csg::serial {

// Measurements "serial", "h2d_sum", "kernel_sum", "d2h_sum"; bounds with the
// three sums, their total and total ÷ sum; verification of both passes.
StageResult serial_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                          const Summary& total, const StageSums& sums, const VerifyResult& serial_check,
                          const VerifyResult& sums_check);

// The serial total against the sum of its stages (verdict "serial.overlap"):
// within kOverlapWithin of the sum (or above it) nothing overlapped, the
// article's first timeline ("nothing_overlapped"); below it, something did
// ("some_overlapped"), and the sentence says so.
inline constexpr double kOverlapWithin = 0.10;
Verdict overlap_verdict(double total_ms, double sum_ms);

// The run's time at `rates` (measure/estimate.hpp): the serial run and the
// three sums, each round, and once more re-timed with --timeline.
double estimate_seconds(const CommonOptions& options, const Rates& rates, bool timeline);

// serial_result into `report`, then the workload line, the table, the sums
// line and the verdict on what they mean.
void report_serial(Report& report, const CommonOptions& options, const Summary& total, const StageSums& sums,
                   const VerifyResult& serial_check, const VerifyResult& sums_check);

}  // namespace csg::serial
