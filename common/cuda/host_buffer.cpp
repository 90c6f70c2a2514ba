#include "cuda/host_buffer.hpp"

#include <cstdlib>
#include <new>

#include "base/units.hpp"

namespace csg {
namespace {

// Page alignment: cudaHostRegister pins whole pages, and the copy engines
// move page-aligned buffers at full speed.
constexpr std::size_t kPageBytes = 4096;

void* page_aligned_alloc(std::size_t bytes) {
  const std::size_t rounded = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
  void* ptr = std::aligned_alloc(kPageBytes, rounded);
  if (ptr == nullptr) {
    throw std::runtime_error("host allocation of " + format_bytes(bytes) + " (pageable) failed");
  }
  return ptr;
}

[[noreturn]] void throw_allocation_error(cudaError_t status, const char* call, std::size_t bytes,
                                         HostMemory kind, int line) {
  const std::string what = std::string(call) + " of " + format_bytes(bytes) + " (" +
                           std::string(to_string(kind)) + ")";
  throw_cuda_error(status, what.c_str(), __FILE__, line);
}

}  // namespace

std::string_view to_string(HostMemory kind) {
  switch (kind) {
    case HostMemory::pageable: return "pageable";
    case HostMemory::pinned: return "pinned";
    case HostMemory::registered: return "registered";
    case HostMemory::write_combined: return "write-combined";
  }
  return "unknown";
}

std::optional<HostMemory> parse_host_memory(std::string_view text) {
  for (HostMemory kind : {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                          HostMemory::write_combined}) {
    if (text == to_string(kind)) return kind;
  }
  return std::nullopt;
}

namespace detail {

void* host_allocate(std::size_t bytes, HostMemory kind) {
  if (bytes == 0) return nullptr;
  void* ptr = nullptr;
  switch (kind) {
    case HostMemory::pageable:
      return page_aligned_alloc(bytes);
    case HostMemory::pinned: {
      const cudaError_t status = cudaMallocHost(&ptr, bytes);
      if (status != cudaSuccess) throw_allocation_error(status, "cudaMallocHost", bytes, kind, __LINE__);
      return ptr;
    }
    case HostMemory::registered: {
      ptr = page_aligned_alloc(bytes);
      const cudaError_t status = cudaHostRegister(ptr, bytes, cudaHostRegisterDefault);
      if (status != cudaSuccess) {
        std::free(ptr);
        throw_allocation_error(status, "cudaHostRegister", bytes, kind, __LINE__);
      }
      return ptr;
    }
    case HostMemory::write_combined: {
      const cudaError_t status = cudaHostAlloc(&ptr, bytes, cudaHostAllocWriteCombined);
      if (status != cudaSuccess) throw_allocation_error(status, "cudaHostAlloc(WriteCombined)", bytes, kind, __LINE__);
      return ptr;
    }
  }
  throw std::logic_error("unknown host memory kind");
}

void host_release(void* ptr, HostMemory kind) noexcept {
  switch (kind) {
    case HostMemory::pageable:
      std::free(ptr);
      return;
    case HostMemory::pinned:
    case HostMemory::write_combined:
      CUDA_CHECK_NOEXCEPT(cudaFreeHost(ptr));
      return;
    case HostMemory::registered:
      CUDA_CHECK_NOEXCEPT(cudaHostUnregister(ptr));
      std::free(ptr);
      return;
  }
}

}  // namespace detail
}  // namespace csg
