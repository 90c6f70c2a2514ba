// HostBuffer<T>: owns host memory of one of the four kinds the article and
// stage 02 compare, and frees it the way its kind needs. Move-only.
//   pageable       an ordinary allocation, like the article's malloc: the OS may
//                  move or swap its pages, so the driver stages every copy.
//   pinned         cudaMallocHost: page-locked, the DMA engines read it directly.
//   registered     an ordinary allocation pinned afterwards with cudaHostRegister.
//   write_combined cudaHostAlloc(cudaHostAllocWriteCombined): pinned, not cached
//                  by the CPU; fast for the GPU to read, very slow for the host to read.
// HostBuffer(count, kind) allocates the two kinds the GEMM stages use
// (pageable, pinned). Stage 02 allocates all four itself, with the calls
// written out in its main.cu, and hands each pointer to an owner:
//   void* ptr = nullptr;
//   CUDA_CHECK(cudaMallocHost(&ptr, bytes));
//   csg::HostBuffer<std::byte> pinned(static_cast<std::byte*>(ptr), bytes, csg::HostMemory::pinned);
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <utility>

#include "cuda/check.hpp"

namespace csg {

enum class HostMemory { pageable, pinned, registered, write_combined };

std::string_view to_string(HostMemory kind);
std::optional<HostMemory> parse_host_memory(std::string_view text);
// Lets GoogleTest and logs print a kind by name.
inline std::ostream& operator<<(std::ostream& out, HostMemory kind) { return out << to_string(kind); }

// True for every kind except pageable: the DMA engines can read it directly.
inline bool is_page_locked(HostMemory kind) { return kind != HostMemory::pageable; }

// Page alignment: cudaHostRegister pins whole pages, and the copy engines
// move page-aligned buffers at full speed.
inline constexpr std::size_t kHostPageBytes = 4096;

// std::aligned_alloc of `bytes` rounded up to whole pages; throws
// std::bad_alloc naming nothing (the caller knows the size) when it fails.
void* page_aligned_alloc(std::size_t bytes);

namespace detail {
// Untyped allocation (pageable and pinned only) and release (every kind).
void* host_allocate(std::size_t bytes, HostMemory kind);
void host_release(void* ptr, HostMemory kind) noexcept;
}  // namespace detail

template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  // Allocates `count` elements of pageable or pinned memory; throws
  // std::invalid_argument for the kinds a caller allocates itself.
  HostBuffer(std::size_t count, HostMemory kind)
      : ptr_(static_cast<T*>(detail::host_allocate(count * sizeof(T), kind))), count_(count), kind_(kind) {}
  // Takes ownership of `count` elements at `ptr`, allocated the way `kind`
  // says (registered: page_aligned_alloc, then cudaHostRegister).
  HostBuffer(T* ptr, std::size_t count, HostMemory kind) noexcept : ptr_(ptr), count_(count), kind_(kind) {}
  ~HostBuffer() { reset(); }

  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  HostBuffer(HostBuffer&& other) noexcept { steal(other); }
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      steal(other);
    }
    return *this;
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  HostMemory kind() const noexcept { return kind_; }
  std::span<T> span() noexcept { return {ptr_, count_}; }
  std::span<const T> span() const noexcept { return {ptr_, count_}; }

  // Gives up ownership without freeing (the caller frees, or hands it on).
  [[nodiscard]] T* release() noexcept {
    count_ = 0;
    return std::exchange(ptr_, nullptr);
  }

  void reset() noexcept {
    if (ptr_ != nullptr) detail::host_release(ptr_, kind_);
    ptr_ = nullptr;
    count_ = 0;
  }

 private:
  void steal(HostBuffer& other) noexcept {
    ptr_ = other.ptr_;
    count_ = other.count_;
    kind_ = other.kind_;
    other.ptr_ = nullptr;
    other.count_ = 0;
  }

  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  HostMemory kind_ = HostMemory::pageable;
};

}  // namespace csg
