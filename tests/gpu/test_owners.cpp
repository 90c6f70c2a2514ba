// The owners really own: host kinds are really pinned or not, memory is freed
// on destruction, moves transfer ownership, graphs capture what was issued.
#include <algorithm>
#include <cstring>
#include <vector>

#include "owners.hpp"
#include "workload/gemm.hpp"
#include "gpu_test.hpp"
#include "host_memory_kinds.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"

namespace csg {
namespace gpu_owners {

using testing::memory_type;

// Each kind as its owner expects it: HostBuffer allocates pageable and pinned
// memory itself; registered and write-combined memory come from the caller
// (stage 02's main.cu writes those calls) and are handed over.
HostBuffer<float> allocate(std::size_t count, HostMemory kind) {
  if (kind == HostMemory::pageable || kind == HostMemory::pinned) return HostBuffer<float>(count, kind);
  return HostBuffer<float>(static_cast<float*>(testing::allocate_host(kind, count * sizeof(float))), count, kind);
}

class HostBufferTest : public testing::GpuTest, public ::testing::WithParamInterface<HostMemory> {};

TEST_P(HostBufferTest, IsPinnedExactlyWhenItsKindSaysAndIsReleased) {
  const HostMemory kind = GetParam();
  HostBuffer<float> buffer = allocate(1 << 20, kind);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.kind(), kind);
  EXPECT_EQ(buffer.bytes(), std::size_t{4} << 20);
  const void* ptr = buffer.data();
  EXPECT_EQ(memory_type(ptr), is_page_locked(kind) ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered)
      << to_string(kind);
  if (kind != HostMemory::write_combined) {  // the host must not read write-combined memory
    buffer.data()[0] = 1.0f;
    buffer.data()[buffer.size() - 1] = 2.0f;
    EXPECT_EQ(buffer.data()[buffer.size() - 1], 2.0f);
  }
  buffer.reset();
  EXPECT_EQ(buffer.data(), nullptr);
  if (is_page_locked(kind)) {
    // Unpinned (cudaFreeHost / cudaHostUnregister ran): CUDA no longer knows the range.
    EXPECT_EQ(memory_type(ptr), cudaMemoryTypeUnregistered) << to_string(kind);
  }
}

TEST_P(HostBufferTest, CopiesRoundTripBitExact) {
  const HostMemory kind = GetParam();
  constexpr std::size_t count = 1 << 16;
  HostBuffer<float> source(count, HostMemory::pageable);
  for (std::size_t i = 0; i < count; ++i) source.data()[i] = float(i % 977) * 0.5f;
  HostBuffer<float> staged = allocate(count, kind);
  std::copy_n(source.data(), count, staged.data());  // write-combined is fine to write
  DeviceBuffer<float> device(count);
  CUDA_CHECK(cudaMemcpy(device.data(), staged.data(), staged.bytes(), cudaMemcpyHostToDevice));
  HostBuffer<float> back(count, HostMemory::pinned);
  CUDA_CHECK(cudaMemcpy(back.data(), device.data(), device.bytes(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::memcmp(back.data(), source.data(), source.bytes()), 0) << to_string(kind);
}

std::string kind_name(const ::testing::TestParamInfo<HostMemory>& info) {
  std::string name(to_string(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Kinds, HostBufferTest,
                         ::testing::Values(HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                                           HostMemory::write_combined),
                         kind_name);

class OwnersTest : public testing::GpuTest {};

TEST_F(OwnersTest, HostBufferMoveTransfersOwnership) {
  HostBuffer<float> first(1000, HostMemory::pinned);
  float* const ptr = first.data();
  HostBuffer<float> second(std::move(first));
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(first.size(), 0u);
  EXPECT_EQ(second.data(), ptr);
  EXPECT_EQ(second.size(), 1000u);
  EXPECT_EQ(second.kind(), HostMemory::pinned);

  HostBuffer<float> third(10, HostMemory::pinned);
  float* const old = third.data();
  third = std::move(second);  // frees what `third` held
  EXPECT_EQ(third.data(), ptr);
  EXPECT_EQ(memory_type(old), cudaMemoryTypeUnregistered);
  EXPECT_EQ(memory_type(ptr), cudaMemoryTypeHost);
}

TEST_F(OwnersTest, DeviceBufferIsDeviceMemoryFreedOnDestruction) {
  constexpr std::size_t count = std::size_t{64} << 20;  // 256 MiB: visible in cudaMemGetInfo
  constexpr std::size_t bytes = count * sizeof(float);
  constexpr std::size_t slack = std::size_t{8} << 20;
  // cudaMemGetInfo counts the whole device, and ctest runs other GPU tests
  // beside this one: their contexts (hundreds of MiB each) come and go at any
  // moment. So each half is judged on its own step, microseconds apart: the
  // free memory fell by the buffer when it was made, and rose by it when it
  // was destroyed. Another process can spoil one step of one attempt, not
  // all twenty.
  bool allocated = false, freed = false;
  for (int attempt = 0; attempt < 20 && !(allocated && freed); ++attempt) {
    std::size_t free_before = 0, free_during = 0, free_after = 0, total = 0;
    const void* ptr = nullptr;
    CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
    {
      DeviceBuffer<float> buffer(count);
      CUDA_CHECK(cudaMemGetInfo(&free_during, &total));
      ptr = buffer.data();
      EXPECT_EQ(memory_type(ptr), cudaMemoryTypeDevice);
      EXPECT_EQ(buffer.bytes(), bytes);
    }
    CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
    EXPECT_EQ(memory_type(ptr), cudaMemoryTypeUnregistered);
    // Within the slack of the buffer's size (the allocator rounds up to its pages).
    auto about_the_buffer = [&](std::size_t from, std::size_t to) {
      return from > to && from - to + slack >= bytes && from - to <= bytes + slack;
    };
    allocated = allocated || about_the_buffer(free_before, free_during);
    freed = freed || about_the_buffer(free_after, free_during);
  }
  EXPECT_TRUE(allocated) << "the buffer never showed in cudaMemGetInfo";
  EXPECT_TRUE(freed) << "the memory was not given back";
}

TEST_F(OwnersTest, DeviceBufferMoveTransfersOwnership) {
  DeviceBuffer<float> first(256);
  float* const ptr = first.data();
  DeviceBuffer<float> second(std::move(first));
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(second.data(), ptr);
  DeviceBuffer<float> third(16);
  float* const old = third.data();
  third = std::move(second);
  EXPECT_EQ(third.data(), ptr);
  EXPECT_EQ(third.size(), 256u);
  EXPECT_EQ(memory_type(old), cudaMemoryTypeUnregistered);
}

TEST_F(OwnersTest, AnImpossibleAllocationNamesItsSize) {
  try {
    DeviceBuffer<float> huge(std::size_t{1} << 50);  // 4 PiB
    FAIL() << "allocated 4 PiB";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorMemoryAllocation);
    EXPECT_NE(std::string(error.what()).find("cudaMalloc of 4194304.00 GiB"), std::string::npos) << error.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(OwnersTest, StreamAndEventMove) {
  Stream first;
  const cudaStream_t handle = first.get();
  Stream second(std::move(first));
  EXPECT_EQ(first.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(second.get(), handle);
  EXPECT_EQ(cudaStreamQuery(second.get()), cudaSuccess);
  Event event;
  CUDA_CHECK(cudaEventRecord(event.get(), second.get()));
  Event moved(std::move(event));
  EXPECT_EQ(event.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  CUDA_CHECK(cudaEventSynchronize(moved.get()));
  EXPECT_EQ(cudaEventQuery(moved.get()), cudaSuccess);
}

TEST_F(OwnersTest, CapturedGraphReplaysTheKernel) {
  Workload work;
  work.batches = 1;
  work.shape = GemmShape{8, 8, 8};
  std::vector<float> a(work.a_elems()), b(work.b_elems());
  fill_inputs(work, 5, a, b);
  DeviceBuffer<float> d_a(a.size()), d_b(b.size()), d_c(work.c_elems());
  CUDA_CHECK(cudaMemcpy(d_a.data(), a.data(), work.a_bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b.data(), b.data(), work.b_bytes(), cudaMemcpyHostToDevice));
  Stream stream;
  CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  launch_gemm_naive(d_a.data(), d_b.data(), d_c.data(), work.shape, stream.get());
  const Graph graph = end_capture(stream.get());
  EXPECT_EQ(graph.node_count(), 1u);
  EXPECT_EQ(graph.edge_count(), 0u);
  const GraphExec exec = GraphExec::instantiate(graph);
  poison_device(d_c.data(), d_c.size(), stream.get());
  CUDA_CHECK(cudaGraphLaunch(exec.get(), stream.get()));
  CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  std::vector<float> c(work.c_elems());
  CUDA_CHECK(cudaMemcpy(c.data(), d_c.data(), work.c_bytes(), cudaMemcpyDeviceToHost));
  for (int j = 0; j < 8; ++j) {
    float expected = 0.0f;
    for (int p = 0; p < 8; ++p) expected += a[std::size_t(p)] * b[std::size_t(p) * 8 + j];
    EXPECT_EQ(c[std::size_t(j)], expected) << "C[0][" << j << "]";
  }
}

TEST_F(OwnersTest, AnUnjoinedForkFailsTheCaptureAndLeavesNothingCapturing) {
  Stream origin, side;
  Event fork_event(cudaEventDisableTiming);
  DeviceBuffer<float> d(64);
  CUDA_CHECK(cudaStreamBeginCapture(origin.get(), cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaEventRecord(fork_event.get(), origin.get()));
  CUDA_CHECK(cudaStreamWaitEvent(side.get(), fork_event.get(), 0));  // side joins the capture
  poison_device(d.data(), d.size(), side.get());                      // work on the fork, never joined
  try {
    static_cast<void>(end_capture(origin.get()));
    FAIL() << "a capture with an unjoined fork ended without error";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorStreamCaptureUnjoined) << error.what();
  }
  cudaStreamCaptureStatus status{};
  CUDA_CHECK(cudaStreamIsCapturing(origin.get(), &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  CUDA_CHECK(cudaStreamIsCapturing(side.get(), &status));
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  // And the same streams capture again.
  CUDA_CHECK(cudaStreamBeginCapture(origin.get(), cudaStreamCaptureModeGlobal));
  poison_device(d.data(), d.size(), origin.get());
  const Graph graph = end_capture(origin.get());
  EXPECT_EQ(graph.node_count(), 1u);
}

TEST_F(OwnersTest, HostBufferAllocatesOnlyTheKindsItCanFreeTheSameWay) {
  // Write-combined memory needs the caller's own calls; registered memory is
  // malloc'd and registered, and the device sees it as host memory.
  EXPECT_THROW(HostBuffer<float>(16, HostMemory::write_combined), std::invalid_argument);
  {
    const HostBuffer<float> registered(16, HostMemory::registered);
    ASSERT_NE(registered.data(), nullptr);
    EXPECT_EQ(memory_type(registered.data()), cudaMemoryTypeHost) << "registered with cudaHostRegister";
  }
  HostBuffer<float> pinned(16, HostMemory::pinned);
  float* const ptr = pinned.release();
  EXPECT_EQ(pinned.data(), nullptr);
  EXPECT_EQ(memory_type(ptr), cudaMemoryTypeHost) << "release() must not free";
  const HostBuffer<float> owner(ptr, 16, HostMemory::pinned);  // handed on, freed once
  EXPECT_EQ(owner.data(), ptr);
}

}  // namespace gpu_owners
}  // namespace csg
