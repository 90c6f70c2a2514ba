// UniqueHandle: the one move-only owner behind Stream, Event, Graph and
// GraphExec. It holds a CUDA handle, destroys it once (Traits::destroy, which
// reports but never throws: destructors can't) and hands it out with get().
#pragma once

#include <utility>

#include "cuda/check.hpp"

namespace csg {

// Traits: `using Handle = cudaStream_t;` and `static void destroy(Handle) noexcept;`.
template <class Traits>
class UniqueHandle {
 public:
  using Handle = typename Traits::Handle;

  UniqueHandle() = default;
  // Takes ownership of `handle` (nullptr: owns nothing).
  explicit UniqueHandle(Handle handle) noexcept : handle_(handle) {}
  ~UniqueHandle() { reset(); }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  Handle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  void reset() noexcept {
    if (handle_ != nullptr) Traits::destroy(handle_);
    handle_ = nullptr;
  }
  Handle handle_ = nullptr;
};

}  // namespace csg

// The traits of one handle type: its type and the call that destroys it.
#define CSG_HANDLE_TRAITS(traits, handle, destroy_call)                                   \
  struct traits {                                                                         \
    using Handle = handle;                                                                \
    static void destroy(Handle value) noexcept { CUDA_CHECK_NOEXCEPT(destroy_call(value)); } \
  }

namespace csg {

// The four the suite owns (cuda/stream.hpp, cuda/graph.hpp).
CSG_HANDLE_TRAITS(StreamTraits, cudaStream_t, cudaStreamDestroy);
CSG_HANDLE_TRAITS(EventTraits, cudaEvent_t, cudaEventDestroy);
CSG_HANDLE_TRAITS(GraphTraits, cudaGraph_t, cudaGraphDestroy);
CSG_HANDLE_TRAITS(GraphExecTraits, cudaGraphExec_t, cudaGraphExecDestroy);

}  // namespace csg
