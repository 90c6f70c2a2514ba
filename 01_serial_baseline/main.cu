// Stage 01: the serial baseline, the article's first timeline.
//
// Lesson: with the default stream and pageable (malloc) host memory, each batch
// runs copy in → compute → copy out, one after the other. At any moment only
// one of the PCIe link and the SMs works, so the total is the SUM of the three
// stages. The later stages shrink it towards the LARGEST of them.
//
// Run:    ./01_serial_baseline                        (the article's 100 × 1024×1024×512)
//         ./01_serial_baseline --host-memory pinned   (the same, with cudaMallocHost)
//         ./01_serial_baseline --batches 8 --m 64 --n 64 --k 64 --json out.json
//         ./01_serial_baseline --timeline --trace 01.trace.json   (the article's picture, measured)
//         ./01_serial_baseline --kernel cublas        (a fast GEMM: now the copies dominate the sum)
// Output: the total (median of the repeats), the three stage sums measured
//         separately (all H2D, all kernels, all D2H), their sum, and whether
//         every batch verified. Total ≈ sum means nothing overlapped.
//         --timeline draws one more (untimed) run as the article's first
//         timeline: a single row, H K D H K D ..., no two at once; then the
//         serial run is re-timed to show recording left the timed median alone.

#include <iostream>
#include <optional>
#include <vector>

#include "workload/batch_buffers.hpp"
#include "report/device_info.hpp"
#include "workload/gemm_backend.hpp"
#include "timeline/nvtx.hpp"
#include "cli/options.hpp"
#include "workload/resources.hpp"
#include "report/result.hpp"
#include "report/serial_report.hpp"
#include "workload/serial_run.hpp"
#include "report/stage_main.hpp"
#include "measure/stage_sums.hpp"
#include "timeline/stage_timeline.hpp"
#include "timeline/timeline_options.hpp"
#include "measure/timers.hpp"

int main(int argc, char** argv) {
  return csg::run_stage("01_serial_baseline", [&] {
    // Options: every argument is validated here, before any CUDA call.
    csg::StageCli cli("01_serial_baseline",
                      "The serial baseline: cudaMemcpy H2D -> GEMM -> cudaMemcpy D2H per batch, "
                      "on the legacy default stream.");
    csg::add_timeline_options(cli);  // --timeline, --timeline-batches, --trace
    const auto options = cli.parse(argc, argv);
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::Workload& work = options->work;
    const csg::TimelineOptions timeline_options = csg::read_timeline_options(cli);

    const int device = csg::require_device();
    const csg::Gemm gemm(options->gemm);  // --kernel: the article's naive kernel unless told otherwise
    // The article's layout: one device A and C per batch.
    csg::MemoryNeeds needs = csg::memory_needs(work, options->host_memory, work.batches);
    needs.device_bytes += csg::gemm_device_bytes(options->gemm, /*streams=*/1);
    csg::check_fits(needs, "try fewer --batches");

    csg::progress("allocating and filling " + std::to_string(work.batches) + " batches (" +
                  std::string(csg::to_string(options->host_memory)) + " host memory)");
    csg::ScopedRange allocate_range("allocate");  // NVTX: named phases for nsys users
    csg::BatchBuffers buffers(work, options->host_memory, work.batches);
    buffers.fill_inputs(options->seed);  // A_i and B; B is copied to the device once
    gemm.prepare(nullptr);               // cuBLAS: the default stream's handle, before any timed run
    allocate_range.end();

    // The lesson: one batch at a time, everything on the legacy default stream
    // (stream 0). cudaMemcpy returns only when the copy is done, so nothing overlaps.
    auto serial_run = [&] {
      for (int batch = 0; batch < work.batches; ++batch) {
        // copy in: A_i over PCIe (host -> device)
        CUDA_CHECK(cudaMemcpy(buffers.device_a(batch), buffers.host_a(batch), work.a_bytes(),
                              cudaMemcpyHostToDevice));
        // compute: C_i = A_i · B (the article's naive kernel, or --kernel's)
        gemm.run(buffers.device_a(batch), buffers.device_b(), buffers.device_c(batch), work.shape,
                 /*stream=*/nullptr);
        // copy out: C_i over PCIe (device -> host); waits for the kernel first
        CUDA_CHECK(cudaMemcpy(buffers.host_c(batch), buffers.device_c(batch), work.c_bytes(),
                              cudaMemcpyDeviceToHost));
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
        .after_last = [&] { csg::ScopedRange range("verify"); serial_check = buffers.verify(options->seed); },
    }};
    for (auto& pass : csg::stage_sum_variants(buffers, gemm, nullptr, csg::CopyCall::sync, timer)) {
      variants.push_back(std::move(pass));
    }
    const std::vector<csg::Summary> summaries = [&] {
      csg::ScopedRange range("warm-up and timed rounds");
      return csg::measure_interleaved(options->plan, variants);
    }();
    const csg::StageSums sums = csg::to_stage_sums(summaries);
    const csg::VerifyResult sums_check = [&] {
      csg::ScopedRange range("verify");
      return buffers.verify(options->seed);  // what the D2H pass copied back
    }();

    // --timeline: one more serial run, after and apart from the timed ones,
    // with CUPTI timestamping every copy and kernel (one row: the default
    // stream); then the serial run re-timed with recording over.
    std::optional<csg::StageTimeline> timeline;
    if (timeline_options.record) {
      csg::progress("recording one more serial run for the timeline");
      csg::ScopedRange range("timeline run");
      timeline = csg::record_stage_timeline(
          options->plan, {.plan = {.streams = {nullptr},  // the legacy default stream
                                   .row_names = {"default stream"},
                                   .batches = work.batches,
                                   .pool = 1,
                                   .flops_per_kernel = work.flops_per_batch()},
                          .poison = variants.front().prepare,
                          .verify = [&] { return buffers.verify(options->seed); },
                          .timed_run = variants.front().run,
                          .timed = summaries.front(),
                          .source = timeline_options.source,
                          // event pairs (when CUPTI can't record): the same loop, through OpScope
                          .event_run = [&] { csg::run_serial_batches(buffers, gemm); }});
    }

    const csg::StageResult result = csg::serial_result("01_serial_baseline", csg::query_device_info(device),
                                                        *options, summaries.front(), sums, serial_check, sums_check);
    csg::print_serial_result(std::cout, result, *options, sums);
    nlohmann::json json = csg::to_json(result);
    if (timeline) {
      csg::report_stage_timeline(std::cout, *timeline, timeline_options, "01_serial_baseline");
      json["timeline"] = csg::to_json(*timeline, timeline_options);
    }
    if (!options->json_path.empty()) csg::write_json_file(options->json_path, json);
    const bool timeline_passed = !timeline || timeline->passed();
    return result.verification.passed && timeline_passed ? csg::kExitOk : csg::kExitFailure;
  });
}
