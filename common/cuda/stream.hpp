// Stream and Event: move-only owners of cudaStream_t and cudaEvent_t.
// Functions borrow the raw handle through get().
#pragma once

#include <utility>

#include "cuda/check.hpp"

namespace csg {

class Stream {
 public:
  // cudaStreamDefault is what the article's cudaStreamCreate gives: a blocking
  // stream that synchronises with the legacy default stream.
  explicit Stream(unsigned flags = cudaStreamDefault, int priority = 0) {
    CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, flags, priority));
  }
  ~Stream() { reset(); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    if (this != &other) {
      reset();
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  void reset() noexcept {
    if (stream_ != nullptr) CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(stream_));
    stream_ = nullptr;
  }
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  // cudaEventDefault can be timed; cudaEventDisableTiming is cheaper for
  // pure synchronisation (fork/join) and can't be timed.
  explicit Event(unsigned flags = cudaEventDefault) {
    CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
  }
  ~Event() { reset(); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      reset();
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }

  cudaEvent_t get() const noexcept { return event_; }
  void record(cudaStream_t stream) const { CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { CUDA_CHECK(cudaEventSynchronize(event_)); }

 private:
  void reset() noexcept {
    if (event_ != nullptr) CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_));
    event_ = nullptr;
  }
  cudaEvent_t event_ = nullptr;
};

}  // namespace csg
