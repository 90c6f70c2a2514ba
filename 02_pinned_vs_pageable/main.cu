// Stage 02: pinned vs pageable host memory, the article's "Pinned Memory".
//
// Lesson: the copy engines (DMA) read and write only page-locked memory. From
// pageable (malloc) memory the driver first copies through a pinned staging
// buffer of its own: copies are slower, and cudaMemcpyAsync keeps the host
// until the data is staged. Pinning is no free lunch either: it is slow to
// allocate and takes physical memory away from everything else.
//
// Run:    ./02_pinned_vs_pageable                 (4K..1G, all four kinds; a minute or two)
//         ./02_pinned_vs_pageable --quick         (64K,1M,16M,256M; well under a minute)
//         ./02_pinned_vs_pageable --sizes 1M,256M --host-memory pageable,pinned --json out.json
// Output: 1) H2D and D2H GB/s per size for pageable, pinned, registered and
//            write-combined memory, pinned/pageable, pinned both ways at once;
//         2) the staging cost: pageable time next to host memcpy + pinned DMA;
//         3) cudaMemcpyAsync beside a busy kernel: how long the host was
//            blocked, when the copy ended, the overlap ratio;
//         4) what cudaMallocHost / cudaHostRegister cost, and peak pinned memory.
//         Every size and kind is checked by a bit-exact round trip.

#include <chrono>
#include <cstring>
#include <iostream>

#include "busy_kernel.hpp"
#include "options.hpp"
#include "report.hpp"
#include "copy_buffers.hpp"
#include "copy_timers.hpp"
#include "async_overlap.hpp"
#include "overlap_timeline.hpp"
#include "pinning_cost.hpp"
#include "workload/resources.hpp"
#include "report/result.hpp"
#include "size_list.hpp"
#include "report/stage_main.hpp"
#include "measure/timers.hpp"

namespace {
constexpr const char* kStage = "02_pinned_vs_pageable";
using csg::CopyDirection;
using csg::HostMemory;
}  // namespace

int main(int argc, char** argv) {
  return csg::run_stage(kStage, [&] {
    // Options: every argument is validated here, before any CUDA call.
    csg::StageCli cli(kStage, csg::copy_cli_description(), csg::copy_cli_defaults());
    csg::add_copy_options(cli);
    const auto options = csg::parse_copy_options(cli, argc, argv);
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::RepeatPlan& plan = options->common.plan;
    const std::uint64_t seed = options->common.seed;
    const csg::MemoryNeeds needs = csg::copy_memory_needs(*options);
    const std::string smaller = "choose smaller --sizes (the largest is " + csg::format_size(options->sizes.back()) +
                                ") or fewer --host-memory kinds";
    csg::check_host_fits(needs, smaller);  // needs no GPU: refused the same way everywhere

    const int device = csg::require_device();
    csg::check_fits(needs, smaller);
    std::vector<std::string> notes;
    const std::vector<HostMemory> kinds = csg::supported_kinds(options->kinds, device, notes);
    csg::CopyReport report(*options, csg::query_device_info(device), kinds, notes);
    auto measured = [&](HostMemory kind) { return report.measures(kind); };

    csg::Stream h2d_stream(cudaStreamNonBlocking);  // non-blocking: no implicit sync with stream 0
    csg::Stream d2h_stream(cudaStreamNonBlocking);
    csg::EventTimer timer;
    csg::BidirectionalTimer both_ways;

    // ---- 1 + 2: bandwidth sweep, and the staging cost of pageable copies ----
    for (const std::uint64_t bytes : options->sizes) {
      csg::progress("sweep " + csg::format_size(bytes) + ": allocating and filling every kind");
      csg::CopySet set(bytes, kinds, seed);
      // One cudaMemcpyAsync each way, timed with events on its stream.
      auto h2d = [&](HostMemory kind) {
        timer.start(h2d_stream.get());
        CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(kind), bytes, cudaMemcpyHostToDevice,
                                   h2d_stream.get()));
        return timer.stop();
      };
      auto d2h = [&](HostMemory kind) {
        timer.start(d2h_stream.get());
        CUDA_CHECK(cudaMemcpyAsync(set.host_dst(kind), set.device_out(), bytes, cudaMemcpyDeviceToHost,
                                   d2h_stream.get()));
        return timer.stop();
      };
      // Pinned both ways at once: two streams, so two copy engines work together.
      auto bidirectional = [&] {
        both_ways.start(h2d_stream.get(), d2h_stream.get());
        CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(HostMemory::pinned), bytes,
                                   cudaMemcpyHostToDevice, h2d_stream.get()));
        CUDA_CHECK(cudaMemcpyAsync(set.host_dst(HostMemory::pinned), set.device_out(), bytes,
                                   cudaMemcpyDeviceToHost, d2h_stream.get()));
        return both_ways.stop();
      };
      // The extra copy the driver makes for pageable memory, done by hand.
      auto host_memcpy = [&] {
        csg::HostTimer host;
        std::memcpy(set.host_dst(HostMemory::pageable), set.host_src(HostMemory::pageable), bytes);
        return host.elapsed();
      };

      csg::SweepVariants variants;
      for (const HostMemory kind : kinds) {
        variants.add({csg::SweepOp::copy, kind, CopyDirection::h2d}, [&h2d, kind] { return h2d(kind); });
        variants.add({csg::SweepOp::copy, kind, CopyDirection::d2h}, [&d2h, kind] { return d2h(kind); });
      }
      if (measured(HostMemory::pinned)) {
        variants.add({csg::SweepOp::copy, HostMemory::pinned, CopyDirection::bidirectional}, bidirectional);
      }
      if (measured(HostMemory::pageable)) variants.add({csg::SweepOp::host_memcpy}, host_memcpy);
      csg::progress("sweep " + csg::format_size(bytes) + ": " + std::to_string(variants.keys.size()) +
                    " variants, " + std::to_string(plan.warmup) + " warm-up + " + std::to_string(plan.repeats) +
                    " interleaved rounds");
      report.add_sweep(bytes, variants, csg::measure_interleaved(plan, variants.timed));

      // Verify: what the timed D2H copies left, then a fresh round trip, bit-exact, for every kind.
      for (const HostMemory kind : kinds) report.add_check("sweep", bytes, kind, set.verify(kind, h2d_stream.get()));
    }

    // ---- 3: cudaMemcpyAsync beside a busy kernel on another stream ----
    std::vector<csg::OverlapPicture> overlap_pictures;
    if (!options->overlap_kinds.empty()) {
      const std::uint64_t bytes = options->overlap_bytes;
      const std::vector<HostMemory>& overlap_kinds = options->overlap_kinds;
      csg::progress("overlap: " + csg::format_size(bytes) + " copies beside a " +
                    std::to_string(options->kernel_ms) + " ms kernel");
      csg::CopySet set(bytes, overlap_kinds, seed);
      csg::Stream kernel_stream(cudaStreamNonBlocking);
      csg::Stream copy_stream(cudaStreamNonBlocking);
      const std::chrono::milliseconds kernel_time(options->kernel_ms);
      const int blocks = report.device().sm_count;  // one block per SM: the whole GPU is busy
      csg::OverlapTimeline timeline;

      auto copy = [&](HostMemory kind, CopyDirection direction, cudaStream_t stream) {
        if (direction == CopyDirection::h2d) {
          CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(kind), bytes, cudaMemcpyHostToDevice, stream));
        } else {
          CUDA_CHECK(cudaMemcpyAsync(set.host_dst(kind), set.device_out(), bytes, cudaMemcpyDeviceToHost, stream));
        }
      };
      auto kernel_alone = [&] {
        timer.start(kernel_stream.get());
        csg::launch_busy_kernel(kernel_time, blocks, kernel_stream.get());
        return timer.stop();
      };
      auto copy_alone = [&](HostMemory kind, CopyDirection direction) {
        timer.start(copy_stream.get());
        copy(kind, direction, copy_stream.get());
        return timer.stop();
      };
      // Both: how long does the cudaMemcpyAsync call hold the host, and does
      // the copy run while the kernel does?
      auto together = [&](const csg::OverlapCase& c) {
        timeline.begin(kernel_stream.get(), copy_stream.get());
        if (c.kernel_first) csg::launch_busy_kernel(kernel_time, blocks, kernel_stream.get());
        csg::HostTimer call;
        copy(c.kind, c.direction, copy_stream.get());
        const csg::Millis host_blocked = call.elapsed();
        if (!c.kernel_first) csg::launch_busy_kernel(kernel_time, blocks, kernel_stream.get());
        timeline.end();
        return csg::OverlapRun{std::max(timeline.kernel_end(), timeline.copy_end()), host_blocked,
                               timeline.copy_end() - timeline.kernel_end()};
      };
      report.set_overlap(bytes, csg::measure_overlap(plan, overlap_kinds, kernel_alone, copy_alone, together));
      // --timeline: the telling cases once more, untimed, recorded with CUPTI.
      if (options->timeline.record) {
        for (const csg::OverlapCase& c : csg::overlap_timeline_cases(overlap_kinds)) {
          overlap_pictures.push_back(
              csg::record_overlap_timeline(c, kernel_stream.get(), copy_stream.get(), [&] { together(c); },
                                           options->timeline.source));
        }
      }
      for (const HostMemory kind : overlap_kinds) {
        report.add_check("overlap", bytes, kind, set.verify(kind, copy_stream.get()));
      }
    }

    // ---- 4: what pinning costs (sizes bounded by the memory available now) ----
    const csg::PinningPlan pinning = csg::plan_pinning(options->pin_sizes, csg::available_host_bytes());
    csg::progress("pinning cost: " + std::to_string(pinning.sizes.size()) + " sizes, " +
                  std::to_string(options->pin_repeats) + " rounds each");
    report.set_pinning(pinning, csg::measure_pinning_costs(pinning.sizes, options->pin_repeats));

    report.set_device(csg::query_device_info(device));  // the PCIe link as it is under load, not idle
    report.print(std::cout);
    if (options->timeline.record) {
      csg::report_overlap_timelines(std::cout, overlap_pictures, options->timeline.trace_path);
    }
    if (!options->common.json_path.empty()) csg::write_json_file(options->common.json_path, report.to_json());
    return report.passed() ? csg::kExitOk : csg::kExitFailure;
  });
}
