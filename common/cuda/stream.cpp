#include "cuda/stream.hpp"

#include <stdexcept>

namespace csg {

StreamPool::StreamPool(int size, unsigned stream_flags, int priority) {
  if (size < 1) throw std::invalid_argument("StreamPool needs at least one stream");
  streams_.reserve(static_cast<std::size_t>(size));
  join_events_.reserve(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    streams_.emplace_back(stream_flags, priority);
    join_events_.emplace_back(cudaEventDisableTiming);
  }
}

std::vector<cudaStream_t> StreamPool::others() const {
  std::vector<cudaStream_t> rest;
  for (std::size_t i = 1; i < streams_.size(); ++i) rest.push_back(streams_[i].get());
  return rest;
}

}  // namespace csg
