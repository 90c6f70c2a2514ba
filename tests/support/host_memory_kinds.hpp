// The GPU tests' own way to get host memory of each kind, with the CUDA calls
// written out (the stages' ways are in their main.cu files, which the tests
// check against these), and how CUDA sees a pointer.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "check.hpp"
#include "owners.hpp"

namespace csg::testing {

// What CUDA knows of `ptr`: cudaMemoryTypeHost for page-locked host memory,
// cudaMemoryTypeUnregistered for ordinary memory, cudaMemoryTypeDevice.
inline cudaMemoryType memory_type(const void* ptr) {
  cudaPointerAttributes attributes{};
  CUDA_CHECK(cudaPointerGetAttributes(&attributes, ptr));
  return attributes.type;
}

// `bytes` of host memory of `kind`, allocated the way HostBuffer's
// (ptr, count, kind) constructor expects it, for the owner to free.
inline void* allocate_host(HostMemory kind, std::size_t bytes) {
  void* ptr = nullptr;
  switch (kind) {
    case HostMemory::pageable:
      ptr = page_aligned_alloc(bytes);
      break;
    case HostMemory::pinned:
      CUDA_CHECK(cudaMallocHost(&ptr, bytes));
      break;
    case HostMemory::registered:
      ptr = page_aligned_alloc(bytes);
      CUDA_CHECK(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
      break;
    case HostMemory::write_combined:
      CUDA_CHECK(cudaHostAlloc(&ptr, bytes, cudaHostAllocWriteCombined));
      break;
  }
  return ptr;
}

}  // namespace csg::testing
