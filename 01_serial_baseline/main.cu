// Stage 01: the serial baseline, the article's first timeline. With pageable
// (malloc) host memory and the legacy default stream, each batch runs copy in,
// compute, copy out, one after the other: at any moment only one of the PCIe
// link and the SMs works, so the total is the SUM of the three stages. The
// later stages shrink it towards the LARGEST of them.
//   ./01_serial_baseline          (the article's 100 GEMMs of 1024x1024x512; --help for the rest)

#include <iostream>
#include <optional>
#include <vector>

#include "base/progress.hpp"
#include "cli/options.hpp"
#include "measure/stage_sums.hpp"
#include "measure/timers.hpp"
#include "report.hpp"
#include "report/device_info.hpp"
#include "report/stage_main.hpp"
#include "timeline/nvtx.hpp"
#include "timeline/stage_timeline.hpp"
#include "batches.hpp"
#include "common.cuh"
#include "stage.hpp"

namespace {
constexpr const char* kStage = "01_serial_baseline";
}  // namespace

int main(int argc, char** argv) {
  return csg::run_stage(kStage, [&] {
    csg::StageCli cli(kStage,
                      "The serial baseline: cudaMemcpy H2D -> GEMM -> cudaMemcpy D2H per batch, on the legacy "
                      "default stream.");
    csg::add_timeline_options(cli);  // --timeline, --timeline-batches, --trace
    const auto options = cli.parse(argc, argv);  // every argument is checked here, before any CUDA call
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::Workload& work = options->work;
    const csg::TimelineOptions timeline_options = csg::read_timeline_options(cli);

    const int device = csg::require_device();
    const csg::Gemm gemm(options->gemm);  // --kernel: the article's naive kernel unless told otherwise
    csg::MemoryNeeds needs = csg::memory_needs(work, options->host_memory, work.batches);
    needs.device_bytes += csg::gemm_device_bytes(options->gemm, /*streams=*/1);
    csg::check_fits(needs, "try fewer --batches");
    csg::check_estimate(csg::serial::estimate_seconds(*options, csg::measure_rates(gemm, work.shape),
                                                      timeline_options.record),
                        options->max_minutes, csg::describe_workload(work, options->gemm));

    csg::progress("allocating and filling " + std::to_string(work.batches) + " batches (" +
                  std::string(csg::to_string(options->host_memory)) + " host memory)");
    csg::ScopedRange allocate_range("allocate");  // NVTX: named phases for nsys users
    // The article's layout: h_A, h_B, h_C on the host; d_A, d_C (one per batch) and d_B on the device.
    csg::BatchBuffers buffers(work, options->host_memory, work.batches);
    buffers.fill_inputs(options->seed);  // the article's init_data for A_i and B; B goes to the device once
    gemm.prepare(nullptr);               // cuBLAS: the default stream's handle, before any timed run
    allocate_range.end();

    // The lesson: one batch at a time, everything on the legacy default stream
    // (stream 0). cudaMemcpy returns only when its copy is done, so nothing overlaps.
    const dim3 block = csg::naive_block();          // the article's blocksize(32, 32)
    const dim3 grid = csg::naive_grid(work.shape);  // and gridsize, rounded up to cover C
    const int m = work.shape.m, n = work.shape.n, k = work.shape.k;
    const csg::BatchOps ops{
        // copy in: A_i over PCIe, host -> device
        .h2d = [&](int i, cudaStream_t) {
          CUDA_CHECK(cudaMemcpy(buffers.device_a(i), buffers.host_a(i), work.a_bytes(), cudaMemcpyHostToDevice));
        },
        // compute: C_i = A_i · B, the article's launch (--kernel tiled or cublas: Gemm::run)
        .compute = [&](int i, cudaStream_t stream) {
          if (gemm.kernel() == csg::GemmKernel::naive) {
            csg::gemm_naive<<<grid, block, 0, stream>>>(buffers.device_a(i), buffers.device_b(), buffers.device_c(i),
                                                        m, n, k);
            CUDA_CHECK_LAUNCH("gemm_naive");
          } else {
            gemm.run(buffers.device_a(i), buffers.device_b(), buffers.device_c(i), work.shape, stream);
          }
        },
        // copy out: C_i over PCIe, device -> host; waits for the kernel first
        .d2h = [&](int i, cudaStream_t) {
          CUDA_CHECK(cudaMemcpy(buffers.host_c(i), buffers.device_c(i), work.c_bytes(), cudaMemcpyDeviceToHost));
        },
    };
    auto serial_run = [&] {
      for (int i = 0; i < work.batches; ++i) {
        ops.h2d(i, nullptr);
        ops.compute(i, nullptr);
        ops.d2h(i, nullptr);
      }
    };

    // Time it, and each stage alone (all H2D, all kernels, all D2H: their sum
    // is what the serial run should take), in interleaved rounds so that a
    // slow moment of the machine hits all four alike.
    csg::progress("timing the serial run and the stages alone: " + std::to_string(options->plan.warmup) +
                  " warm-up + " + std::to_string(options->plan.repeats) + " timed rounds");
    csg::EventTimer timer;
    csg::VerifyResult serial_check;
    std::vector<csg::TimedVariant> variants = {{
        .prepare = [&] { buffers.poison_outputs(nullptr); },  // each run must write every C_i
        .run = [&] { timer.start(nullptr); serial_run(); return timer.stop(); },
        .after_last = [&] { serial_check = buffers.verify(options->seed); },
    }};
    for (auto& pass : csg::stage_sum_variants(ops, buffers, nullptr, timer)) variants.push_back(std::move(pass));
    const std::vector<csg::Summary> summaries = [&] {
      csg::ScopedRange range("warm-up and timed rounds");
      return csg::measure_interleaved(options->plan, variants);
    }();
    const csg::StageSums sums = csg::to_stage_sums(summaries, 1);
    const csg::VerifyResult sums_check = buffers.verify(options->seed);  // what the D2H pass copied back

    // --timeline: one more serial run, after and apart from the timed ones,
    // with CUPTI timestamping every copy and kernel (one row: the default
    // stream); then the serial run re-timed with recording over.
    std::optional<csg::StageTimeline> timeline;
    if (timeline_options.record) {
      csg::progress("recording one more serial run for the timeline");
      timeline = csg::record_stage_timeline(
          options->plan, {.plan = {.streams = {nullptr},  // the legacy default stream
                                   .row_names = {"default stream"},
                                   .batches = work.batches,
                                   .pool = 1,
                                   .flops_per_kernel = work.flops_per_batch()},
                          .poison = variants.front().prepare,
                          .verify = [&] { return buffers.verify(options->seed); },
                          .timed_run = variants.front().run,
                          .timed = summaries.front()});
    }

    const csg::StageResult result = csg::serial::serial_result(kStage, csg::query_device_info(device), *options,
                                                               summaries.front(), sums, serial_check, sums_check);
    csg::serial::print_serial_result(std::cout, result, *options, sums);
    return csg::finish_stage(std::cout, kStage, csg::to_json(result), result.verification.passed, timeline,
                             timeline_options, options->json_path);
  });
}
