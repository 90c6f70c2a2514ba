#include "serial.hpp"

#include "01_serial_baseline/lesson.hpp"
#include "01_serial_baseline/report.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "measure/estimate.hpp"
#include "measure/timers.hpp"
#include "timeline/nvtx.hpp"
#include "workload/gemm.hpp"

namespace csg::serial {

Needs needs(const Config& config) {
  const CommonOptions& options = config.common;
  MemoryNeeds memory = memory_needs(options.work, options.host_memory);
  memory.device_bytes += gemm_device_bytes(options.gemm, /*streams=*/1);
  return {memory, "try fewer --batches"};
}

Estimate estimate(const Config& config, int /*device*/) {
  const CommonOptions& options = config.common;
  const Gemm gemm(options.gemm);
  return {estimate_seconds(options, measure_rates(gemm, options.work.shape), config.timeline.record),
          describe_workload(options.work, options.gemm)};
}

Figures measure(const Config& config) {
  const CommonOptions& options = config.common;
  const Workload& work = options.work;
  const Gemm gemm(options.gemm);
  progress("allocating and filling " + plural(work.batches, "batch") + " (" +
           std::string(to_string(options.host_memory)) + " host memory)");
  ScopedRange allocate_range("allocate");  // NVTX: named phases for nsys users
  BatchBuffers buffers(work, options.host_memory);
  buffers.fill_inputs(options.seed);
  gemm.prepare(nullptr);  // cuBLAS: the default stream's handle, before any timed run
  allocate_range.end();

  // The lesson's three calls, with the kernel Gemm runs, on the legacy default stream.
  const BatchOps ops{
      .h2d = [&](int i, cudaStream_t) {
        CUDA_CHECK(cudaMemcpy(buffers.device_a(i), buffers.host_a(i), work.a_bytes(), cudaMemcpyHostToDevice));
      },
      .compute = [&](int i, cudaStream_t stream) {
        gemm.run(buffers.device_a(i), buffers.device_b(), buffers.device_c(i), work.shape, stream);
      },
      .d2h = [&](int i, cudaStream_t) {
        CUDA_CHECK(cudaMemcpy(buffers.host_c(i), buffers.device_c(i), work.c_bytes(), cudaMemcpyDeviceToHost));
      },
  };
  EventTimer timer;
  auto serial_run = [&] {
    timer.start(nullptr);
    for (int i = 0; i < work.batches; ++i) {
      ops.h2d(i, nullptr);
      ops.compute(i, nullptr);
      ops.d2h(i, nullptr);
    }
    return timer.stop();
  };

  progress("timing the serial run and the stages alone: " + std::to_string(options.plan.warmup) + " warm-up + " +
           plural(options.plan.repeats, "timed round"));
  Figures figures;
  std::vector<TimedVariant> variants = {{
      .prepare = [&] { buffers.poison_outputs(nullptr); },  // each run must write every C_i
      .run = serial_run,
      .after_last = [&] { figures.serial_check = buffers.verify(options.seed); },
  }};
  for (auto& pass : stage_sum_variants(ops, buffers, nullptr, timer)) variants.push_back(std::move(pass));
  const std::vector<Summary> summaries = [&] {
    ScopedRange range("warm-up and timed rounds");
    return measure_interleaved(options.plan, variants);
  }();
  figures.total = summaries.front();
  figures.sums = to_stage_sums(summaries, 1);
  figures.sums_check = buffers.verify(options.seed);  // what the D2H pass copied back

  // The timeline: one more serial run, after and apart from the timed ones,
  // with CUPTI timestamping every copy and kernel (one row: the default
  // stream); then the serial run re-timed with recording over.
  if (config.timeline.record) {
    progress("recording one more serial run for the timeline");
    figures.timeline = record_stage_timeline(options.plan, {.plan = {.streams = {nullptr},  // the legacy default stream
                                                                     .row_names = {"default stream"},
                                                                     .batches = work.batches,
                                                                     .pool = 1,
                                                                     .flops_per_kernel = work.flops_per_batch()},
                                                            .poison = variants.front().prepare,
                                                            .verify = [&] { return buffers.verify(options.seed); },
                                                            .timed_run = variants.front().run,
                                                            .timed = summaries.front()});
  }
  return figures;
}

void report(const Config& config, const Figures& figures, Report& report) {
  report_serial(report, config.common, figures.total, figures.sums, figures.serial_check, figures.sums_check);
  if (figures.timeline) add_timeline(report, *figures.timeline, config.timeline);
}

}  // namespace csg::serial
