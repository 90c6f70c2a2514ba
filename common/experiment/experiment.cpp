#include "experiment/experiment.hpp"

#include <algorithm>
#include <iostream>

#include "base/progress.hpp"
#include "measure/estimate.hpp"
#include "report/device_info.hpp"

namespace csg::runner {

std::optional<CommonOptions> parse(StageCli& cli, int argc, char** argv) {
  return cli.parse_or_help(argc, argv);  // every argument checked before any CUDA call
}

void check_host(const Needs& needs) { check_host_fits(needs.memory, needs.smaller); }

int choose_device() { return require_device(); }

void check_device(const Needs& needs) { check_fits(needs.memory, needs.smaller); }

void check_time(const Estimate& estimate, const CommonOptions& common) {
  check_estimate(estimate.seconds, common.max_minutes, estimate.what);
  progress(estimate.what);
}

Report start_report(const char* stage, const std::string& name, int device) {
  return Report(stage, name, query_device_info(device));
}

std::string one_paragraph(std::string_view text) {
  std::string paragraph(text);
  std::replace(paragraph.begin(), paragraph.end(), '\n', ' ');
  return paragraph;
}

int finish(const Report& report, const CommonOptions& common) { return report.finish(std::cout, common.json_path); }

}  // namespace csg::runner
