// Stage 01's laboratory: the serial run beyond the article, one subcommand
// each, listed in laboratory.cpp (the stage's --help prints that list).
//   kernels    the serial run and its stage sums with a faster kernel (tiled, cuBLAS)
//   timeline   one more serial run recorded with CUPTI and drawn
#pragma once

#include <string>

#include "cli/options.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::serial {

int run_kernels(int argc, char** argv);   // kernels.cpp
int run_timeline(int argc, char** argv);  // timeline.cpp

// What both run: the serial loop with the kernel `options.gemm` picks, timed
// with its three stage sums in interleaved rounds; with `timeline.record`,
// one more run recorded and drawn. Prints the report, writes the JSON
// (with "subcommand": `subcommand`) and returns the exit code.
int run_serial_experiment(const std::string& subcommand, const CommonOptions& options,
                          const TimelineOptions& timeline);

}  // namespace csg::serial
