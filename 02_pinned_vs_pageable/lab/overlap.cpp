#include "02_pinned_vs_pageable/lab/overlap.hpp"

#include "timeline/timeline.hpp"
#include "workload/spin.hpp"

namespace csg::copies::overlap {
namespace {

constexpr CopyDirection kDirections[] = {CopyDirection::h2d, CopyDirection::d2h};
constexpr long long kDefaultOverlapMiB = 64;  // 64 MiB pageable H2D held the host 8.3 ms on the H200
constexpr long long kMaxOverlapMiB = 16384;
constexpr long long kDefaultKernelMs = 10;  // longer than that 8.3 ms, so the copy fits inside the kernel
constexpr long long kMaxKernelMs = 10000;
// A drawn case's batches: enough to see a pipeline issued from one thread settle.
constexpr long long kMaxTimelinePairs = 1000;
// Gap between two cases laid one after another in the trace file.
constexpr double kTraceGapUs = 1000.0;
// The one check of the experiment, per kind.
constexpr const char* kCheck = "overlap";

// measure_interleaved runs every variant `warmup` times before the timed
// rounds; side samples collected in every run drop those first ones.
Summary summarize_timed(std::vector<Millis> all_runs, int warmup) {
  all_runs.erase(all_runs.begin(), all_runs.begin() + std::min<std::ptrdiff_t>(warmup, std::ssize(all_runs)));
  return summarize(std::move(all_runs));
}

std::vector<Case> cases_of(std::span<const HostMemory> kinds) {
  std::vector<Case> cases;
  for (const CopyDirection direction : kDirections) {
    for (const bool kernel_first : {true, false}) {
      for (const HostMemory kind : kinds) cases.push_back({kind, direction, kernel_first});
    }
  }
  return cases;
}

const CaseResult* find_h2d(const Measurements& m, HostMemory kind, bool kernel_first) {
  for (const CaseResult& r : m.cases) {
    if (r.c.kind == kind && r.c.direction == CopyDirection::h2d && r.c.kernel_first == kernel_first) return &r;
  }
  return nullptr;
}

// Records `run` once with CUPTI: row 0 is `kernel_stream`, row 1 `copy_stream`;
// `run` issues the case's kernel and copy `pairs` times, one pair after another.
// When CUPTI can't start, the picture is not recorded and says why.
Picture record_case(const Case& c, cudaStream_t kernel_stream, cudaStream_t copy_stream, int pairs,
                    const std::function<void()>& run) {
  // Two rows, one op per pair each: as a "pool" of 2 with 2 "batches" per
  // pair, the kernels are the even batches on row 0 and the copies the odd
  // ones on row 1; the batch numbers mean nothing here, so they are cleared
  // after labelling.
  Picture result{describe(c), record_timeline({.streams = {kernel_stream, copy_stream},
                                               .row_names = {"kernel stream", "copy stream"},
                                               .batches = 2 * pairs,
                                               .pool = 2,
                                               .flops_per_kernel = 0.0},
                                              run)};
  for (TimelineOp& op : result.recorded.timeline.ops) op.batch = -1;
  return result;
}

}  // namespace

// ---- the cases ------------------------------------------------------------------------

Measurements measure_cases(const RepeatPlan& plan, std::span<const HostMemory> kinds,
                           const std::function<Millis()>& kernel_alone,
                           const std::function<Millis(HostMemory, CopyDirection)>& copy_alone,
                           const std::function<TogetherRun(const Case&)>& together) {
  const std::vector<Case> cases = cases_of(kinds);
  std::vector<TimedVariant> variants;
  variants.push_back({.prepare = nullptr, .run = kernel_alone, .after_last = nullptr});
  // Each kind and direction is timed alone once, whatever the order of the case.
  for (const CopyDirection direction : kDirections) {
    for (const HostMemory kind : kinds) {
      auto run = [&, kind, direction] { return copy_alone(kind, direction); };
      variants.push_back({.prepare = nullptr, .run = run, .after_last = nullptr});
    }
  }
  const std::size_t alone = variants.size() - 1;
  std::vector<std::vector<Millis>> host_blocked(cases.size());
  std::vector<std::vector<Millis>> copy_after_kernel(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    variants.push_back({.prepare = nullptr,
                        .run =
                            [&, i] {
                              const TogetherRun run = together(cases[i]);
                              host_blocked[i].push_back(run.host_blocked);
                              copy_after_kernel[i].push_back(run.copy_end_after_kernel_end);
                              return run.total;
                            },
                        .after_last = nullptr});
  }
  const std::vector<Summary> summaries = measure_interleaved(plan, variants);

  Measurements result;
  result.kernel_alone = summaries[0];
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CaseResult r;
    r.c = cases[i];
    // cases_of's order is direction, issue order, kind; the copies alone's direction, kind.
    r.copy_alone = summaries[1 + i / (2 * kinds.size()) * kinds.size() + i % kinds.size()];
    r.together = summaries[1 + alone + i];
    r.host_blocked = summarize_timed(std::move(host_blocked[i]), plan.warmup);
    r.copy_end_after_kernel_end = summarize_timed(std::move(copy_after_kernel[i]), plan.warmup);
    const double kernel = result.kernel_alone.median_ms;
    r.overlap_ratio = overlap_ratio(kernel, r.copy_alone.median_ms, r.together.median_ms);
    r.ideal_ratio = overlap_ratio(kernel, r.copy_alone.median_ms, std::max(kernel, r.copy_alone.median_ms));
    result.cases.push_back(std::move(r));
  }
  return result;
}

std::vector<Case> timeline_cases(const std::vector<HostMemory>& kinds) {
  auto has = [&](HostMemory kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
  std::vector<Case> cases;
  if (has(HostMemory::pageable)) {
    cases.push_back({HostMemory::pageable, CopyDirection::h2d, true});
    cases.push_back({HostMemory::pageable, CopyDirection::h2d, false});
  }
  if (has(HostMemory::pinned)) cases.push_back({HostMemory::pinned, CopyDirection::h2d, false});
  return cases;
}

std::string describe(const Case& c) {
  return kind_name(c.kind) + (c.direction == CopyDirection::h2d ? " H2D, " : " D2H, ") +
         (c.kernel_first ? "kernel then copy" : "copy then kernel");
}

// ---- the experiment ---------------------------------------------------------------------

void add_options(StageCli& cli, bool timeline) {
  cli.add_int("overlap-mib", "Size of the copy, MiB", kDefaultOverlapMiB, 1, kMaxOverlapMiB);
  cli.add_int("kernel-ms", "How long the busy kernel runs, ms", kDefaultKernelMs, 1, kMaxKernelMs);
  if (!timeline) return;
  cli.add_int("timeline-batches",
              "Batches each drawn case issues, a batch being its copy and its kernel, one batch after another "
              "from one thread as a pipeline would (1: the case as measured)",
              1, 1, kMaxTimelinePairs);
  cli.add_output("trace", "Also write the recorded cases as Chrome trace-event JSON (https://ui.perfetto.dev)");
}

Config read(const StageCli& cli, const CommonOptions& common, bool timeline) {
  return {.common = common,
          .kinds = common.host_memories,
          .bytes = static_cast<std::uint64_t>(cli.get_int("overlap-mib")) * kMiB,
          .kernel_ms = static_cast<int>(cli.get_int("kernel-ms")),
          .draw = timeline,
          .timeline_pairs = timeline ? static_cast<int>(cli.get_int("timeline-batches")) : 1,
          .trace_path = timeline ? cli.get_string("trace") : ""};
}

Needs needs(const Config& config) { return {CopySet::needs(config.bytes, config.kinds), "choose a smaller --overlap-mib"}; }

Estimate estimate(const Config& config, int /*device*/) {
  const Rates rates = measure_copy_rates();
  // Each case runs the kernel and the copy, at worst one after the other.
  const double one_case = config.kernel_ms * 1e-3 + seconds_at(double(config.bytes), rates.pageable_bytes_per_s);
  const double cases = 4.0 * double(config.kinds.size());  // each kind x 2 directions x 2 orders
  const int rounds = config.common.plan.warmup + config.common.plan.repeats;
  return {rounds * (cases + 1.0) * one_case + (config.draw ? 3.0 * config.timeline_pairs * one_case : 0.0),
          "the overlap of " + format_size(config.bytes) + " copies"};
}

Figures measure(const Config& config) {
  const std::uint64_t bytes = config.bytes;
  progress("overlap: " + format_size(bytes) + " copies beside a " + std::to_string(config.kernel_ms) + " ms kernel");
  CopySet set(bytes, config.kinds, config.common.seed, allocate_host);
  Stream kernel_stream(cudaStreamNonBlocking);  // non-blocking: no implicit sync with stream 0
  Stream copy_stream(cudaStreamNonBlocking);
  EventTimer timer;
  const std::chrono::milliseconds kernel_time(config.kernel_ms);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int blocks = 0;  // one block per SM: the whole GPU is busy
  CUDA_CHECK(cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, device));

  auto copy = [&](HostMemory kind, CopyDirection direction, cudaStream_t stream) {
    if (direction == CopyDirection::h2d) {
      CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(kind), bytes, cudaMemcpyHostToDevice, stream));
    } else {
      CUDA_CHECK(cudaMemcpyAsync(set.host_dst(kind), set.device_out(), bytes, cudaMemcpyDeviceToHost, stream));
    }
  };
  auto kernel_alone = [&] {
    timer.start(kernel_stream.get());
    launch_spin(kernel_time, blocks, kernel_stream.get());
    return timer.stop();
  };
  auto copy_alone = [&](HostMemory kind, CopyDirection direction) {
    timer.start(copy_stream.get());
    copy(kind, direction, copy_stream.get());
    return timer.stop();
  };
  // Both: how long does the cudaMemcpyAsync call hold the host (a host clock
  // around the call alone), and does the copy run while the kernel does?
  auto together = [&](const Case& c) {
    timer.start(kernel_stream.get(), {copy_stream.get()});
    if (c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
    const HostTimer call;
    copy(c.kind, c.direction, copy_stream.get());
    const Millis host_blocked = call.elapsed();
    if (!c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
    const Millis total = timer.stop();
    return TogetherRun{total, host_blocked, timer.end_of(1) - timer.end_of(0)};
  };
  Figures figures;
  figures.measured = measure_cases(config.common.plan, config.kinds, kernel_alone, copy_alone, together);
  if (config.draw) {  // the telling cases once more, untimed, recorded with CUPTI: each its pairs in a row
    for (const Case& c : timeline_cases(config.kinds)) {
      auto pairs = [&] {
        for (int pair = 0; pair < config.timeline_pairs; ++pair) {
          if (c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
          copy(c.kind, c.direction, copy_stream.get());
          if (!c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
        }
        CUDA_CHECK(cudaStreamSynchronize(kernel_stream.get()));
        CUDA_CHECK(cudaStreamSynchronize(copy_stream.get()));
      };
      figures.pictures.push_back(
          record_case(c, kernel_stream.get(), copy_stream.get(), config.timeline_pairs, pairs));
    }
  }
  for (const HostMemory kind : config.kinds) figures.checks.add(kCheck, bytes, kind, set.verify(kind, copy_stream.get()));
  return figures;
}

// ---- the report --------------------------------------------------------------------------

std::vector<Verdict> verdicts(const Measurements& measured) {
  const CaseResult* after = find_h2d(measured, HostMemory::pageable, true);
  const CaseResult* before = find_h2d(measured, HostMemory::pageable, false);
  const CaseResult* pinned = find_h2d(measured, HostMemory::pinned, false);
  if (!after || !before) return {};
  const double early = -after->copy_end_after_kernel_end.median_ms;
  // Overlapped when together took clearly less than kernel + copy one after the other.
  const bool overlapped = after->overlap_ratio > kOverlappedRatio;
  std::string text = overlapped ? "Yet with the kernel already queued, the copy ran beside it:\n"
                                : "Here the copy did not run beside the kernel either:\n";
  text += "it ended " + ms_text(std::abs(early)) + " ms " + (early >= 0 ? "before" : "after") + " the kernel (overlap " +
          fixed(after->overlap_ratio, 2) + "x). ";
  text += overlapped ? "So the article's \"no overlap from pageable\nmemory\" is half true. What is lost is the host: "
                       "while blocked it can't queue more work, so a\n"
                     : "On this system the article's \"no overlap from\npageable memory\" holds for the copy too. And "
                       "while blocked the host can't queue more work, so a\n";
  text += "pipeline issued from one thread (copy, then kernel) gets " + fixed(before->overlap_ratio, 2) + "x";
  Verdict beside{.id = "overlap.copy_beside_kernel",
                 .outcome = overlapped ? "overlapped" : "not_overlapped",
                 .figures = {{"overlap_ratio", after->overlap_ratio},
                             {"copy_end_after_kernel_end_ms", after->copy_end_after_kernel_end.median_ms},
                             {"copy_first_overlap_ratio", before->overlap_ratio}},
                 .threshold = kOverlappedRatio - 1.0};
  if (pinned) {
    text += "; pinned memory returns in " + ms_text(pinned->host_blocked.median_ms) + " ms and gets " +
            fixed(pinned->overlap_ratio, 2) + "x";
    beside.figures["pinned_host_blocked_ms"] = pinned->host_blocked.median_ms;
    beside.figures["pinned_copy_first_overlap_ratio"] = pinned->overlap_ratio;
  }
  beside.sentence = text + ".";
  return {host_blocked_verdict(after->host_blocked.median_ms, after->copy_alone.median_ms), std::move(beside)};
}

namespace {

void fill_result(Report& report, const Config& config, const Figures& f) {
  StageResult& result = report.result;
  result.config = {{"host_memory", kinds_json(config.kinds)}, {"warmup", config.common.plan.warmup},
                   {"repeats", config.common.plan.repeats},   {"seed", config.common.seed},
                   {"overlap_bytes", config.bytes},           {"kernel_ms", config.kernel_ms}};
  const Measurements& o = f.measured;
  result.measurements.push_back({.name = "busy_kernel", .params = {{"requested_ms", config.kernel_ms}},
                                 .stats = o.kernel_alone, .work = {}, .verifiable = false});
  nlohmann::json rows = nlohmann::json::array();
  for (const CaseResult& r : o.cases) {
    const bool ok = f.checks.verified(kCheck, config.bytes, r.c.kind);
    const nlohmann::json params_of_copy = {{"host_memory", kind_name(r.c.kind)},
                                           {"direction", std::string(to_string(r.c.direction))},
                                           {"bytes", config.bytes}};
    nlohmann::json params = params_of_copy;
    params["order"] = r.c.kernel_first ? "kernel_first" : "copy_first";
    if (r.c.kernel_first) {
      result.measurements.push_back(
          {"overlap_copy_alone", params_of_copy, r.copy_alone, Work{static_cast<double>(config.bytes), 0.0}, ok});
    }
    result.measurements.push_back({"overlap_together", params, r.together, Work{}, ok});
    result.measurements.push_back({"overlap_host_blocked", params, r.host_blocked, Work{}, ok});
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
    rows.push_back(row);
    if (r.c.direction == CopyDirection::h2d && r.c.kernel_first) {
      result.bounds[key_name(r.c.kind) + "_h2d_async_host_blocked_ms"] = r.host_blocked.median_ms;
      result.bounds[key_name(r.c.kind) + "_h2d_overlap_ratio"] = r.overlap_ratio;
    }
  }
  verify_with(result, f.checks);
  report.sections["overlap"] = rows;
}

// One picture per case, with its overlap figures; with a trace path, every
// case in one Chrome trace, one after another in time, two tracks per case.
void add_pictures(Report& report, const Config& config, const std::vector<Picture>& pictures) {
  Timeline all;  // every case, one after another, for the trace
  double offset_us = 0.0;
  nlohmann::json cases = nlohmann::json::array();
  for (const Picture& p : pictures) {
    report.out() << '\n' << p.label << ':';
    report_timeline(report.out(), p.recorded, 0, "", "");
    cases.push_back({{"case", p.label}, {"recorded", p.recorded.available}});
    if (!p.recorded.available) {
      cases.back()["unavailable_reason"] = p.recorded.unavailable_reason;
      continue;
    }
    const Timeline& drawn = p.recorded.timeline;
    cases.back().update({{"source", p.recorded.source}, {"ops", drawn.ops.size()}, {"rows", drawn.row_names}});
    const int first_row = static_cast<int>(all.row_names.size());
    for (const std::string& row : drawn.row_names) all.row_names.push_back(p.label + ": " + row);
    double end_us = 0.0;
    for (TimelineOp op : drawn.ops) {
      op.row += first_row;
      op.start_us += offset_us;
      op.end_us += offset_us;
      end_us = std::max(end_us, op.end_us);
      all.ops.push_back(op);
    }
    offset_us = end_us + kTraceGapUs;
  }
  const bool traced = !config.trace_path.empty() && !all.ops.empty();
  if (traced) {
    report.file(config.trace_path, to_chrome_trace(all, "02_pinned_vs_pageable overlap").dump(2) + "\n");
    report.out() << "trace (" << plural(std::ssize(all.ops), "operation") << ", "
                 << plural(std::ssize(pictures), "case") << ") written to " << config.trace_path
                 << ": open it in https://ui.perfetto.dev\n";
  }
  // "timeline": one entry per drawn case, every operation recorded in all of them ("ops": the trace file's slices).
  report.sections["timeline"] = {{"cases", cases},
                                 {"ops", all.ops.size()},
                                 {"batches_per_case", config.timeline_pairs},
                                 {"trace_file", traced ? nlohmann::json(config.trace_path) : nlohmann::json(nullptr)}};
}

}  // namespace

void report(const Config& config, const Figures& figures, Report& report) {
  fill_result(report, config, figures);
  report.checked_runs("(every kind's buffers after the runs)");
  std::ostream& out = report.out();
  out << kinds_text(config.kinds) << " host memory; median of " << plural(config.common.plan.repeats, "run")
      << " after " << config.common.plan.warmup << " warm-up, in interleaved rounds\n";
  if (config.draw) {
    out << "then the telling cases once more each, recorded with CUPTI"
        << (config.timeline_pairs > 1 ? ", " + plural(config.timeline_pairs, "batch") + " of a copy and a kernel each"
                                      : "")
        << '\n';
  }
  const Measurements& o = figures.measured;
  out << "\ncudaMemcpyAsync of " << format_size(config.bytes) << " on one stream beside a busy kernel on another "
      << "(kernel alone: " << ms_text(o.kernel_alone.median_ms) << " ms)\n"
      << "   medians; overlap = (kernel alone + copy alone) / together; ideal = that sum / the longer of the two\n";
  report.table(table_of<CaseResult>(
      {{"memory", [](const CaseResult& r) { return kind_name(r.c.kind); }},
       {"copy", [](const CaseResult& r) { return direction_label(r.c.direction); }},
       {"issue order",
        [](const CaseResult& r) { return r.c.kernel_first ? "kernel, then copy" : "copy, then kernel"; }},
       {"host blocked ms", [](const CaseResult& r) { return ms_text(r.host_blocked.median_ms); }},
       {"copy alone ms", [](const CaseResult& r) { return ms_text(r.copy_alone.median_ms); }},
       {"together ms", [](const CaseResult& r) { return ms_text(r.together.median_ms); }},
       {"copy end - kernel end ms", [](const CaseResult& r) { return ms_text(r.copy_end_after_kernel_end.median_ms); }},
       {"overlap", [](const CaseResult& r) { return fixed(r.overlap_ratio, 2) + "x"; }},
       {"ideal", [](const CaseResult& r) { return fixed(r.ideal_ratio, 2) + "x"; }}},
      o.cases));
  for (Verdict& verdict : verdicts(o)) report.verdict(std::move(verdict));
  if (config.draw) add_pictures(report, config, figures.pictures);
}

}  // namespace csg::copies::overlap
