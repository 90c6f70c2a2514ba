#include "experiment/experiment.hpp"

#include <algorithm>
#include <iostream>

#include "base/progress.hpp"
#include "measure/estimate.hpp"

namespace csg::runner {

void check_time(const Estimate& estimate, const CommonOptions& common) {
  check_estimate(estimate.seconds, common.max_minutes, estimate.what);
  progress(estimate.what);
}

std::string one_paragraph(std::string_view text) {
  std::string paragraph(text);
  std::replace(paragraph.begin(), paragraph.end(), '\n', ' ');
  return paragraph;
}

int finish(const Report& report, const CommonOptions& common) { return report.finish(std::cout, common.json_path); }

}  // namespace csg::runner
