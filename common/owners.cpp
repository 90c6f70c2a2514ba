#include "owners.hpp"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "base/enum_names.hpp"

namespace csg {
namespace {

std::string_view to_string(cudaGraphInstantiateResult result) {
  return name_of(result, {"cudaGraphInstantiateSuccess", "cudaGraphInstantiateError",
                          "cudaGraphInstantiateInvalidStructure", "cudaGraphInstantiateNodeOperationNotSupported",
                          "cudaGraphInstantiateMultipleDevicesNotSupported",
                          "cudaGraphInstantiateConditionalHandleUnused"},
                 "unknown cudaGraphInstantiateResult");
}

std::string_view to_string(cudaGraphNodeType type) {
  // 12 is no runtime node type (the driver API's batch memory operation).
  return name_of(type, {"kernel", "memcpy", "memset", "host", "child graph", "empty", "wait event", "event record",
                        "external semaphore signal", "external semaphore wait", "memory allocation", "memory free",
                        "other", "conditional"},
                 "other");
}

}  // namespace

StreamPool::StreamPool(int size, unsigned stream_flags, int priority) {
  if (size < 1) throw std::invalid_argument("StreamPool needs at least one stream");
  streams_.reserve(static_cast<std::size_t>(size));
  join_events_.reserve(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    streams_.emplace_back(stream_flags, priority);
    join_events_.emplace_back(cudaEventDisableTiming);
  }
}

std::size_t Graph::node_count() const {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(get(), nullptr, &count));
  return count;
}

std::size_t Graph::edge_count() const {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetEdges(get(), nullptr, nullptr, nullptr, &count));
  return count;
}

GraphExec GraphExec::instantiate(const Graph& graph, const InstantiateOptions& options) {
  cudaGraphInstantiateParams params{};
  params.flags = options.flags;
  params.uploadStream = options.upload_stream;
  cudaGraphExec_t exec = nullptr;
  const cudaError_t status = cudaGraphInstantiateWithParams(&exec, graph.get(), &params);
  return from_instantiation(exec, status, params);
}

GraphExec GraphExec::from_instantiation(cudaGraphExec_t exec, cudaError_t status,
                                        const cudaGraphInstantiateParams& params) {
  if (status != cudaSuccess || params.result_out != cudaGraphInstantiateSuccess) {
    std::string call = "cudaGraphInstantiateWithParams (result_out = ";
    call += to_string(params.result_out);
    if (params.errNode_out != nullptr) {
      cudaGraphNodeType type{};
      if (cudaGraphNodeGetType(params.errNode_out, &type) == cudaSuccess) {
        call += ", failing node: ";
        call += to_string(type);
      }
    }
    call += ')';
    if (exec != nullptr) CUDA_CHECK_NOEXCEPT(cudaGraphExecDestroy(exec));
    throw_cuda_error(status != cudaSuccess ? status : cudaErrorUnknown, call.c_str(), __FILE__, __LINE__);
  }
  return GraphExec(exec);
}

std::string_view to_string(HostMemory kind) {
  return name_of(kind, {"pageable", "pinned", "registered", "write-combined"});
}

std::optional<HostMemory> parse_host_memory(std::string_view text) {
  for (HostMemory kind : {HostMemory::pageable, HostMemory::pinned, HostMemory::registered,
                          HostMemory::write_combined}) {
    if (text == to_string(kind)) return kind;
  }
  return std::nullopt;
}

void* page_aligned_alloc(std::size_t bytes) {
  const std::size_t rounded = (bytes + kHostPageBytes - 1) / kHostPageBytes * kHostPageBytes;
  void* ptr = std::aligned_alloc(kHostPageBytes, rounded);
  if (ptr == nullptr) throw std::bad_alloc();
  return ptr;
}

namespace detail {
namespace {

void* page_aligned_or_throw(std::size_t bytes, const char* what) {
  try {
    return page_aligned_alloc(bytes);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("host allocation of " + format_bytes(bytes) + " (" + what + ") failed");
  }
}

}  // namespace

void* host_allocate(std::size_t bytes, HostMemory kind) {
  if (bytes == 0) return nullptr;
  switch (kind) {
    case HostMemory::pageable:
      return page_aligned_or_throw(bytes, "pageable");
    case HostMemory::pinned: {
      void* ptr = nullptr;
      const cudaError_t status = cudaMallocHost(&ptr, bytes);
      if (status != cudaSuccess) {
        const std::string what = "cudaMallocHost of " + format_bytes(bytes) + " (pinned)";
        throw_cuda_error(status, what.c_str(), __FILE__, __LINE__);
      }
      return ptr;
    }
    case HostMemory::registered: {
      void* ptr = page_aligned_or_throw(bytes, "to register");
      const cudaError_t status = cudaHostRegister(ptr, bytes, cudaHostRegisterDefault);
      if (status != cudaSuccess) {
        std::free(ptr);
        const std::string what = "cudaHostRegister of " + format_bytes(bytes);
        throw_cuda_error(status, what.c_str(), __FILE__, __LINE__);
      }
      return ptr;
    }
    case HostMemory::write_combined:
      break;
  }
  throw std::invalid_argument("HostBuffer allocates pageable, pinned and registered memory; allocate " +
                              std::string(to_string(kind)) + " memory yourself and hand the pointer over");
}

void host_release(void* ptr, HostMemory kind) noexcept {
  switch (kind) {
    case HostMemory::pageable:
      std::free(ptr);
      return;
    case HostMemory::pinned:
    case HostMemory::write_combined:
      CUDA_CHECK_NOEXCEPT(cudaFreeHost(ptr));
      return;
    case HostMemory::registered:
      CUDA_CHECK_NOEXCEPT(cudaHostUnregister(ptr));
      std::free(ptr);
      return;
  }
}

}  // namespace detail

Millis elapsed_between(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return Millis(static_cast<double>(ms));
}

void EventTimer::start(cudaStream_t first, const std::vector<cudaStream_t>& others) {
  streams_.assign(1, first);
  streams_.insert(streams_.end(), others.begin(), others.end());
  while (ends_.size() < streams_.size() && !others.empty()) ends_.emplace_back(cudaEventDefault);
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
