#include "timeline/op_scope.hpp"

#include <stdexcept>
#include <string>

#include "measure/timers.hpp"

namespace csg {

EventPairLog::EventPairLog(int capacity) {
  if (capacity < 0) throw std::invalid_argument("EventPairLog needs a capacity >= 0");
  const auto count = static_cast<std::size_t>(capacity);
  // cudaEventDefault: timed events (cudaEventDisableTiming ones can't be read).
  starts_.reserve(count);
  ends_.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    starts_.emplace_back(cudaEventDefault);
    ends_.emplace_back(cudaEventDefault);
  }
  slots_.resize(count);
}

EventPairLog::~EventPairLog() {
  // An activation outliving its log would leave OpScope a dangling pointer.
  if (active_ == this) active_ = nullptr;
}

int EventPairLog::open(OpKind kind, int batch, cudaStream_t stream, double bytes) {
  const int slot = issued_++;
  if (slot >= capacity()) return -1;  // counted, not timed: read() reports the overflow
  CUDA_CHECK(cudaEventRecord(starts_[static_cast<std::size_t>(slot)].get(), stream));
  slots_[static_cast<std::size_t>(slot)] = {
      .kind = kind, .batch = batch, .stream = stream, .bytes = bytes, .started = true, .ended = false};
  return slot;
}

void EventPairLog::close(int slot) noexcept {
  if (slot < 0 || slot >= capacity()) return;
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  const cudaError_t status = cudaEventRecord(ends_[static_cast<std::size_t>(slot)].get(), s.stream);
  CUDA_CHECK_NOEXCEPT(status);
  s.ended = status == cudaSuccess;
}

std::vector<LoggedOp> EventPairLog::read() const {
  if (active_ == this) throw std::logic_error("EventPairLog::read() while the log is still active");
  if (!based_) throw std::logic_error("EventPairLog::read() on a log that was never activated");
  if (overflowed()) {
    throw std::logic_error("the timeline run issued " + std::to_string(issued_) +
                           " timed operations, more than the " + std::to_string(capacity()) +
                           " the event-pair log was made for (3 per batch: H2D, kernel, D2H)");
  }
  // Every event must have completed before it can be read.
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<LoggedOp> ops;
  ops.reserve(static_cast<std::size_t>(issued_));
  for (int slot = 0; slot < issued_; ++slot) {
    const auto i = static_cast<std::size_t>(slot);
    const Slot& s = slots_[i];
    if (!s.started || !s.ended) {
      throw std::logic_error("operation " + std::to_string(slot) + " of the event-pair log was opened but " +
                             (s.started ? "its end event was not recorded" : "its start event was not recorded"));
    }
    ops.push_back({.kind = s.kind,
                   .batch = s.batch,
                   .stream = s.stream,
                   .bytes = s.bytes,
                   .start_ms = elapsed_between(base_, starts_[i]).count(),
                   .end_ms = elapsed_between(base_, ends_[i]).count()});
  }
  return ops;
}

EventLogActivation::EventLogActivation(EventPairLog& log) : log_(&log) {
  if (EventPairLog::active_ != nullptr) throw std::logic_error("another EventPairLog is already active");
  log.issued_ = 0;
  for (EventPairLog::Slot& slot : log.slots_) slot = {};
  // The base event: every op is timed as cudaEventElapsedTime(base, ...), so
  // the base must complete before any op's start event does, on any stream.
  //  - One record on the legacy default stream orders it before later work
  //    only on BLOCKING streams; stage 02's streams are non-blocking.
  //  - One record per plan stream is not possible with one event (a second
  //    cudaEventRecord replaces the first), and stage 01's stream IS the
  //    legacy default stream.
  // So: record it on the legacy default stream and wait until it has
  // completed. Every op is enqueued after that wait returns, so its start
  // event completes later on the GPU's one clock, whatever its stream. The
  // wait costs µs, once, outside any timed run (the timeline run follows a
  // synchronous poison, so the blocking streams it waits for are idle).
  CUDA_CHECK(cudaEventRecord(log.base_.get(), cudaStreamLegacy));
  CUDA_CHECK(cudaEventSynchronize(log.base_.get()));
  log.based_ = true;
  EventPairLog::active_ = &log;
}

EventLogActivation::~EventLogActivation() {
  if (EventPairLog::active_ == log_) EventPairLog::active_ = nullptr;
}

}  // namespace csg
