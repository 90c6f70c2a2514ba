// Stage 02: pinned vs pageable host memory, the article's "Pinned Memory".
// The copy engines (DMA) read and write only page-locked memory. From
// pageable (malloc) memory the driver first copies the data through a pinned
// staging buffer of its own: the copy is slower, and cudaMemcpyAsync keeps
// the host until it is done. From pinned (cudaMallocHost) memory the copy
// runs at the link's speed and the call returns at once.
//   ./02_pinned_vs_pageable     (4 sizes, 64 KiB to 256 MiB, and one 64 MiB cudaMemcpyAsync; --help for the laboratory)

#include <cstdlib>
#include <cstring>
#include <new>

#include "common.cuh"
#include "lesson.hpp"

namespace {

using namespace csg::lesson02;

// The article's two allocations: the one call that differs between
// pageable and pinned memory. The owner frees each its own way.
csg::HostBuffer<std::byte> allocate_host(csg::HostMemory kind, std::size_t bytes) {
  void* ptr = nullptr;
  if (kind == csg::HostMemory::pageable) {
    ptr = std::malloc(bytes);  // pages the OS may move or swap out: the DMA engines can't use them as they are
    if (ptr == nullptr) throw std::bad_alloc();
  } else {
    CUDA_CHECK(cudaMallocHost(&ptr, bytes));  // page-locked and mapped for the GPU: the DMA engines reach it directly
  }
  return csg::HostBuffer<std::byte>(static_cast<std::byte*>(ptr), bytes, kind);
}

// One kind's host buffers: the source of every H2D copy, holding the bytes,
// and the destination of every D2H copy, zeros until a copy fills it.
struct HostCopies {
  HostCopies(csg::HostMemory kind, std::size_t bytes, std::uint64_t seed)
      : src(allocate_host(kind, bytes)), dst(allocate_host(kind, bytes)) {
    fill_pattern(src.span(), seed);
    std::memset(dst.data(), 0, bytes);  // also makes every page resident before the first copy
  }
  csg::HostBuffer<std::byte> src;
  csg::HostBuffer<std::byte> dst;
};

struct CopyTime {
  csg::Millis copy;  // the copy itself, from events on its stream
  csg::Millis call;  // how long the cudaMemcpyAsync call kept the host
};

// One cudaMemcpyAsync, timed twice: CUDA events on the stream before and
// after it (the copy itself), and the host's clock around the call alone.
CopyTime timed_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind direction, cudaStream_t stream,
                    csg::EventTimer& timer) {
  timer.start(stream);
  const csg::HostTimer host;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, direction, stream));
  const csg::Millis call = host.elapsed();
  return {timer.stop(), call};
}

void keep(bool timed, CopySamples& samples, CopyTime time) {
  if (!timed) return;
  samples.copy.push_back(time.copy);
  samples.call.push_back(time.call);
}

// Every copy of one size, once: each kind, host to device, then back.
void time_copies(SizeFigures& f, HostCopies (&host)[kKindCount], csg::DeviceBuffer<std::byte>& device,
                 cudaStream_t stream, csg::EventTimer& timer, bool timed) {
  for (int k = 0; k < kKindCount; ++k) {
    keep(timed, f.copies[k][0],
         timed_copy(device.data(), host[k].src.data(), f.bytes, cudaMemcpyHostToDevice, stream, timer));
    keep(timed, f.copies[k][1],
         timed_copy(host[k].dst.data(), device.data(), f.bytes, cudaMemcpyDeviceToHost, stream, timer));
  }
}

// What the timed D2H copies left in the destination (the largest reached
// every byte), then one more round trip through a zeroed device buffer into
// a zeroed destination, with the same calls: every byte must come back.
std::string verify(HostCopies& host, csg::DeviceBuffer<std::byte>& device, cudaStream_t stream,
                   std::uint64_t seed) {
  const std::string left = pattern_mismatch(host.dst.span(), seed);
  if (!left.empty()) return "after the timed copies, " + left;
  const std::size_t bytes = device.bytes();
  CUDA_CHECK(cudaMemsetAsync(device.data(), 0, bytes, stream));
  CUDA_CHECK(cudaMemcpyAsync(device.data(), host.src.data(), bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::memset(host.dst.data(), 0, bytes);
  CUDA_CHECK(cudaMemcpyAsync(host.dst.data(), device.data(), bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::string back = pattern_mismatch(host.dst.span(), seed);
  return back.empty() ? "" : "after a round trip, " + back;
}

// The lesson: check the device and the size, allocate both kinds, time every
// copy in rounds, check every byte, report.
int lesson(const Options& options) {
  csg::require_device();
  check_size(options);

  // Each kind's buffers, and one on the device, at the largest size: every
  // copy moves the first `bytes` of them.
  const std::size_t bytes = options.buffer_bytes();
  HostCopies host[kKindCount] = {{kKinds[0], bytes, options.seed}, {kKinds[1], bytes, options.seed}};
  csg::DeviceBuffer<std::byte> device(bytes);
  csg::Stream stream;  // the article's cudaStreamCreate
  csg::EventTimer timer;

  // Every copy once per round, so a slow moment of the machine hits both
  // kinds alike; the warm-up rounds are not kept.
  Figures f;
  for (const std::size_t size : options.sizes) f.sweep.push_back({size, {}});
  f.async.bytes = options.async_bytes;
  for (int round = 0; round < options.rounds(); ++round) {
    const bool timed = round >= options.warmup;
    for (SizeFigures& size : f.sweep) time_copies(size, host, device, stream.get(), timer, timed);
    time_copies(f.async, host, device, stream.get(), timer, timed);
    csg::round_done(round, options.rounds());
  }
  for (int k = 0; k < kKindCount; ++k) f.checks[k] = verify(host[k], device, stream.get(), options.seed);
  return report(options, f) ? csg::kExitOk : csg::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) { return csg::run_stage(kStage, argc, argv, laboratory(), parse_options, lesson); }
