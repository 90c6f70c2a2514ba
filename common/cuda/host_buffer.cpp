#include "cuda/host_buffer.hpp"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "base/units.hpp"

namespace csg {

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

void* page_aligned_alloc(std::size_t bytes) {
  const std::size_t rounded = (bytes + kHostPageBytes - 1) / kHostPageBytes * kHostPageBytes;
  void* ptr = std::aligned_alloc(kHostPageBytes, rounded);
  if (ptr == nullptr) throw std::bad_alloc();
  return ptr;
}

namespace detail {

void* host_allocate(std::size_t bytes, HostMemory kind) {
  if (bytes == 0) return nullptr;
  switch (kind) {
    case HostMemory::pageable:
      try {
        return page_aligned_alloc(bytes);
      } catch (const std::bad_alloc&) {
        throw std::runtime_error("host allocation of " + format_bytes(bytes) + " (pageable) failed");
      }
    case HostMemory::pinned: {
      void* ptr = nullptr;
      const cudaError_t status = cudaMallocHost(&ptr, bytes);
      if (status != cudaSuccess) {
        const std::string what = "cudaMallocHost of " + format_bytes(bytes) + " (pinned)";
        throw_cuda_error(status, what.c_str(), __FILE__, __LINE__);
      }
      return ptr;
    }
    case HostMemory::registered:
    case HostMemory::write_combined:
      break;
  }
  throw std::invalid_argument("HostBuffer allocates pageable and pinned memory; allocate " +
                              std::string(to_string(kind)) + " memory yourself and hand the pointer over");
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
