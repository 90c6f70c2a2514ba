// The device-launch subcommand's kernels (device_launch.cu), what they share
// with the host, and the host calls that launch them (<<<1, 1>>> on `stream`,
// unchecked: the caller checks the launch, as captured graphs are built).
#pragma once

#include <cuda_runtime.h>

namespace csg::graphs {

// What the counting and launching kernels share with the host, in device memory.
struct LaunchControl {
  unsigned long long count;  // executions of a counting kernel
  int fired;                 // launches made so far (a host launch included where it counts)
  int total;                 // the launches wanted
  int error;                 // the first failed device-side launch's cudaError_t, 0 if none
  int unused;
};

// The empty graph's one kernel, and the counting node after the article's
// join. Atomic: fired-and-forgotten children run at the same time.
void launch_count_kernel(LaunchControl* control, cudaStream_t stream);
// A graph that relaunches itself: counts, then, until `total` executions
// have been started, tail-launches its own exec (it runs again once this
// execution is complete).
void launch_count_and_relaunch(LaunchControl* control, cudaStream_t stream);
// The launcher: fires up to `fan_out` children (one exec each), then
// tail-launches itself, which runs once the children are done, until
// `total` children have been fired.
void launch_fire_children(LaunchControl* control, const cudaGraphExec_t* children, int fan_out, cudaStream_t stream);

// The decisions' state: the graph that ran last wrote `choice`, which says
// whether A (0) or B (1) runs next.
struct Decisions {
  int step;
  int steps;
  int choice;
  int error;
  unsigned long long runs[2];
};

// The value the graph of step `step - 1` leaves for step `step`: a hash of
// the step, the same on the host (which predicts the sequence) and the device.
int choice_for(int step, unsigned long long seed);
// Graph A (id 0) or B (id 1): notes which ran at this step, counts, and
// leaves the next step's choice.
void launch_decided_work(Decisions* state, int* trace, int id, unsigned long long seed, cudaStream_t stream);
// The scheduler: reads the choice on the device, tail-launches A or B, then
// itself (tail launches run in the order they were made), until every step ran.
void launch_schedule(Decisions* state, cudaGraphExec_t a, cudaGraphExec_t b, cudaStream_t stream);

}  // namespace csg::graphs
