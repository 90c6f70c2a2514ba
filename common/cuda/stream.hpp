// Stream, Event and StreamPool: move-only owners of cudaStream_t and
// cudaEvent_t. Functions borrow the raw handles (get(), operator[]). The
// owners create and destroy; the calls the article teaches (cudaEventRecord,
// cudaStreamWaitEvent, cudaMemcpyAsync, the launches) are written by the
// stages themselves.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/check.hpp"

namespace csg {

class Stream {
 public:
  // cudaStreamDefault is what the article's cudaStreamCreate gives: a blocking
  // stream that synchronises with the legacy default stream. Priority: lower
  // numbers run first (the H200 offers 0 down to -5), kernels only.
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
  // pure ordering (fork/join) and can't be timed.
  explicit Event(unsigned flags = cudaEventDefault) { CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
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

 private:
  void reset() noexcept {
    if (event_ != nullptr) CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_));
    event_ = nullptr;
  }
  cudaEvent_t event_ = nullptr;
};

// The article's stream pool: `size` streams, plus the events its fork/join
// pattern records (one fork event, one join event per stream). Batch i runs on
// stream i % size, so the batches sharing a stream run in order and may share
// one device slot (BatchBuffers). The events only order work: never timed.
class StreamPool {
 public:
  explicit StreamPool(int size, unsigned stream_flags = cudaStreamDefault, int priority = 0);

  int size() const noexcept { return static_cast<int>(streams_.size()); }
  cudaStream_t operator[](int index) const { return streams_.at(static_cast<std::size_t>(index)).get(); }
  // The stream the article gives batch `batch`.
  cudaStream_t for_batch(int batch) const { return (*this)[batch % size()]; }
  cudaEvent_t fork_event() const noexcept { return fork_event_.get(); }
  cudaEvent_t join_event(int index) const { return join_events_.at(static_cast<std::size_t>(index)).get(); }
  // Every stream but the first: what a fork starts and a join waits for.
  std::vector<cudaStream_t> others() const;

 private:
  std::vector<Stream> streams_;
  Event fork_event_{cudaEventDisableTiming};
  std::vector<Event> join_events_;
};

}  // namespace csg
