// HostBuffer<T>: owns host memory of one of the four kinds the article and
// stage 02 compare. Move-only; the destructor frees the way the kind needs.
//   pageable       std::aligned_alloc, like the article's malloc: the OS may
//                  move or swap its pages, so the driver stages every copy.
//   pinned         cudaMallocHost: page-locked, the DMA engines read it directly.
//   registered     an ordinary allocation pinned afterwards with cudaHostRegister.
//   write_combined cudaHostAlloc(cudaHostAllocWriteCombined): pinned, not cached
//                  by the CPU; fast for the GPU to read, very slow for the host to read.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "cuda/check.hpp"

namespace csg {

enum class HostMemory { pageable, pinned, registered, write_combined };

std::string_view to_string(HostMemory kind);
std::optional<HostMemory> parse_host_memory(std::string_view text);
// Lets GoogleTest and logs print a kind by name.
inline std::ostream& operator<<(std::ostream& out, HostMemory kind) { return out << to_string(kind); }

// True for every kind except pageable: the DMA engines can read it directly.
inline bool is_page_locked(HostMemory kind) { return kind != HostMemory::pageable; }

namespace detail {
// Untyped allocation and release; the typed wrapper below is all callers see.
void* host_allocate(std::size_t bytes, HostMemory kind);
void host_release(void* ptr, HostMemory kind) noexcept;
}  // namespace detail

template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t count, HostMemory kind)
      : ptr_(static_cast<T*>(detail::host_allocate(count * sizeof(T), kind))),
        count_(count),
        kind_(kind) {}
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
