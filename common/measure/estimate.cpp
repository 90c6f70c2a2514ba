#include "measure/estimate.hpp"

#include <algorithm>
#include <cstdio>

#include "base/errors.hpp"
#include "base/progress.hpp"
#include "owners.hpp"
#include "measure/timers.hpp"

namespace csg {
namespace {

constexpr std::size_t kCopyBytes = std::size_t{32} << 20;

double per_second(double amount, Millis time) { return time.count() > 0.0 ? amount / (time.count() * 1e-3) : 0.0; }

}  // namespace

Rates measure_rates(const Gemm& gemm, GemmShape shape) {
  const GemmShape small{std::min(shape.m, 1024), std::min(shape.n, 1024), std::min(shape.k, 512)};
  const Workload one{1, small};
  const Stream stream(cudaStreamNonBlocking);
  gemm.prepare(stream.get());
  // The inputs' values don't change a GEMM's time; poison them all the same,
  // so that nothing reads memory no one wrote.
  DeviceBuffer<float> a(one.a_elems()), b(one.b_elems()), c(one.c_elems());
  for (DeviceBuffer<float>* buffer : {&a, &b}) poison_device(buffer->data(), buffer->size(), stream.get());
  EventTimer timer;
  double flops_per_s = 0.0;
  for (int run = 0; run < 2; ++run) {  // the first loads the kernel and warms the clocks
    timer.start(stream.get());
    gemm.run(a.data(), b.data(), c.data(), small, stream.get());
    flops_per_s = per_second(one.flops_per_batch(), timer.stop());
  }
  Rates rates = measure_copy_rates();
  rates.kernel_flops_per_s = flops_per_s;
  return rates;
}

Rates measure_copy_rates() {
  const Stream stream(cudaStreamNonBlocking);
  EventTimer timer;
  Rates rates;
  DeviceBuffer<std::byte> device(kCopyBytes);
  for (const HostMemory kind : {HostMemory::pinned, HostMemory::pageable}) {
    HostBuffer<std::byte> host(kCopyBytes, kind);
    std::fill(host.span().begin(), host.span().end(), std::byte{1});
    Millis slowest{0};
    for (const cudaMemcpyKind direction : {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost}) {
      void* dst = direction == cudaMemcpyHostToDevice ? static_cast<void*>(device.data()) : host.data();
      const void* src = direction == cudaMemcpyHostToDevice ? static_cast<const void*>(host.data()) : device.data();
      timer.start(stream.get());
      CUDA_CHECK(cudaMemcpyAsync(dst, src, kCopyBytes, direction, stream.get()));
      slowest = std::max(slowest, timer.stop());
    }
    (kind == HostMemory::pinned ? rates.pinned_bytes_per_s : rates.pageable_bytes_per_s) =
        per_second(double(kCopyBytes), slowest);
  }
  return rates;
}

double WorkSeconds::overlapped() const { return std::max({kernels, h2d, d2h}); }

WorkSeconds work_seconds(const Workload& work, const Rates& rates, bool pageable) {
  const double copy_rate = pageable ? rates.pageable_bytes_per_s : rates.pinned_bytes_per_s;
  const double batches = double(work.batches);
  auto seconds = [](double amount, double rate) { return rate > 0.0 ? amount / rate : 0.0; };
  return {seconds(batches * work.flops_per_batch(), rates.kernel_flops_per_s),
          seconds(batches * double(work.a_bytes()), copy_rate), seconds(batches * double(work.c_bytes()), copy_rate)};
}

void check_estimate(double seconds, int max_minutes, const std::string& what) {
  char text[160];
  if (seconds > 60.0 * max_minutes) {
    std::snprintf(text, sizeof text, "this run would take about %.0f min (%s at this GPU's measured rates)",
                  seconds / 60.0, what.c_str());
    throw UsageError(std::string(text) + "; choose smaller sizes or fewer --repeats, or raise --max-minutes (" +
                     std::to_string(max_minutes) + ")");
  }
  if (seconds > kSayEstimateAbove) {
    std::snprintf(text, sizeof text, "estimated %.0f s for %s at this GPU's measured rates", seconds, what.c_str());
    progress(text);
  }
}

}  // namespace csg
