#include "04_graph_capture_gemm/lab/conditional/conditional_kernels.hpp"

namespace csg::graphs {
namespace {

__global__ void start_loop(LoopState* state) {
  state->counter = 0;
  state->go = state->target > 0 ? 1u : 0u;
}

__global__ void start_while(LoopState* state, cudaGraphConditionalHandle handle) {
  state->counter = 0;
  cudaGraphSetConditional(handle, state->target > 0 ? 1u : 0u);
}

__global__ void step(LoopState* state) {
  const unsigned int counter = state->counter + 1;
  state->counter = counter;
  state->go = counter < state->target ? 1u : 0u;
}

__global__ void step_while(LoopState* state, cudaGraphConditionalHandle handle) {
  const unsigned int counter = state->counter + 1;
  state->counter = counter;
  cudaGraphSetConditional(handle, counter < state->target ? 1u : 0u);
}

__global__ void next_request(const unsigned int* sizes, RequestState* state) {
  state->size = sizes[state->next];
  state->next += 1;
}

__global__ void choose_bucket(RequestState* state, const unsigned int* buckets, int count,
                              cudaGraphConditionalHandle handle) {
  int chosen = count;
  for (int b = count - 1; b >= 0; --b) {
    if (state->size <= buckets[b]) chosen = b;
  }
  cudaGraphSetConditional(handle, static_cast<unsigned int>(chosen));
}

__global__ void served_by(RequestState* state, int bucket) { state->served[bucket] += 1; }

}  // namespace

void launch_start_loop(LoopState* state, cudaStream_t stream) { start_loop<<<1, 1, 0, stream>>>(state); }
const void* start_while_kernel() { return reinterpret_cast<const void*>(&start_while); }
void launch_step(LoopState* state, cudaStream_t stream) { step<<<1, 1, 0, stream>>>(state); }
void launch_step_while(LoopState* state, cudaGraphConditionalHandle handle, cudaStream_t stream) {
  step_while<<<1, 1, 0, stream>>>(state, handle);
}
void launch_next_request(const unsigned int* sizes, RequestState* state, cudaStream_t stream) {
  next_request<<<1, 1, 0, stream>>>(sizes, state);
}
const void* next_request_kernel() { return reinterpret_cast<const void*>(&next_request); }
const void* choose_bucket_kernel() { return reinterpret_cast<const void*>(&choose_bucket); }
void launch_served_by(RequestState* state, int bucket, cudaStream_t stream) {
  served_by<<<1, 1, 0, stream>>>(state, bucket);
}

}  // namespace csg::graphs
