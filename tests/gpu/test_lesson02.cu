// Stage 02's lesson, through the functions its main.cu defines: the test
// compiles main.cu itself (its main renamed), so it calls the very copies a
// learner reads, never a copy of them.
#define main stage02_lesson_main
#include "02_pinned_vs_pageable/main.cu"
#undef main

#include "gpu_test.hpp"
#include "lesson_timing.hpp"

namespace {

class Lesson02 : public csg::testing::GpuTest {};

// The lesson's two allocations are the kinds they claim: what the driver
// reports, not only what the owner was told.
TEST_F(Lesson02, MallocIsPageableAndCudaMallocHostPinned) {
  for (const csg::HostMemory kind : kKinds) {
    csg::HostBuffer<std::byte> buffer = allocate_host(kind, 4099);
    cudaPointerAttributes attributes{};
    CUDA_CHECK(cudaPointerGetAttributes(&attributes, buffer.data()));
    EXPECT_EQ(attributes.type, kind == csg::HostMemory::pageable ? cudaMemoryTypeUnregistered : cudaMemoryTypeHost)
        << csg::to_string(kind);
  }
}

// One round of copies at an odd size moves every byte: each kind's
// destination then holds the source's bytes, and the round trip agrees.
TEST_F(Lesson02, TheCopiesMoveEveryByteOfEveryKind) {
  constexpr std::size_t kBytes = (std::size_t{1} << 20) + 13;  // no multiple of 8 nor of a page
  HostCopies host[kKindCount] = {{kKinds[0], kBytes, 7}, {kKinds[1], kBytes, 7}};
  csg::DeviceBuffer<std::byte> device(kBytes);
  csg::Stream stream;
  csg::EventTimer timer;
  SizeFigures f{kBytes, {}};
  time_copies(f, host, device, stream.get(), timer, /*timed=*/true);
  for (int k = 0; k < kKindCount; ++k) {
    for (int d = 0; d < kDirectionCount; ++d) {
      ASSERT_EQ(f.copies[k][d].copy.size(), 1U);
      ASSERT_EQ(f.copies[k][d].call.size(), 1U);
      EXPECT_GT(f.copies[k][d].copy.front().count(), 0.0);
      EXPECT_GT(f.copies[k][d].call.front().count(), 0.0);  // both clocks, for every copy
    }
    EXPECT_EQ(verify(host[k], device, stream.get(), 7), "") << csg::to_string(kKinds[k]);
  }
}

// The check can fail: before any copy the destination holds zeros, and
// verify names the first byte; a partial copy leaves the tail unreached.
TEST_F(Lesson02, ADestinationNoCopyReachedFails) {
  constexpr std::size_t kBytes = 8192;
  HostCopies host(csg::HostMemory::pinned, kBytes, 7);
  csg::DeviceBuffer<std::byte> device(kBytes);
  csg::Stream stream;
  const std::string untouched = verify(host, device, stream.get(), 7);
  EXPECT_NE(untouched.find("after the timed copies, byte 0 of 8 KiB"), std::string::npos) << untouched;
  // Only the first half copied there and back: the second half is still zeros.
  std::memset(host.dst.data(), 0, kBytes);
  CUDA_CHECK(cudaMemcpy(device.data(), host.src.data(), kBytes / 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(host.dst.data(), device.data(), kBytes / 2, cudaMemcpyDeviceToHost));
  const std::string tail = verify(host, device, stream.get(), 7);
  EXPECT_NE(tail.find("after the timed copies, byte 4096 of 8 KiB"), std::string::npos) << tail;
}

// The call's host time is the cudaMemcpyAsync call itself: a pageable copy
// of 32 MiB holds the host for most of the copy (the lesson's point), so a
// host timer started after the call returned would read microseconds
// against milliseconds.
TEST_F(Lesson02, TheCallsHostTimeCoversTheCall) {
  constexpr std::size_t kBytes = std::size_t{32} << 20;
  HostCopies host(csg::HostMemory::pageable, kBytes, 3);
  csg::DeviceBuffer<std::byte> device(kBytes);
  csg::Stream stream;
  csg::EventTimer timer;
  csg::testing::expect_same_timing(
      "the call's host time",
      [&] {
        return timed_copy(device.data(), host.src.data(), kBytes, cudaMemcpyHostToDevice, stream.get(), timer).call;
      },
      [&] {
        const csg::HostTimer clock;
        CUDA_CHECK(cudaMemcpyAsync(device.data(), host.src.data(), kBytes, cudaMemcpyHostToDevice, stream.get()));
        const csg::Millis call = clock.elapsed();
        CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        return call;
      },
      5);
}

}  // namespace
