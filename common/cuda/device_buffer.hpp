// DeviceBuffer<T>: owns one cudaMalloc allocation of `count` elements.
// Move-only; the destructor frees. Stage code never calls cudaMalloc/cudaFree.
#pragma once

#include <cstddef>
#include <utility>

#include "cuda/check.hpp"
#include "base/units.hpp"

namespace csg {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    const cudaError_t status = cudaMalloc(&ptr_, bytes());
    if (status != cudaSuccess) {
      ptr_ = nullptr;
      const std::string call = "cudaMalloc of " + format_bytes(bytes());
      throw_cuda_error(status, call.c_str(), __FILE__, __LINE__);
    }
  }
  ~DeviceBuffer() { reset(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  void reset() noexcept {
    if (ptr_ != nullptr) CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
    ptr_ = nullptr;
    count_ = 0;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace csg
