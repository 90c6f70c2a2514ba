// The conditional subcommand's kernels (conditional.cu), the state they share
// with the host, and the host calls that launch them (<<<1, 1>>> on `stream`,
// unchecked: the caller checks each launch) or hand a kernel to a graph node.
#pragma once

#include <cuda_runtime.h>

namespace csg::graphs {

// The loop's state in device memory: the counter the body steps, the target
// N (the data the trip count depends on), and the step's answer, `go`, which
// the host-decided loop copies back.
struct LoopState {
  unsigned int counter;
  unsigned int target;
  unsigned int go;
};

// Every run starts here: the counter back to 0.
void launch_start_loop(LoopState* state, cudaStream_t stream);
// The WHILE graph's first node: the same, and the WHILE node's first test
// (cudaGraphSetConditional); a kernel node's function, (state, handle).
const void* start_while_kernel();
// The body's last kernel: one more iteration, and whether another is due.
void launch_step(LoopState* state, cudaStream_t stream);
// The same in the WHILE node's body: the answer sets the node's condition.
void launch_step_while(LoopState* state, cudaGraphConditionalHandle handle, cudaStream_t stream);

inline constexpr int kMaxBuckets = 16;

struct RequestState {
  unsigned int next;                 // requests taken so far
  unsigned int size;                 // the size of the request being served
  unsigned int served[kMaxBuckets];  // requests each bucket's body ran for
};

// A request arrives: its size, from the device's list, into `size`; a kernel
// node's function too, (sizes, state).
void launch_next_request(const unsigned int* sizes, RequestState* state, cudaStream_t stream);
const void* next_request_kernel();
// The SWITCH node's condition: the first bucket that holds the request
// (`count`, which matches no body, when none does); a kernel node's
// function, (state, buckets, count, handle).
const void* choose_bucket_kernel();
// A bucket's body's last kernel: it ran.
void launch_served_by(RequestState* state, int bucket, cudaStream_t stream);

}  // namespace csg::graphs
