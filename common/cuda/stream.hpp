// Stream, Event and StreamPool: move-only owners of cudaStream_t and
// cudaEvent_t. Functions borrow the raw handles (get(), operator[]). The
// owners create and destroy; the calls the article teaches (cudaEventRecord,
// cudaStreamWaitEvent, cudaMemcpyAsync, the launches) are written by the
// stages themselves.
#pragma once

#include <cstddef>
#include <vector>

#include "cuda/handle.hpp"

namespace csg {

class Stream : public UniqueHandle<StreamTraits> {
 public:
  // cudaStreamDefault is what the article's cudaStreamCreate gives: a blocking
  // stream that synchronises with the legacy default stream. Priority: lower
  // numbers run first (the H200 offers 0 down to -5), kernels only.
  explicit Stream(unsigned flags = cudaStreamDefault, int priority = 0) : UniqueHandle(create(flags, priority)) {}

 private:
  static cudaStream_t create(unsigned flags, int priority) {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithPriority(&stream, flags, priority));
    return stream;
  }
};

class Event : public UniqueHandle<EventTraits> {
 public:
  // cudaEventDefault can be timed; cudaEventDisableTiming is cheaper for
  // pure ordering (fork/join) and can't be timed.
  explicit Event(unsigned flags = cudaEventDefault) : UniqueHandle(create(flags)) {}

 private:
  static cudaEvent_t create(unsigned flags) {
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&event, flags));
    return event;
  }
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
