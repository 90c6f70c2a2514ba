// StreamPool: the laboratory's pool of streams, with the events of the
// article's fork/join, and the one fork and the one join every laboratory
// run uses. (The lessons write their pool, fork and join out in main.cu.)
// Batch i runs on stream i % size, so the batches sharing a stream run in
// order and may share one device slot (BatchBuffers).
#pragma once

#include <cstddef>
#include <vector>

#include "owners.hpp"

namespace csg {

class StreamPool {
 public:
  // The article's cudaStreamCreate gives blocking streams (cudaStreamDefault).
  explicit StreamPool(int size, unsigned stream_flags = cudaStreamDefault, int priority = 0);

  int size() const noexcept { return static_cast<int>(streams_.size()); }
  cudaStream_t operator[](int index) const { return streams_.at(static_cast<std::size_t>(index)).get(); }
  // The stream the article gives batch `batch`.
  cudaStream_t for_batch(int batch) const { return (*this)[batch % size()]; }
  cudaEvent_t fork_event() const noexcept { return fork_event_.get(); }
  cudaEvent_t join_event(int index) const { return join_events_.at(static_cast<std::size_t>(index)).get(); }

 private:
  std::vector<Stream> streams_;
  Event fork_event_{cudaEventDisableTiming};
  std::vector<Event> join_events_;
};

// Fork: stream 0 records the fork event and every other stream waits on it,
// so their work starts after everything queued on stream 0 so far (in a
// capture, this is what brings the other streams into it).
void fork(const StreamPool& pool);
// Join: every other stream records its join event and stream 0 waits on
// them all, so what is queued on stream 0 next waits for every stream (a
// capture can only end once every stream it forked is joined back).
void join(const StreamPool& pool);

}  // namespace csg
