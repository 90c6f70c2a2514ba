#include "02_pinned_vs_pageable/lab/overlap/async_overlap.hpp"

#include <algorithm>

#include "base/text.hpp"
#include "timeline/timeline.hpp"

namespace csg::copies {
namespace {

constexpr CopyDirection kOverlapDirections[] = {CopyDirection::h2d, CopyDirection::d2h};

// measure_interleaved runs every variant `warmup` times before the timed
// rounds; side samples collected in every run drop those first ones.
Summary summarize_timed(std::vector<Millis> all_runs, int warmup) {
  all_runs.erase(all_runs.begin(), all_runs.begin() + std::min<std::ptrdiff_t>(warmup, std::ssize(all_runs)));
  return summarize(std::move(all_runs));
}

}  // namespace

std::vector<OverlapCase> overlap_cases(std::span<const HostMemory> kinds) {
  std::vector<OverlapCase> cases;
  for (CopyDirection direction : kOverlapDirections) {
    for (bool kernel_first : {true, false}) {
      for (HostMemory kind : kinds) cases.push_back({kind, direction, kernel_first});
    }
  }
  return cases;
}

OverlapMeasurements measure_overlap(const RepeatPlan& plan, std::span<const HostMemory> kinds,
                                    const std::function<Millis()>& kernel_alone,
                                    const std::function<Millis(HostMemory, CopyDirection)>& copy_alone,
                                    const std::function<OverlapRun(const OverlapCase&)>& together) {
  const std::vector<OverlapCase> cases = overlap_cases(kinds);
  // Each kind and direction is timed alone once, whatever the order of the case.
  std::vector<OverlapCase> alone;
  std::vector<std::size_t> alone_of_case;
  for (const OverlapCase& c : cases) {
    auto same = [&](const OverlapCase& a) { return a.kind == c.kind && a.direction == c.direction; };
    auto found = std::find_if(alone.begin(), alone.end(), same);
    if (found == alone.end()) found = alone.insert(alone.end(), c);
    alone_of_case.push_back(static_cast<std::size_t>(found - alone.begin()));
  }
  std::vector<TimedVariant> variants;
  variants.push_back({.prepare = nullptr, .run = kernel_alone, .after_last = nullptr});
  for (const OverlapCase& a : alone) {
    variants.push_back({.prepare = nullptr, .run = [&, a] { return copy_alone(a.kind, a.direction); },
                        .after_last = nullptr});
  }
  std::vector<std::vector<Millis>> host_blocked(cases.size());
  std::vector<std::vector<Millis>> copy_after_kernel(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    variants.push_back({.prepare = nullptr,
                        .run =
                            [&, i] {
                              const OverlapRun run = together(cases[i]);
                              host_blocked[i].push_back(run.host_blocked);
                              copy_after_kernel[i].push_back(run.copy_end_after_kernel_end);
                              return run.total;
                            },
                        .after_last = nullptr});
  }
  const std::vector<Summary> summaries = measure_interleaved(plan, variants);

  OverlapMeasurements result;
  result.kernel_alone = summaries[0];
  for (std::size_t i = 0; i < cases.size(); ++i) {
    OverlapResult r;
    r.c = cases[i];
    r.copy_alone = summaries[1 + alone_of_case[i]];
    r.together = summaries[1 + alone.size() + i];
    r.host_blocked = summarize_timed(std::move(host_blocked[i]), plan.warmup);
    r.copy_end_after_kernel_end = summarize_timed(std::move(copy_after_kernel[i]), plan.warmup);
    const double alone_sum = result.kernel_alone.median_ms + r.copy_alone.median_ms;
    r.overlap_ratio = r.together.median_ms > 0.0 ? alone_sum / r.together.median_ms : 0.0;
    const double longest = std::max(result.kernel_alone.median_ms, r.copy_alone.median_ms);
    r.ideal_ratio = longest > 0.0 ? alone_sum / longest : 0.0;
    result.cases.push_back(std::move(r));
  }
  return result;
}

}  // namespace csg::copies

namespace csg::copies {
namespace {

// Gap between two cases laid one after another in the trace file.
constexpr double kTraceGapUs = 1000.0;

}  // namespace

std::vector<OverlapCase> overlap_timeline_cases(const std::vector<HostMemory>& kinds) {
  auto has = [&](HostMemory kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
  std::vector<OverlapCase> cases;
  if (has(HostMemory::pageable)) {
    cases.push_back({HostMemory::pageable, CopyDirection::h2d, true});
    cases.push_back({HostMemory::pageable, CopyDirection::h2d, false});
  }
  if (has(HostMemory::pinned)) cases.push_back({HostMemory::pinned, CopyDirection::h2d, false});
  return cases;
}

std::string describe(const OverlapCase& c) {
  return std::string(to_string(c.kind)) + (c.direction == CopyDirection::h2d ? " H2D, " : " D2H, ") +
         (c.kernel_first ? "kernel then copy" : "copy then kernel");
}

OverlapPicture record_overlap_timeline(const OverlapCase& c, cudaStream_t kernel_stream, cudaStream_t copy_stream, int pairs,
                                        const std::function<void()>& run) {
  // Two rows, one op per pair each: as a "pool" of 2 with 2 "batches" per
  // pair, the kernels are the even batches on row 0 and the copies the odd
  // ones on row 1; the batch numbers mean nothing here, so they are cleared
  // after labelling.
  OverlapPicture result{describe(c), record_timeline({.streams = {kernel_stream, copy_stream},
                                                       .row_names = {"kernel stream", "copy stream"},
                                                       .batches = 2 * pairs,
                                                       .pool = 2,
                                                       .flops_per_kernel = 0.0},
                                                      run)};
  for (TimelineOp& op : result.recorded.timeline.ops) op.batch = -1;
  return result;
}

void report_overlap_timelines(std::ostream& out, const std::vector<OverlapPicture>& timelines,
                              const std::string& trace_path) {
  Timeline all;  // every case, one after another, for the trace
  double offset_us = 0.0;
  for (const OverlapPicture& t : timelines) {
    out << '\n' << t.label << ':';
    report_timeline(out, t.recorded, 0, "", "");
    if (!t.recorded.available) continue;
    const int first_row = static_cast<int>(all.row_names.size());
    for (const std::string& row : t.recorded.timeline.row_names) all.row_names.push_back(t.label + ": " + row);
    double end_us = 0.0;
    for (TimelineOp op : t.recorded.timeline.ops) {
      op.row += first_row;
      op.start_us += offset_us;
      op.end_us += offset_us;
      end_us = std::max(end_us, op.end_us);
      all.ops.push_back(op);
    }
    offset_us = end_us + kTraceGapUs;
  }
  if (!trace_path.empty() && !all.ops.empty()) {
    write_chrome_trace(trace_path, all, "02_pinned_vs_pageable overlap");
    out << "trace (" << plural(std::ssize(all.ops), "operation") << ", " << plural(std::ssize(timelines), "case")
        << ") written to " << trace_path
        << ": open it in https://ui.perfetto.dev\n";
  }
}

}  // namespace csg::copies
