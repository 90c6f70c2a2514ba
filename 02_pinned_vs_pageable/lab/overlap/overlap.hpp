// The overlap experiment, as the overlap and timeline subcommands run it:
// cudaMemcpyAsync on one stream beside a busy kernel on another (async_overlap.hpp
// makes the cases and ratios), its table, its sentences and its JSON:
//   measurements "busy_kernel", "overlap_copy_alone" (per kind and direction),
//   "overlap_together", "overlap_host_blocked" (per kind, direction and order);
//   "overlap": per case, every figure and the ratios; "bounds":
//   <kind>_h2d_async_host_blocked_ms and <kind>_h2d_overlap_ratio (kernel queued first).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "02_pinned_vs_pageable/lab/overlap/async_overlap.hpp"
#include "02_pinned_vs_pageable/options.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "report/device_info.hpp"

namespace csg::copies {

// An overlap ratio above this means the copy and the kernel really ran at the
// same time (1.0 is strictly one after the other; timing noise is ~1%).
inline constexpr double kOverlappedRatio = 1.05;

struct OverlapFigures {
  std::uint64_t bytes = 0;
  int kernel_ms = 0;
  OverlapMeasurements measured;
  ByteChecks checks;  // every kind's buffers after the runs
};

struct OverlapExperiment {
  DeviceInfo device;  // read after the runs: the PCIe link as it is under load
  OverlapFigures figures;
  std::vector<OverlapPicture> pictures;  // with `draw`: overlap_timeline_cases, each recorded once
};

// Allocates, runs every case in interleaved rounds, checks the buffers; with
// `draw`, records the telling cases once more each.
OverlapExperiment run_overlap_experiment(const OverlapOptions& options, bool draw);

// What the overlap and timeline subcommands both do first: their options
// parsed (nothing after --help), the experiment run (drawn for the
// timeline), "<stage> <subcommand> on <device>", what ran, and the table.
struct MeasuredOverlap {
  OverlapOptions options;
  OverlapExperiment experiment;
};
std::optional<MeasuredOverlap> run_and_print_overlap(int argc, char** argv, bool timeline);
// Writes `doc` to --json, if given; the exit code: whether every buffer checked out.
int finish_overlap(const MeasuredOverlap& run, const nlohmann::json& doc);

// "<program> on <device>", and what ran: the kinds, the rounds.
void print_overlap_heading(std::ostream& out, const std::string& program, const OverlapOptions& options,
                           const DeviceInfo& device);
// The table and what it means: the host blocked, the copy beside the kernel, the pipeline's loss.
void print_overlap(std::ostream& out, const OverlapFigures& figures);
// The sentences under it, alone (empty without both pageable H2D cases).
std::string overlap_conclusion(const OverlapFigures& figures);

nlohmann::json overlap_json(const OverlapOptions& options, const DeviceInfo& device, const OverlapFigures& figures,
                            const std::string& subcommand);

}  // namespace csg::copies
