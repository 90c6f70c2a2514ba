// 02_pinned_vs_pageable timeline: the overlap experiment, then its telling
// cases once more each, recorded with CUPTI and drawn: a pageable H2D with
// the kernel queued first runs beside it; issued first, it holds the host and
// the kernel starts only after it; a pinned H2D issued first does neither.
#include <iostream>

#include "02_pinned_vs_pageable/lab/laboratory.hpp"
#include "02_pinned_vs_pageable/lab/overlap/overlap.hpp"

namespace csg::copies {
namespace {

// "timeline": one entry per drawn case, every operation recorded in all of
// them ("ops": the trace file's slices), and the trace file.
nlohmann::json pictures_json(const std::vector<OverlapPicture>& pictures, int pairs, const std::string& trace_path) {
  nlohmann::json cases = nlohmann::json::array();
  bool traced = false;  // report_overlap_timelines writes the trace only with something recorded
  std::size_t ops = 0;
  for (const OverlapPicture& p : pictures) {
    if (p.recorded.available) ops += p.recorded.timeline.ops.size();
    traced = traced || (p.recorded.available && !p.recorded.timeline.ops.empty());
    nlohmann::json entry = {{"case", p.label}, {"recorded", p.recorded.available}};
    if (p.recorded.available) {
      entry["source"] = p.recorded.source;
      entry["ops"] = p.recorded.timeline.ops.size();
      entry["rows"] = p.recorded.timeline.row_names;
    } else {
      entry["unavailable_reason"] = p.recorded.unavailable_reason;
    }
    cases.push_back(entry);
  }
  return {{"cases", cases},
          {"ops", ops},
          {"batches_per_case", pairs},
          {"trace_file", trace_path.empty() || !traced ? nlohmann::json(nullptr) : nlohmann::json(trace_path)}};
}

}  // namespace

int run_timeline(int argc, char** argv) {
  const std::optional<MeasuredOverlap> run = run_and_print_overlap(argc, argv, true);
  if (!run) return kExitOk;
  report_overlap_timelines(std::cout, run->experiment.pictures, run->options.trace_path);
  nlohmann::json doc = overlap_json(run->options, run->experiment.device, run->experiment.figures, "timeline");
  doc["timeline"] = pictures_json(run->experiment.pictures, run->options.timeline_pairs, run->options.trace_path);
  return finish_overlap(*run, doc);
}

}  // namespace csg::copies
