#include "04_graph_capture_gemm/lab/device-launch/device_launch_kernels.hpp"

namespace csg::graphs {
namespace {

__device__ void note_error(LaunchControl* control, cudaError_t status) {
  if (status != cudaSuccess && control->error == 0) control->error = static_cast<int>(status);
}

__global__ void count_kernel(LaunchControl* control) { atomicAdd(&control->count, 1ULL); }

__global__ void count_and_relaunch(LaunchControl* control) {
  atomicAdd(&control->count, 1ULL);
  if (control->fired < control->total) {
    control->fired += 1;
    note_error(control, cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch));
  }
}

__global__ void fire_children(LaunchControl* control, const cudaGraphExec_t* children, int fan_out) {
  const int now = min(control->total - control->fired, fan_out);
  for (int i = 0; i < now; ++i) {
    const cudaError_t status = cudaGraphLaunch(children[i], cudaStreamGraphFireAndForget);
    if (status != cudaSuccess) {
      note_error(control, status);
      return;
    }
  }
  control->fired += now;
  if (control->fired < control->total) {
    note_error(control, cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch));
  }
}

__host__ __device__ int hashed_choice(int step, unsigned long long seed) {
  unsigned long long x = (static_cast<unsigned long long>(step) + 1ULL) * 0x9E3779B97F4A7C15ULL ^ seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<int>((x >> 17) & 1ULL);
}

__global__ void decided_work(Decisions* state, int* trace, int id, unsigned long long seed) {
  const int step = state->step;
  if (step >= 0 && step < state->steps) trace[step] = id;
  state->runs[id] += 1;
  state->step = step + 1;
  state->choice = hashed_choice(step + 1, seed);
}

__global__ void schedule(Decisions* state, cudaGraphExec_t a, cudaGraphExec_t b) {
  if (state->step >= state->steps) return;
  cudaError_t status = cudaGraphLaunch(state->choice == 0 ? a : b, cudaStreamGraphTailLaunch);
  if (status == cudaSuccess) status = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
  if (status != cudaSuccess && state->error == 0) state->error = static_cast<int>(status);
}

}  // namespace

void launch_count_kernel(LaunchControl* control, cudaStream_t stream) { count_kernel<<<1, 1, 0, stream>>>(control); }

void launch_count_and_relaunch(LaunchControl* control, cudaStream_t stream) {
  count_and_relaunch<<<1, 1, 0, stream>>>(control);
}

void launch_fire_children(LaunchControl* control, const cudaGraphExec_t* children, int fan_out, cudaStream_t stream) {
  fire_children<<<1, 1, 0, stream>>>(control, children, fan_out);
}

int choice_for(int step, unsigned long long seed) { return hashed_choice(step, seed); }

void launch_decided_work(Decisions* state, int* trace, int id, unsigned long long seed, cudaStream_t stream) {
  decided_work<<<1, 1, 0, stream>>>(state, trace, id, seed);
}

void launch_schedule(Decisions* state, cudaGraphExec_t a, cudaGraphExec_t b, cudaStream_t stream) {
  schedule<<<1, 1, 0, stream>>>(state, a, b);
}

}  // namespace csg::graphs
