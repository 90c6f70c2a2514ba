#include <cmath>
#include <sstream>

#include "02_pinned_vs_pageable/lab/overlap/overlap.hpp"
#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/result.hpp"
#include "report/table.hpp"

namespace csg::copies {
namespace {

constexpr const char* kExperiment = "overlap";

std::string order_label(bool kernel_first) { return kernel_first ? "kernel, then copy" : "copy, then kernel"; }

const OverlapResult* find_case(const OverlapMeasurements& o, HostMemory kind, bool kernel_first) {
  for (const OverlapResult& r : o.cases) {
    if (r.c.kind == kind && r.c.direction == CopyDirection::h2d && r.c.kernel_first == kernel_first) return &r;
  }
  return nullptr;
}

}  // namespace

std::string overlap_conclusion(const OverlapFigures& figures) {
  const OverlapResult* pageable_after = find_case(figures.measured, HostMemory::pageable, true);
  const OverlapResult* pageable_before = find_case(figures.measured, HostMemory::pageable, false);
  const OverlapResult* pinned_before = find_case(figures.measured, HostMemory::pinned, false);
  if (!pageable_after || !pageable_before) return "";
  std::ostringstream out;
  const double early = -pageable_after->copy_end_after_kernel_end.median_ms;
  // Overlapped when together took clearly less than kernel + copy one after the other.
  const bool overlapped = pageable_after->overlap_ratio > kOverlappedRatio;
  out << host_blocked_text(pageable_after->host_blocked.median_ms, pageable_after->copy_alone.median_ms) << ' '
      << (overlapped ? "Yet with the kernel already queued, the copy ran beside it:\n"
                     : "Here the copy did not run beside the kernel either:\n")
      << "it ended " << ms_text(std::abs(early)) << " ms " << (early >= 0 ? "before" : "after")
      << " the kernel (overlap " << fixed(pageable_after->overlap_ratio, 2) << "x). ";
  if (overlapped) {
    out << "So the article's \"no overlap from pageable\n"
        << "memory\" is half true. What is lost is the host: while blocked it can't queue more work, so a\n";
  } else {
    out << "On this system the article's \"no overlap from\n"
        << "pageable memory\" holds for the copy too. And while blocked the host can't queue more work, so a\n";
  }
  out << "pipeline issued from one thread (copy, then kernel) gets " << fixed(pageable_before->overlap_ratio, 2) << "x";
  if (pinned_before) {
    out << "; pinned memory returns in " << ms_text(pinned_before->host_blocked.median_ms) << " ms and gets "
        << fixed(pinned_before->overlap_ratio, 2) << "x";
  }
  out << ".\n";
  return out.str();
}

void print_overlap_heading(std::ostream& out, const std::string& program, const OverlapOptions& options,
                           const DeviceInfo& device) {
  out << program << " on " << device.summary() << '\n'
      << kinds_text(options.kinds) << " host memory; median of " << plural(options.common.plan.repeats, "run")
      << " after " << options.common.plan.warmup << " warm-up, in interleaved rounds\n";
}

void print_overlap(std::ostream& out, const OverlapFigures& figures) {
  const OverlapMeasurements& o = figures.measured;
  out << "\ncudaMemcpyAsync of " << format_size(figures.bytes) << " on one stream beside a busy kernel on another "
      << "(kernel alone: " << ms_text(o.kernel_alone.median_ms) << " ms)\n"
      << "   medians; overlap = (kernel alone + copy alone) / together; ideal = that sum / the longer of the two\n";
  Table table({"memory", "copy", "issue order", "host blocked ms", "copy alone ms", "together ms",
               "copy end - kernel end ms", "overlap", "ideal"});
  for (const OverlapResult& r : o.cases) {
    table.add_row({kind_name(r.c.kind), direction_label(r.c.direction), order_label(r.c.kernel_first),
                   ms_text(r.host_blocked.median_ms), ms_text(r.copy_alone.median_ms), ms_text(r.together.median_ms),
                   ms_text(r.copy_end_after_kernel_end.median_ms), fixed(r.overlap_ratio, 2) + "x",
                   fixed(r.ideal_ratio, 2) + "x"});
  }
  table.print(out);
  out << overlap_conclusion(figures);
  out << figures.checks.summary() << (figures.checks.passed() ? " (every kind's buffers after the runs)" : "")
      << '\n';
}

nlohmann::json overlap_json(const OverlapOptions& options, const DeviceInfo& device, const OverlapFigures& figures,
                            const std::string& subcommand) {
  CopyResult copy(device, {
                               {"host_memory", kinds_json(options.kinds)},
                               {"warmup", options.common.plan.warmup},
                               {"repeats", options.common.plan.repeats},
                               {"seed", options.common.seed},
                               {"overlap_bytes", options.bytes},
                               {"kernel_ms", options.kernel_ms},
                           });
  StageResult& result = copy.result;
  const OverlapMeasurements& o = figures.measured;
  nlohmann::json overlap = nlohmann::json::array();
  copy.add({"busy_kernel", {{"requested_ms", figures.kernel_ms}}, o.kernel_alone, Work{}, false}, false);
  for (const OverlapResult& r : o.cases) {
    const bool ok = figures.checks.verified(kExperiment, figures.bytes, r.c.kind);
    const nlohmann::json params_of_copy = {{"host_memory", kind_name(r.c.kind)},
                                           {"direction", std::string(to_string(r.c.direction))},
                                           {"bytes", figures.bytes}};
    nlohmann::json params = params_of_copy;
    params["order"] = r.c.kernel_first ? "kernel_first" : "copy_first";
    const Work moved{static_cast<double>(figures.bytes), 0.0};
    if (r.c.kernel_first) copy.add({"overlap_copy_alone", params_of_copy, r.copy_alone, moved, ok}, true);
    copy.add({"overlap_together", params, r.together, Work{}, ok}, true);
    copy.add({"overlap_host_blocked", params, r.host_blocked, Work{}, ok}, true);
    // When the copy ended relative to the kernel is a signed difference, not
    // a duration: it goes in the "overlap" rows, not in measurements.
    nlohmann::json row = params;
    row.update({{"kernel_alone_ms", o.kernel_alone.median_ms},
                {"copy_alone_ms", r.copy_alone.median_ms},
                {"together_ms", r.together.median_ms},
                {"host_blocked_ms", r.host_blocked.median_ms},
                {"copy_end_after_kernel_end_ms", r.copy_end_after_kernel_end.median_ms},
                {"overlap_ratio", r.overlap_ratio},
                {"ideal_ratio", r.ideal_ratio}});
    overlap.push_back(row);
    if (r.c.direction == CopyDirection::h2d && r.c.kernel_first) {
      result.bounds[key_name(r.c.kind) + "_h2d_async_host_blocked_ms"] = r.host_blocked.median_ms;
      result.bounds[key_name(r.c.kind) + "_h2d_overlap_ratio"] = r.overlap_ratio;
    }
  }
  copy.verify_with(figures.checks);
  nlohmann::json doc = to_json(copy, subcommand);
  doc["overlap"] = overlap;
  return doc;
}

}  // namespace csg::copies
