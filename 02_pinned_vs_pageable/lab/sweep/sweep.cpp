// 02_pinned_vs_pageable sweep: H2D and D2H bandwidth of every kind of host
// memory over a size sweep, pinned both ways at once, and the staging copy a
// pageable copy makes, done by hand beside it. Every size and kind is checked
// bit-exact: what the timed D2H copies left, then a fresh round trip.
#include <cstring>
#include <iostream>

#include "base/progress.hpp"
#include "base/text.hpp"
#include "02_pinned_vs_pageable/lab/laboratory.hpp"
#include "measure/timers.hpp"
#include "report/device_info.hpp"
#include "02_pinned_vs_pageable/lab/sweep/sweep_report.hpp"

namespace csg::copies {

int run_sweep(int argc, char** argv) {
  const std::optional<SweepOptions> options = parse_sweep_options(argc, argv);  // before any CUDA call
  if (!options) return kExitOk;
  const RepeatPlan& plan = options->common.plan;
  const std::uint64_t seed = options->common.seed;
  const std::string smaller =
      "choose smaller --sizes (the largest is " + format_size(options->sizes.back()) + ") or fewer --host-memory kinds";
  check_host_fits(memory_needs(*options), smaller);  // needs no GPU: refused the same way on every machine
  const int device = require_device();
  check_fits(memory_needs(*options), smaller);
  check_estimate(estimate_seconds(*options, measure_copy_rates()), options->common.max_minutes,
                 "the copies of " + plural(std::ssize(options->sizes), "size") + " up to " +
                     format_size(options->sizes.back()));
  std::vector<std::string> notes;
  const std::vector<HostMemory> kinds = supported_kinds(options->kinds, device, notes);
  SweepReport report(*options, query_device_info(device), kinds, notes);

  Stream h2d_stream(cudaStreamNonBlocking);  // non-blocking: no implicit sync with stream 0
  Stream d2h_stream(cudaStreamNonBlocking);
  EventTimer timer;
  for (const std::uint64_t bytes : options->sizes) {
    progress("sweep " + format_size(bytes) + ": allocating and filling every kind");
    CopySet set(bytes, kinds, seed, allocate_host);
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
      CUDA_CHECK(cudaMemcpyAsync(set.device_in(), set.host_src(HostMemory::pinned), bytes, cudaMemcpyHostToDevice,
                                 h2d_stream.get()));
      CUDA_CHECK(cudaMemcpyAsync(set.host_dst(HostMemory::pinned), set.device_out(), bytes, cudaMemcpyDeviceToHost,
                                 d2h_stream.get()));
      return timer.stop();
    };
    // The extra copy the driver makes for pageable memory, done by hand.
    auto host_memcpy = [&] {
      const HostTimer host;
      std::memcpy(set.host_dst(HostMemory::pageable), set.host_src(HostMemory::pageable), bytes);
      return host.elapsed();
    };

    SweepVariants variants;
    for (const HostMemory kind : kinds) {
      variants.add({SweepOp::copy, kind, CopyDirection::h2d}, [&h2d, kind] { return h2d(kind); });
      variants.add({SweepOp::copy, kind, CopyDirection::d2h}, [&d2h, kind] { return d2h(kind); });
    }
    if (report.measures(HostMemory::pinned)) {
      variants.add({SweepOp::copy, HostMemory::pinned, CopyDirection::bidirectional}, bidirectional);
    }
    if (report.measures(HostMemory::pageable)) variants.add({SweepOp::host_memcpy}, host_memcpy);
    progress("sweep " + format_size(bytes) + ": " + plural(std::ssize(variants.keys), "variant") + ", " +
             std::to_string(plan.warmup) + " warm-up + " + plural(plan.repeats, "interleaved round"));
    report.add_sweep(bytes, variants, measure_interleaved(plan, variants.timed));

    // What the timed D2H copies left, then a fresh round trip, bit-exact, for every kind.
    for (const HostMemory kind : kinds) report.add_check(bytes, kind, set.verify(kind, h2d_stream.get()));
  }

  report.set_device(query_device_info(device));  // the PCIe link as it is under load, not idle
  report.print(std::cout);
  if (!options->common.json_path.empty()) write_json_file(options->common.json_path, report.to_json());
  return report.passed() ? kExitOk : kExitFailure;
}

}  // namespace csg::copies
