// The laboratory's serial run: the lesson's loop (cudaMemcpy H2D, the GEMM,
// cudaMemcpy D2H per batch on the legacy default stream) with the kernel that
// Gemm picks, timed with its three stage sums in interleaved rounds; and, for
// the timeline, one more run recorded with CUPTI after the timed ones.
#include <iostream>
#include <optional>
#include <vector>

#include "base/progress.hpp"
#include "base/text.hpp"
#include "laboratory.hpp"
#include "lesson.hpp"
#include "measure/estimate.hpp"
#include "measure/stage_sums.hpp"
#include "measure/timers.hpp"
#include "report.hpp"
#include "report/device_info.hpp"
#include "timeline/nvtx.hpp"
#include "workload/gemm.hpp"

namespace csg::serial {

int run_serial_experiment(const std::string& subcommand, const CommonOptions& options,
                          const TimelineOptions& timeline_options) {
  const Workload& work = options.work;
  const int device = require_device();
  const Gemm gemm(options.gemm);
  MemoryNeeds needs = memory_needs(work, options.host_memory);
  needs.device_bytes += gemm_device_bytes(options.gemm, /*streams=*/1);
  check_fits(needs, "try fewer --batches");
  check_estimate(estimate_seconds(options, measure_rates(gemm, work.shape), timeline_options.record),
                 options.max_minutes, describe_workload(work, options.gemm));

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
  VerifyResult serial_check;
  std::vector<TimedVariant> variants = {{
      .prepare = [&] { buffers.poison_outputs(nullptr); },  // each run must write every C_i
      .run = serial_run,
      .after_last = [&] { serial_check = buffers.verify(options.seed); },
  }};
  for (auto& pass : stage_sum_variants(ops, buffers, nullptr, timer)) variants.push_back(std::move(pass));
  const std::vector<Summary> summaries = [&] {
    ScopedRange range("warm-up and timed rounds");
    return measure_interleaved(options.plan, variants);
  }();
  const StageSums sums = to_stage_sums(summaries, 1);
  const VerifyResult sums_check = buffers.verify(options.seed);  // what the D2H pass copied back

  // The timeline: one more serial run, after and apart from the timed ones,
  // with CUPTI timestamping every copy and kernel (one row: the default
  // stream); then the serial run re-timed with recording over.
  std::optional<StageTimeline> timeline;
  if (timeline_options.record) {
    progress("recording one more serial run for the timeline");
    timeline = record_stage_timeline(options.plan, {.plan = {.streams = {nullptr},  // the legacy default stream
                                                             .row_names = {"default stream"},
                                                             .batches = work.batches,
                                                             .pool = 1,
                                                             .flops_per_kernel = work.flops_per_batch()},
                                                    .poison = variants.front().prepare,
                                                    .verify = [&] { return buffers.verify(options.seed); },
                                                    .timed_run = variants.front().run,
                                                    .timed = summaries.front()});
  }

  const std::string stage = lesson01::kStage;
  const StageResult result = serial_result(stage, query_device_info(device), options, summaries.front(), sums,
                                           serial_check, sums_check);
  print_serial_result(std::cout, result, options, sums);
  nlohmann::json doc = to_json(result);
  doc["subcommand"] = subcommand;
  return finish_stage(std::cout, stage, std::move(doc), result.verification.passed, timeline, timeline_options,
                      options.json_path);
}

}  // namespace csg::serial
