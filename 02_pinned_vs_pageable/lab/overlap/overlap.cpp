// 02_pinned_vs_pageable overlap: cudaMemcpyAsync on one stream beside a busy
// kernel on another, from pageable and from pinned memory, each direction,
// the kernel queued first or the copy issued first. A host clock around the
// call says how long it holds the host; events say whether the copy ran
// while the kernel did. The article says pageable async copies give no
// overlap; this shows where that holds (for the host) and where not (the GPU).
#include <chrono>
#include <iostream>

#include "base/progress.hpp"
#include "base/text.hpp"
#include "02_pinned_vs_pageable/lab/laboratory.hpp"
#include "02_pinned_vs_pageable/lesson.hpp"
#include "measure/timers.hpp"
#include "02_pinned_vs_pageable/lab/overlap/overlap.hpp"
#include "workload/spin.hpp"

namespace csg::copies {

OverlapExperiment run_overlap_experiment(const OverlapOptions& options, bool draw) {
  const RepeatPlan& plan = options.common.plan;
  check_host_fits(memory_needs(options), "choose a smaller --overlap-mib");  // before any CUDA call
  const int device = require_device();
  check_fits(memory_needs(options), "choose a smaller --overlap-mib");
  check_estimate(estimate_seconds(options, measure_copy_rates(), draw), options.common.max_minutes,
                 "the overlap of " + format_size(options.bytes) + " copies");
  OverlapExperiment experiment;
  OverlapFigures& figures = experiment.figures;
  figures.bytes = options.bytes;
  figures.kernel_ms = options.kernel_ms;
  const std::uint64_t bytes = options.bytes;
  progress("overlap: " + format_size(bytes) + " copies beside a " + std::to_string(options.kernel_ms) + " ms kernel");
  CopySet set(bytes, options.kinds, options.common.seed, allocate_host);
  Stream kernel_stream(cudaStreamNonBlocking);  // non-blocking: no implicit sync with stream 0
  Stream copy_stream(cudaStreamNonBlocking);
  EventTimer timer;
  const std::chrono::milliseconds kernel_time(options.kernel_ms);
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
  auto together = [&](const OverlapCase& c) {
    timer.start(kernel_stream.get(), {copy_stream.get()});
    if (c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
    const HostTimer call;
    copy(c.kind, c.direction, copy_stream.get());
    const Millis host_blocked = call.elapsed();
    if (!c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
    const Millis total = timer.stop();
    const Millis kernel_end = timer.end_of(0);
    const Millis copy_end = timer.end_of(1);
    return OverlapRun{total, host_blocked, copy_end - kernel_end};
  };
  figures.measured = measure_overlap(plan, options.kinds, kernel_alone, copy_alone, together);
  if (draw) {  // the telling cases once more, untimed, recorded with CUPTI: each its pairs in a row
    for (const OverlapCase& c : overlap_timeline_cases(options.kinds)) {
      auto pairs = [&] {
        for (int pair = 0; pair < options.timeline_pairs; ++pair) {
          if (c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
          copy(c.kind, c.direction, copy_stream.get());
          if (!c.kernel_first) launch_spin(kernel_time, blocks, kernel_stream.get());
        }
        CUDA_CHECK(cudaStreamSynchronize(kernel_stream.get()));
        CUDA_CHECK(cudaStreamSynchronize(copy_stream.get()));
      };
      experiment.pictures.push_back(
          record_overlap_timeline(c, kernel_stream.get(), copy_stream.get(), options.timeline_pairs, pairs));
    }
  }
  for (const HostMemory kind : options.kinds) {
    figures.checks.add("overlap", bytes, kind, set.verify(kind, copy_stream.get()));
  }
  experiment.device = query_device_info(device);
  return experiment;
}

std::optional<MeasuredOverlap> run_and_print_overlap(int argc, char** argv, bool timeline) {
  const std::optional<OverlapOptions> options = parse_overlap_options(argc, argv, timeline);  // before any CUDA call
  if (!options) return std::nullopt;
  MeasuredOverlap run{*options, run_overlap_experiment(*options, timeline)};
  print_overlap_heading(std::cout, subcommand_program(lesson02::kStage, timeline ? "timeline" : "overlap"),
                        run.options, run.experiment.device);
  if (timeline) {
    std::cout << "then the telling cases once more each, recorded with CUPTI"
              << (run.options.timeline_pairs > 1
                      ? ", " + plural(run.options.timeline_pairs, "batch") + " of a copy and a kernel each"
                      : "")
              << '\n';
  }
  print_overlap(std::cout, run.experiment.figures);
  return run;
}

int finish_overlap(const MeasuredOverlap& run, const nlohmann::json& doc) {
  if (!run.options.common.json_path.empty()) write_json_file(run.options.common.json_path, doc);
  return run.experiment.figures.checks.passed() ? kExitOk : kExitFailure;
}

int run_overlap(int argc, char** argv) {
  const std::optional<MeasuredOverlap> run = run_and_print_overlap(argc, argv, false);
  if (!run) return kExitOk;
  return finish_overlap(*run, overlap_json(run->options, run->experiment.device, run->experiment.figures, "overlap"));
}

}  // namespace csg::copies
