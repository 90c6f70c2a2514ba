// Stage 02: pinned vs pageable host memory, the article's "Pinned Memory".
// The copy engines (DMA) read and write only page-locked memory; from
// pageable (malloc) memory the driver first copies through a pinned staging
// buffer of its own, so copies are slower and cudaMemcpyAsync keeps the host
// until the data is staged. Pinning is no free lunch either: it is slow to
// allocate and takes physical memory away from everything else.
//   ./02_pinned_vs_pageable --quick      (4 sizes, all four kinds; --help for the rest)

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "base/progress.hpp"
#include "async_overlap.hpp"
#include "workload/spin.hpp"
#include "copy_buffers.hpp"
#include "measure/timers.hpp"
#include "options.hpp"
#include "pinning_cost.hpp"
#include "report.hpp"
#include "report/device_info.hpp"
#include "report/stage_main.hpp"
#include "timeline/stage_timeline.hpp"
#include "stage.hpp"

namespace {

constexpr const char* kStage = "02_pinned_vs_pageable";
using csg::HostMemory;
using csg::copies::CopyDirection;

// The four kinds of host memory, allocated as the article and the CUDA
// runtime offer them; each pointer goes to an owner that frees it its way.
csg::HostBuffer<std::byte> allocate_host(HostMemory kind, std::size_t bytes) {
  void* ptr = nullptr;
  switch (kind) {
    case HostMemory::pageable:  // the article's malloc (page-aligned, so that it can be registered too)
      ptr = csg::page_aligned_alloc(bytes);
      break;
    case HostMemory::pinned:  // the article's cudaMallocHost: page-locked, the DMA engines read it directly
      CUDA_CHECK(cudaMallocHost(&ptr, bytes));
      break;
    case HostMemory::registered: {  // malloc'd memory, page-locked afterwards
      csg::HostBuffer<std::byte> plain = allocate_host(HostMemory::pageable, bytes);
      CUDA_CHECK(cudaHostRegister(plain.data(), bytes, cudaHostRegisterDefault));
      ptr = plain.data();
      static_cast<void>(plain.release());  // now owned as registered memory
      break;
    }
    case HostMemory::write_combined:  // page-locked and not cached by the CPU: for buffers the GPU only reads
      CUDA_CHECK(cudaHostAlloc(&ptr, bytes, cudaHostAllocWriteCombined));
      break;
  }
  return csg::HostBuffer<std::byte>(static_cast<std::byte*>(ptr), bytes, kind);
}

}  // namespace

int main(int argc, char** argv) {
  return csg::run_stage(kStage, [&] {
    csg::StageCli cli(kStage, csg::copies::cli_description(), csg::copies::cli_defaults());
    csg::copies::add_options(cli);
    const auto options = csg::copies::parse_options(cli, argc, argv);  // all checked before any CUDA call
    if (!options) {
      std::cout << cli.help();
      return csg::kExitOk;
    }
    const csg::RepeatPlan& plan = options->common.plan;
    const std::uint64_t seed = options->common.seed;
    const csg::MemoryNeeds needs = csg::copies::memory_needs(*options);
    const std::string smaller = "choose smaller --sizes (the largest is " +
                                csg::copies::format_size(options->sizes.back()) + ") or fewer --host-memory kinds";
    csg::check_host_fits(needs, smaller);  // needs no GPU: refused the same way everywhere

    const int device = csg::require_device();
    csg::check_fits(needs, smaller);
    csg::check_estimate(csg::copies::estimate_seconds(*options, csg::measure_copy_rates()),
                        options->common.max_minutes, "the copies of " + std::to_string(options->sizes.size()) +
                                                         " sizes up to " + csg::copies::format_size(options->sizes.back()));
    std::vector<std::string> notes;
    const std::vector<HostMemory> kinds = csg::copies::supported_kinds(options->kinds, device, notes);
    csg::copies::CopyReport report(*options, csg::query_device_info(device), kinds, notes);

    csg::Stream h2d_stream(cudaStreamNonBlocking);  // non-blocking: no implicit sync with stream 0
    csg::Stream d2h_stream(cudaStreamNonBlocking);
    csg::EventTimer timer;

    // ---- 1 + 2: bandwidth sweep, and the staging cost of pageable copies ----
    for (const std::uint64_t bytes : options->sizes) {
      csg::progress("sweep " + csg::copies::format_size(bytes) + ": allocating and filling every kind");
      csg::copies::CopySet set(bytes, kinds, seed, allocate_host);
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
        timer.start(h2d_stream.get(), {d2h_stream.get()});
        CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(HostMemory::pinned), bytes,
                                   cudaMemcpyHostToDevice, h2d_stream.get()));
        CUDA_CHECK(cudaMemcpyAsync(set.host_dst(HostMemory::pinned), set.device_out(), bytes,
                                   cudaMemcpyDeviceToHost, d2h_stream.get()));
        return timer.stop();
      };
      // The extra copy the driver makes for pageable memory, done by hand.
      auto host_memcpy = [&] {
        const csg::HostTimer host;
        std::memcpy(set.host_dst(HostMemory::pageable), set.host_src(HostMemory::pageable), bytes);
        return host.elapsed();
      };

      csg::copies::SweepVariants variants;
      for (const HostMemory kind : kinds) {
        variants.add({csg::copies::SweepOp::copy, kind, CopyDirection::h2d}, [&h2d, kind] { return h2d(kind); });
        variants.add({csg::copies::SweepOp::copy, kind, CopyDirection::d2h}, [&d2h, kind] { return d2h(kind); });
      }
      if (report.measures(HostMemory::pinned)) {
        variants.add({csg::copies::SweepOp::copy, HostMemory::pinned, CopyDirection::bidirectional}, bidirectional);
      }
      if (report.measures(HostMemory::pageable)) variants.add({csg::copies::SweepOp::host_memcpy}, host_memcpy);
      csg::progress("sweep " + csg::copies::format_size(bytes) + ": " + std::to_string(variants.keys.size()) +
                    " variants, " + std::to_string(plan.warmup) + " warm-up + " + std::to_string(plan.repeats) +
                    " interleaved rounds");
      report.add_sweep(bytes, variants, csg::measure_interleaved(plan, variants.timed));

      // Verify: what the timed D2H copies left, then a fresh round trip, bit-exact, for every kind.
      for (const HostMemory kind : kinds) report.add_check("sweep", bytes, kind, set.verify(kind, h2d_stream.get()));
    }

    // ---- 3: cudaMemcpyAsync beside a busy kernel on another stream ----
    std::vector<csg::copies::OverlapPicture> overlap_pictures;
    if (!options->overlap_kinds.empty()) {
      const std::uint64_t bytes = options->overlap_bytes;
      const std::vector<HostMemory>& overlap_kinds = options->overlap_kinds;
      csg::progress("overlap: " + csg::copies::format_size(bytes) + " copies beside a " +
                    std::to_string(options->kernel_ms) + " ms kernel");
      csg::copies::CopySet set(bytes, overlap_kinds, seed, allocate_host);
      csg::Stream kernel_stream(cudaStreamNonBlocking);
      csg::Stream copy_stream(cudaStreamNonBlocking);
      const std::chrono::milliseconds kernel_time(options->kernel_ms);
      const int blocks = report.device().sm_count;  // one block per SM: the whole GPU is busy

      auto copy = [&](HostMemory kind, CopyDirection direction, cudaStream_t stream) {
        if (direction == CopyDirection::h2d) {
          CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(kind), bytes, cudaMemcpyHostToDevice, stream));
        } else {
          CUDA_CHECK(cudaMemcpyAsync(set.host_dst(kind), set.device_out(), bytes, cudaMemcpyDeviceToHost, stream));
        }
      };
      auto kernel_alone = [&] {
        timer.start(kernel_stream.get());
        csg::launch_spin(kernel_time, blocks, kernel_stream.get());
        return timer.stop();
      };
      auto copy_alone = [&](HostMemory kind, CopyDirection direction) {
        timer.start(copy_stream.get());
        copy(kind, direction, copy_stream.get());
        return timer.stop();
      };
      // Both: how long does the cudaMemcpyAsync call hold the host (a host
      // clock around the call alone), and does the copy run while the kernel does?
      auto together = [&](const csg::copies::OverlapCase& c) {
        timer.start(kernel_stream.get(), {copy_stream.get()});
        if (c.kernel_first) csg::launch_spin(kernel_time, blocks, kernel_stream.get());
        const csg::HostTimer call;
        copy(c.kind, c.direction, copy_stream.get());
        const csg::Millis host_blocked = call.elapsed();
        if (!c.kernel_first) csg::launch_spin(kernel_time, blocks, kernel_stream.get());
        const csg::Millis total = timer.stop();
        const csg::Millis kernel_end = timer.end_of(0);
        const csg::Millis copy_end = timer.end_of(1);
        return csg::copies::OverlapRun{total, host_blocked, copy_end - kernel_end};
      };
      report.set_overlap(bytes, csg::copies::measure_overlap(plan, overlap_kinds, kernel_alone, copy_alone, together));
      // --timeline: the telling cases once more, untimed, recorded with CUPTI.
      if (options->timeline.record) {
        for (const csg::copies::OverlapCase& c : csg::copies::overlap_timeline_cases(overlap_kinds)) {
          overlap_pictures.push_back(csg::copies::record_overlap_timeline(c, kernel_stream.get(), copy_stream.get(),
                                                                          [&] { together(c); }));
        }
      }
      for (const HostMemory kind : overlap_kinds) {
        report.add_check("overlap", bytes, kind, set.verify(kind, copy_stream.get()));
      }
    }

    // ---- 4: what pinning costs (sizes bounded by the memory available now) ----
    const csg::copies::PinningPlan pinning =
        csg::copies::plan_pinning(options->pin_sizes, csg::available_host_bytes());
    csg::progress("pinning cost: " + std::to_string(pinning.sizes.size()) + " sizes, " +
                  std::to_string(options->pin_repeats) + " rounds each");
    report.set_pinning(pinning, csg::copies::measure_pinning_costs(pinning.sizes, options->pin_repeats));

    report.set_device(csg::query_device_info(device));  // the PCIe link as it is under load, not idle
    report.print(std::cout);
    if (options->timeline.record) {
      csg::copies::report_overlap_timelines(std::cout, overlap_pictures, options->timeline.trace_path);
    }
    return csg::finish_stage(std::cout, kStage, report.to_json(), report.passed(), std::nullopt, options->timeline,
                             options->common.json_path);
  });
}
