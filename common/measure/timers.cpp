#include "measure/timers.hpp"

#include <stdexcept>

namespace csg {

Millis elapsed_between(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return Millis(static_cast<double>(ms));
}

void EventTimer::ensure_events(std::size_t streams) {
  while (ends_.size() < streams) ends_.emplace_back(cudaEventDefault);
}

void EventTimer::start(cudaStream_t first, std::initializer_list<cudaStream_t> others) {
  start(first, std::vector<cudaStream_t>(others));
}

void EventTimer::start(cudaStream_t first, const std::vector<cudaStream_t>& others) {
  streams_.assign(1, first);
  streams_.insert(streams_.end(), others.begin(), others.end());
  if (!others.empty()) ensure_events(streams_.size());
  CUDA_CHECK(cudaEventRecord(start_.get(), first));
  for (cudaStream_t other : others) CUDA_CHECK(cudaStreamWaitEvent(other, start_.get(), 0));
}

Millis EventTimer::stop() {
  if (streams_.empty()) throw std::logic_error("EventTimer::stop() without start()");
  const cudaStream_t first = streams_.front();
  if (streams_.size() > 1) {
    for (std::size_t i = 0; i < streams_.size(); ++i) CUDA_CHECK(cudaEventRecord(ends_[i].get(), streams_[i]));
    for (std::size_t i = 1; i < streams_.size(); ++i) CUDA_CHECK(cudaStreamWaitEvent(first, ends_[i].get(), 0));
  }
  CUDA_CHECK(cudaEventRecord(stop_.get(), first));
  CUDA_CHECK(cudaEventSynchronize(stop_.get()));
  return elapsed_between(start_.get(), stop_.get());
}

Millis EventTimer::end_of(std::size_t index) const {
  if (streams_.size() == 1 && index == 0) return elapsed_between(start_.get(), stop_.get());
  if (index >= streams_.size()) throw std::out_of_range("EventTimer::end_of: no such stream");
  return elapsed_between(start_.get(), ends_[index].get());
}

}  // namespace csg
