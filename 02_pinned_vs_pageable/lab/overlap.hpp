// What stage 02's overlap and timeline subcommands share (declared in
// lab/overlap/ and lab/timeline/): cudaMemcpyAsync on one stream beside a
// busy kernel on another, from pageable and from pinned memory, each
// direction, the kernel queued first or the copy issued first. A host clock
// around the call says how long it holds the host; events say whether the
// copy ran while the kernel did. The article says pageable async copies give
// no overlap; this shows where that holds (for the host) and where not (the GPU).
//
// Cases: every kind given x {h2d, d2h} x {kernel first, copy first}.
//   kernel first: the kernel is already queued when cudaMemcpyAsync is called.
//   copy first:   cudaMemcpyAsync, then the kernel launch, from one thread,
//                 as a pipeline issues them; if the call blocks the host, the
//                 kernel starts only when it returns.
// Overlap ratio = (kernel alone + copy alone) / together: 1 when nothing
// overlapped, up to (K + C) / max(K, C) when the shorter hid entirely
// under the longer.
// The timeline then records the telling cases (timeline_cases) once more each with CUPTI.
//
// JSON: measurements "busy_kernel", "overlap_copy_alone" (per kind and
// direction), "overlap_together", "overlap_host_blocked" (per kind,
// direction and order); "overlap": per case, every figure and the ratios;
// "bounds": <kind>_h2d_async_host_blocked_ms and <kind>_h2d_overlap_ratio
// (kernel queued first); the timeline's "timeline" and trace file.
#pragma once

#include "02_pinned_vs_pageable/copy_buffers.hpp"
#include "02_pinned_vs_pageable/options.hpp"
#include "02_pinned_vs_pageable/report.hpp"
#include "experiment/lab.hpp"
#include "timeline/cupti_recorder.hpp"

namespace csg::copies::overlap {

// ---- the cases and their bookkeeping ----------------------------------------------

struct Case {
  HostMemory kind = HostMemory::pageable;
  CopyDirection direction = CopyDirection::h2d;
  bool kernel_first = true;
};

// What one run of "together" measured.
struct TogetherRun {
  Millis total{0};                      // common start -> later of kernel end and copy end
  Millis host_blocked{0};               // how long the cudaMemcpyAsync call took on the host
  Millis copy_end_after_kernel_end{0};  // < 0: the copy finished while the kernel still ran
};

struct CaseResult {
  Case c;
  Summary copy_alone;
  Summary host_blocked;
  Summary together;
  Summary copy_end_after_kernel_end;
  double overlap_ratio = 0.0;  // (kernel alone + copy alone) / together, medians
  double ideal_ratio = 0.0;    // (kernel alone + copy alone) / max of the two
};

struct Measurements {
  Summary kernel_alone;
  std::vector<CaseResult> cases;
};

// Every case in interleaved rounds: the kernel alone, each kind and
// direction's copy alone (once, whatever the order), each case together.
Measurements measure_cases(const RepeatPlan& plan, std::span<const HostMemory> kinds,
                           const std::function<Millis()>& kernel_alone,
                           const std::function<Millis(HostMemory, CopyDirection)>& copy_alone,
                           const std::function<TogetherRun(const Case&)>& together);

// The cases worth drawing, of those measured: H2D from pageable memory with
// the kernel queued first and with the copy issued first, and from pinned
// memory issued first. Only kinds in `kinds` (pageable, pinned) are drawn.
std::vector<Case> timeline_cases(const std::vector<HostMemory>& kinds);
// "pageable H2D, kernel then copy"
std::string describe(const Case& c);

struct Picture {
  std::string label;
  RecordedTimeline recorded;
};

// ---- the experiment -----------------------------------------------------------------

struct Config {
  CommonOptions common;
  std::vector<HostMemory> kinds;  // pageable, pinned or both, in that order
  std::uint64_t bytes = 0;        // --overlap-mib
  int kernel_ms = 0;              // --kernel-ms
  bool draw = false;              // the timeline subcommand: record the telling cases once more each
  int timeline_pairs = 1;         // --timeline-batches: copy-and-kernel pairs each drawn case issues
  std::string trace_path{};       // --trace; empty: none
};

struct Figures {
  Measurements measured;
  ByteChecks checks;              // every kind's buffers after the runs
  std::vector<Picture> pictures;  // with `draw`: timeline_cases, each recorded once
};

// --overlap-mib, --kernel-ms; with `timeline`, --timeline-batches and --trace.
void add_options(StageCli& cli, bool timeline);
Config read(const StageCli& cli, const CommonOptions& common, bool timeline);
// Both compare the article's two kinds.
inline constexpr HostMemory kKinds[] = {HostMemory::pageable, HostMemory::pinned};
Needs needs(const Config& config);
Estimate estimate(const Config& config, int device);
// Allocates, runs every case in interleaved rounds, checks the buffers; with
// `draw`, records the telling cases once more each.
Figures measure(const Config& config);

// The pageable H2D cases' verdicts ("overlap.host_blocked", and whether the
// copy queued after the kernel ran beside it, "overlap.copy_beside_kernel":
// "overlapped" above kOverlappedRatio, else "not_overlapped"); nothing
// without both pageable H2D cases.
std::vector<Verdict> verdicts(const Measurements& measured);
// What ran, the table, its verdicts, the checks and the JSON; with pictures,
// each drawn case, "timeline" and the trace file.
void report(const Config& config, const Figures& figures, Report& report);

// The declaration of overlap (false) or timeline (true): its help and its runs.
template <bool timeline>
Experiment<Config, Figures> declared(const char* about, const char* runs) {
  return {.about = about, .runs = runs, .defaults = copy_defaults(kKinds),
          .options = [](StageCli& cli) { add_options(cli, timeline); },
          .read = [](const StageCli& cli, CommonOptions& common) { return read(cli, common, timeline); },
          .needs = needs, .estimate = estimate, .measure = measure, .report = report};
}

}  // namespace csg::copies::overlap
