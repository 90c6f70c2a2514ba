// What stage 01's two subcommands share: the lesson's serial loop
// (cudaMemcpy H2D, the GEMM, cudaMemcpy D2H per batch on the legacy default
// stream) with the kernel Gemm picks, timed with its three stage sums in
// interleaved rounds; with a timeline, one more run recorded with CUPTI.
// kernels (lab/kernels/) and timeline (lab/timeline/) declare which flags
// they offer; the measurement and the report are these.
#pragma once

#include <optional>

#include "experiment/experiment.hpp"
#include "measure/stage_sums.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::serial {

struct Config {
  CommonOptions common;
  TimelineOptions timeline;  // record: the timeline subcommand
};

struct Figures {
  Summary total;                     // the serial run
  StageSums sums;                    // every batch's op of one kind alone
  VerifyResult serial_check;         // every batch the serial run computed
  VerifyResult sums_check;           // every batch the sums computed and copied back
  std::optional<StageTimeline> timeline;
};

Needs needs(const Config& config);
Estimate estimate(const Config& config, int device);
Figures measure(const Config& config);
// The serial report (report.hpp), and the timeline's when one was recorded.
void report(const Config& config, const Figures& figures, Report& report);

}  // namespace csg::serial
