// One copy or kernel, named for nsys and, when a timeline is recorded with
// event pairs, timed by a pair of CUDA events on its stream.
//
//   {
//     csg::OpScope scope(csg::OpKind::h2d, batch, stream, bytes);   // NVTX push (+ start event)
//     CUDA_CHECK(cudaMemcpyAsync(..., stream));
//   }                                                                // NVTX pop (+ end event)
//
// Always: an NVTX range named "H2D", "kernel" or "D2H" with the batch as its
// int64 payload (issue 6, item 4: per-batch ranges for nsys users). Without a
// tool attached that is a call through a null-checked pointer, a few ns; no
// string is built.
//
// Only while an EventPairLog is active (EventLogActivation): a start event
// recorded on `stream` before the op is enqueued and an end event after, so
// that the timeline can be drawn without CUPTI (another profiler holds it, or
// no permission). Inactive, the cost is one pointer check on top of NVTX.
//
// The CUDA half of the fallback; op_events.hpp turns what the log read into a
// Timeline. One host thread issues the run: the log is not thread-safe.
// Never activate a log around a stream capture: an event recorded during
// capture becomes no node and can never be read (CUDA-NOTES.md).
#pragma once

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <vector>

#include "cuda/stream.hpp"
#include "timeline/timeline.hpp"

namespace csg {

// One op as the log read it, relative to the log's base event.
struct LoggedOp {
  OpKind kind = OpKind::other;
  int batch = -1;
  cudaStream_t stream = nullptr;  // nullptr: the legacy default stream
  double bytes = 0.0;
  double start_ms = 0.0;
  double end_ms = 0.0;
};

// Pre-created events for `capacity` ops (two each) and one base event, so no
// cudaEventCreate happens during the run. An op past capacity is not timed
// but counted: overflowed() says so after the run, and read() refuses.
class EventPairLog {
 public:
  // The suite's stages issue 3 ops per batch (H2D, kernel, D2H): pass 3 × batches.
  // 2 × capacity + 1 events at ~1 µs of host time each: 601 events (~0.6 ms)
  // for the article's 100 batches, ~60 ms for 10,000, all before the run.
  explicit EventPairLog(int capacity);
  ~EventPairLog();
  EventPairLog(const EventPairLog&) = delete;
  EventPairLog& operator=(const EventPairLog&) = delete;
  EventPairLog(EventPairLog&&) = delete;
  EventPairLog& operator=(EventPairLog&&) = delete;

  int capacity() const noexcept { return static_cast<int>(starts_.size()); }
  // Ops opened since the last activation, including any past capacity.
  int issued() const noexcept { return issued_; }
  bool overflowed() const noexcept { return issued_ > capacity(); }

  // After the run, once the activation has ended: waits for the device, then
  // reads every pair against the base event, in issue order. Throws
  // std::logic_error if the log overflowed, was never activated or is still
  // active, or an op was opened and not closed; CudaError if an event can't
  // be read (e.g. it was recorded during a stream capture).
  std::vector<LoggedOp> read() const;

  // The log OpScope records into, or nullptr (the usual case: only NVTX).
  static EventPairLog* active() noexcept { return active_; }

 private:
  friend class OpScope;
  friend class EventLogActivation;

  struct Slot {
    OpKind kind = OpKind::other;
    int batch = -1;
    cudaStream_t stream = nullptr;
    double bytes = 0.0;
    bool started = false;
    bool ended = false;
  };

  // The slot of a new op, its start event recorded on `stream`; -1 past capacity.
  int open(OpKind kind, int batch, cudaStream_t stream, double bytes);
  // Records the end event of `slot` (nothing for -1). In a destructor: never throws.
  void close(int slot) noexcept;

  Event base_;
  std::vector<Event> starts_;
  std::vector<Event> ends_;
  std::vector<Slot> slots_;
  int issued_ = 0;
  bool based_ = false;

  // Set and cleared only by EventLogActivation, read by every OpScope.
  static inline EventPairLog* active_ = nullptr;
};

// While alive, `log` is the active log. The constructor records the base
// event every op is timed against and waits for it (see op_scope.cpp for why
// that makes it precede every op on any stream); it throws std::logic_error
// if another log is active.
class EventLogActivation {
 public:
  explicit EventLogActivation(EventPairLog& log);
  ~EventLogActivation();
  EventLogActivation(const EventLogActivation&) = delete;
  EventLogActivation& operator=(const EventLogActivation&) = delete;
  EventLogActivation(EventLogActivation&&) = delete;
  EventLogActivation& operator=(EventLogActivation&&) = delete;

 private:
  EventPairLog* log_;
};

// Around ONE enqueued copy or kernel (see the top of this file). `bytes`:
// what a copy moves, for the trace file's args (0: not given).
class OpScope {
 public:
  OpScope(OpKind kind, int batch, cudaStream_t stream, double bytes = 0.0) : log_(EventPairLog::active()) {
    // The start event first (it may throw), then the range: a throw leaves no range open.
    if (log_ != nullptr) slot_ = log_->open(kind, batch, stream, bytes);
    push_range(kind, batch);
  }
  ~OpScope() {
    nvtxRangePop();
    if (log_ != nullptr) log_->close(slot_);
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;
  OpScope(OpScope&&) = delete;
  OpScope& operator=(OpScope&&) = delete;

 private:
  static void push_range(OpKind kind, int batch) noexcept {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.colorType = NVTX_COLOR_ARGB;
    attributes.color = range_color(kind);
    attributes.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    attributes.payload.llValue = batch;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = range_name(kind);
    nvtxRangePushEx(&attributes);
  }
  // String literals: NVTX reads the name during the call, nothing is built.
  static const char* range_name(OpKind kind) noexcept {
    switch (kind) {
      case OpKind::h2d: return "H2D";
      case OpKind::kernel: return "kernel";
      case OpKind::d2h: return "D2H";
      case OpKind::other: break;
    }
    return "op";
  }
  // nsys colours ranges by these: copies in, compute and copies out apart at a glance.
  static std::uint32_t range_color(OpKind kind) noexcept {
    switch (kind) {
      case OpKind::h2d: return 0xFF2E7D32u;     // green
      case OpKind::kernel: return 0xFF1565C0u;  // blue
      case OpKind::d2h: return 0xFFEF6C00u;     // orange
      case OpKind::other: break;
    }
    return 0xFF757575u;  // grey
  }

  EventPairLog* log_;
  int slot_ = -1;
};

}  // namespace csg
