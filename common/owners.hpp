// Owners: move-only types whose destructor frees what they hold (buffers,
// streams, events, the pool, graphs), so an early return or an exception leaks
// nothing; and the suite's two timers, EventTimer (CUDA events, about 0.5 us)
// and HostTimer (steady_clock). Functions borrow the raw handles (get(),
// data()); the calls the article teaches are written by the stages themselves.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/units.hpp"  // Millis, format_bytes
#include "check.hpp"

namespace csg {

// ---- one owner of a CUDA handle -------------------------------------------

// Holds a handle of type Traits::Handle and destroys it once by calling
// Traits (which reports but never throws: destructors can't); std::unique_ptr
// does the owning, and only get() is lent out.
template <class Traits>
class UniqueHandle {
 public:
  using Handle = typename Traits::Handle;
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) noexcept : owned_(handle) {}
  Handle get() const noexcept { return owned_.get(); }
  explicit operator bool() const noexcept { return owned_ != nullptr; }

 private:
  std::unique_ptr<std::remove_pointer_t<Handle>, Traits> owned_;
};

// The traits of a handle type destroyed by `Destroy` (cudaStreamDestroy, ...),
// whose failure is reported: the message names this line, the error and its text.
template <class H, cudaError_t (*Destroy)(H)>
struct DestroyedBy {
  using Handle = H;
  void operator()(Handle handle) const noexcept { CUDA_CHECK_NOEXCEPT(Destroy(handle)); }
};
using StreamTraits = DestroyedBy<cudaStream_t, cudaStreamDestroy>;
using EventTraits = DestroyedBy<cudaEvent_t, cudaEventDestroy>;
using GraphTraits = DestroyedBy<cudaGraph_t, cudaGraphDestroy>;
using GraphExecTraits = DestroyedBy<cudaGraphExec_t, cudaGraphExecDestroy>;

// cudaStreamDefault is what the article's cudaStreamCreate gives: a blocking
// stream, which synchronises with the legacy default stream (stream 0).
// Priority: lower numbers run first (the H200 offers 0 down to -5), kernels only.
class Stream : public UniqueHandle<StreamTraits> {
 public:
  explicit Stream(unsigned flags = cudaStreamDefault, int priority = 0) : UniqueHandle(create(flags, priority)) {}

 private:
  static cudaStream_t create(unsigned flags, int priority) {
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithPriority(&stream, flags, priority));
    return stream;
  }
};

// cudaEventDefault can be timed; cudaEventDisableTiming is cheaper and is
// what a fork or join event needs: it only orders work.
class Event : public UniqueHandle<EventTraits> {
 public:
  explicit Event(unsigned flags = cudaEventDefault) : UniqueHandle(create(flags)) {}

 private:
  static cudaEvent_t create(unsigned flags) {
    cudaEvent_t event = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&event, flags));
    return event;
  }
};

// The article's stream pool: `size` streams (blocking ones, as its
// cudaStreamCreate gives, unless told otherwise), the fork event stream 0
// records, and a join event per stream. Batch i runs on stream i % size, so
// the batches sharing a stream run in order. The events only order work: never timed.
class StreamPool {
 public:
  explicit StreamPool(int size, unsigned stream_flags = cudaStreamDefault, int priority = 0);
  int size() const noexcept { return static_cast<int>(streams_.size()); }
  cudaStream_t operator[](int index) const { return streams_.at(static_cast<std::size_t>(index)).get(); }
  cudaStream_t for_batch(int batch) const { return (*this)[batch % size()]; }  // the article's s_idx
  cudaEvent_t fork_event() const noexcept { return fork_event_.get(); }
  cudaEvent_t join_event(int index) const { return join_events_.at(static_cast<std::size_t>(index)).get(); }

 private:
  std::vector<Stream> streams_;
  Event fork_event_{cudaEventDisableTiming};
  std::vector<Event> join_events_;
};

// ---- graphs -------------------------------------------------------------------

// A graph, as cudaStreamEndCapture (or cudaGraphCreate) returns it.
class Graph : public UniqueHandle<GraphTraits> {
 public:
  Graph() = default;
  explicit Graph(cudaGraph_t graph) noexcept : UniqueHandle(graph) {}
  std::size_t node_count() const;
  std::size_t edge_count() const;
};

struct InstantiateOptions {
  unsigned long long flags = 0;
  // With flags including cudaGraphInstantiateFlagUpload, the graph is
  // uploaded to the device on this stream during instantiation.
  cudaStream_t upload_stream = nullptr;
};

// An executable graph. It exists only as the outcome of
// cudaGraphInstantiateWithParams, CUDA 12's call that says why an
// instantiation failed (the article's five-argument cudaGraphInstantiate is
// CUDA 11's; on CUDA 12+ it silently drops the error node and the log).
class GraphExec : public UniqueHandle<GraphExecTraits> {
 public:
  GraphExec() = default;
  // Owns `exec` when `status` and params.result_out say success; otherwise
  // destroys whatever `exec` holds and throws CudaError naming result_out
  // and the failing node's type.
  static GraphExec from_instantiation(cudaGraphExec_t exec, cudaError_t status,
                                      const cudaGraphInstantiateParams& params);
  // cudaGraphInstantiateWithParams with `options`, checked as above.
  static GraphExec instantiate(const Graph& graph, const InstantiateOptions& options = {});

 private:
  explicit GraphExec(cudaGraphExec_t exec) noexcept : UniqueHandle(exec) {}
};

// ---- memory -----------------------------------------------------------------

// `count` elements of cudaMalloc'd device memory.
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

// The four kinds of host memory (stage 02 compares them all):
//   pageable        malloc, the article's first try: the OS may move or swap its
//                   pages, so the driver copies it through a pinned buffer of its own
//   pinned          cudaMallocHost: page-locked, the copy engines (DMA) read it directly
//   registered      malloc'd memory pinned afterwards with cudaHostRegister
//   write_combined  cudaHostAlloc(cudaHostAllocWriteCombined): pinned and not
//                   cached by the CPU: for buffers the GPU only reads
enum class HostMemory { pageable, pinned, registered, write_combined };
std::string_view to_string(HostMemory kind);
std::optional<HostMemory> parse_host_memory(std::string_view text);
inline std::ostream& operator<<(std::ostream& out, HostMemory kind) { return out << to_string(kind); }
// Every kind but pageable: the DMA engines can read it directly.
inline bool is_page_locked(HostMemory kind) { return kind != HostMemory::pageable; }

// Page alignment: cudaHostRegister pins whole pages. page_aligned_alloc
// rounds `bytes` up to whole pages; throws std::bad_alloc when it fails.
inline constexpr std::size_t kHostPageBytes = 4096;
void* page_aligned_alloc(std::size_t bytes);
namespace detail {
void* host_allocate(std::size_t bytes, HostMemory kind);  // pageable and pinned
void host_release(void* ptr, HostMemory kind) noexcept;   // every kind
}  // namespace detail

// `count` elements of host memory of one kind. HostBuffer(count, kind)
// allocates pageable, pinned or registered memory; stage 02 writes those calls
// out itself (and write-combined ones) and hands the pointer over.
template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(std::size_t count, HostMemory kind)
      : ptr_(static_cast<T*>(detail::host_allocate(count * sizeof(T), kind))), count_(count), kind_(kind) {}
  HostBuffer(T* ptr, std::size_t count, HostMemory kind) noexcept : ptr_(ptr), count_(count), kind_(kind) {}
  ~HostBuffer() { reset(); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  HostBuffer(HostBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)), kind_(other.kind_) {}
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
      kind_ = other.kind_;
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
  // Gives up ownership without freeing.
  [[nodiscard]] T* release() noexcept {
    count_ = 0;
    return std::exchange(ptr_, nullptr);
  }
  void reset() noexcept {
    if (ptr_ != nullptr) detail::host_release(ptr_, kind_);
    ptr_ = nullptr;
    count_ = 0;
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  HostMemory kind_ = HostMemory::pageable;
};

// ---- timers -------------------------------------------------------------------

// CUDA events around device work. With other streams, start() records one
// event on the first stream that every other stream waits for, and stop()
// makes the first stream wait for the end of each: all are timed from the
// same instant on the GPU's clock. Events are created once and reused.
//   timer.start(stream);  ...queue work...  const Millis ms = timer.stop();  // waits for it
class EventTimer {
 public:
  void start(cudaStream_t first, const std::vector<cudaStream_t>& others = {});
  // Records where each stream's work ends, joins them into the first, records
  // the stop there, waits for it and returns start -> stop.
  Millis stop();
  // After stop(): start -> the end of stream `index`'s work (0: the first stream).
  Millis end_of(std::size_t index) const;

 private:
  Event start_;
  Event stop_;
  std::vector<Event> ends_;
  std::vector<cudaStream_t> streams_;
};

// The time from event `from` to event `to`, both complete (cudaEventElapsedTime).
Millis elapsed_between(cudaEvent_t from, cudaEvent_t to);

// std::chrono::steady_clock since construction (or restart()).
class HostTimer {
 public:
  HostTimer() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  Millis elapsed() const { return std::chrono::steady_clock::now() - start_; }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace csg
