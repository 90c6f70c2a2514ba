// The device-launch subcommand's device side: the counting, launching and
// scheduling kernels, the graphs they launch, and every timed variant
// (device_launch.hpp says what each one is).
#include "04_graph_capture_gemm/lab/device-launch/device_launch.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "base/errors.hpp"
#include "base/progress.hpp"
#include "check.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "owners.hpp"
#include "measure/timers.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace {

// What the counting and launching kernels share with the host, in device memory.
struct LaunchControl {
  unsigned long long count;  // executions of a counting kernel
  int fired;                 // launches made so far (a host launch included where it counts)
  int total;                 // the launches wanted
  int error;                 // the first failed device-side launch's cudaError_t, 0 if none
  int unused;
};

__device__ void note_error(LaunchControl* control, cudaError_t status) {
  if (status != cudaSuccess && control->error == 0) control->error = static_cast<int>(status);
}

// The empty graph's one kernel, and the counting node after the article's
// join. Atomic: fired-and-forgotten children run at the same time.
__global__ void count_kernel(LaunchControl* control) { atomicAdd(&control->count, 1ULL); }

// A graph that relaunches itself: counts, then, until `total` executions
// have been started, tail-launches its own exec (it runs again once this
// execution is complete).
__global__ void count_and_relaunch(LaunchControl* control) {
  atomicAdd(&control->count, 1ULL);
  if (control->fired < control->total) {
    control->fired += 1;
    note_error(control, cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch));
  }
}

// The launcher: fires up to `fan_out` children (one exec each), then
// tail-launches itself, which runs once the children are done, until
// `total` children have been fired.
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
__host__ __device__ int choice_for(int step, unsigned long long seed) {
  unsigned long long x = (static_cast<unsigned long long>(step) + 1ULL) * 0x9E3779B97F4A7C15ULL ^ seed;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 29;
  return static_cast<int>((x >> 17) & 1ULL);
}

// Graph A (id 0) or B (id 1): notes which ran at this step, counts, and
// leaves the next step's choice.
__global__ void decided_work(Decisions* state, int* trace, int id, unsigned long long seed) {
  const int step = state->step;
  if (step >= 0 && step < state->steps) trace[step] = id;
  state->runs[id] += 1;
  state->step = step + 1;
  state->choice = choice_for(step + 1, seed);
}

// The scheduler: reads the choice on the device, tail-launches A or B, then
// itself (tail launches run in the order they were made), until every step ran.
__global__ void schedule(Decisions* state, cudaGraphExec_t a, cudaGraphExec_t b) {
  if (state->step >= state->steps) return;
  cudaError_t status = cudaGraphLaunch(state->choice == 0 ? a : b, cudaStreamGraphTailLaunch);
  if (status == cudaSuccess) status = cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch);
  if (status != cudaSuccess && state->error == 0) state->error = static_cast<int>(status);
}

// Instantiated for device launch and uploaded, so that a kernel may launch it.
GraphExec device_exec(const Graph& graph, cudaStream_t stream) {
  GraphExec exec = GraphExec::instantiate(graph, InstantiateOptions{cudaGraphInstantiateFlagDeviceLaunch});
  CUDA_CHECK(cudaGraphUpload(exec.get(), stream));
  return exec;
}

GraphExec plain_exec(const Graph& graph, cudaStream_t stream) {
  GraphExec exec = GraphExec::instantiate(graph);
  CUDA_CHECK(cudaGraphUpload(exec.get(), stream));
  return exec;
}

// One kernel node, captured.
template <class Launch>
Graph one_kernel_graph(cudaStream_t stream, Launch&& launch) {
  return capture_on(stream, [&] {
    launch();
    CUDA_CHECK_LAUNCH("a device-launch kernel");
  });
}

// Host launches per sample of the flag's cost: one launch and a synchronise each.
constexpr int kFlagLaunchesPerSample = 20;

void note(LaunchRun& run, const std::string& failure) {
  if (failure.empty() || !run.passed) return;
  run.passed = false;
  run.failure = failure;
}

}  // namespace

DeviceLaunchFigures measure_device_launch(const DeviceLaunchConfig& config) {
  const RepeatPlan& plan = config.common.plan;
  const StreamPool pool(config.streams);
  const Gemm gemm;  // the article's kernel: the only kind a device-launched graph is sure to take
  const cudaStream_t stream = pool[0];
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  int unified = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device));
  if (unified == 0) throw NoDeviceError("device graph launch needs unified addressing, which this device lacks");

  DeviceLaunchFigures figures;
  DeviceBuffer<LaunchControl> control(1);
  LaunchControl* const ctl = control.data();
  EventTimer timer;

  auto reset = [&](int fired, int total) {
    const LaunchControl start{0ULL, fired, total, 0, 0};
    CUDA_CHECK(cudaMemcpyAsync(ctl, &start, sizeof start, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  // "" when `expected` executions were counted and no device launch failed.
  auto control_failure = [&](unsigned long long expected) -> std::string {
    LaunchControl seen{};
    CUDA_CHECK(cudaMemcpyAsync(&seen, ctl, sizeof seen, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (seen.error != 0) {
      return std::string("a device-side cudaGraphLaunch failed: ") + cudaGetErrorName(cudaError_t(seen.error));
    }
    if (seen.count != expected) {
      return "counted " + std::to_string(seen.count) + " executions, expected " + std::to_string(expected);
    }
    return "";
  };

  // ---- the empty graph: one counting kernel ----------------------------------
  const Graph empty_graph = one_kernel_graph(stream, [&] { count_kernel<<<1, 1, 0, stream>>>(ctl); });
  const GraphExec empty_plain = plain_exec(empty_graph, stream);
  GraphExec empty_flag;
  try {
    empty_flag = device_exec(empty_graph, stream);
  } catch (const CudaError& error) {
    static_cast<void>(cudaGetLastError());
    throw NoDeviceError(std::string("device graph launch is not supported here: ") + error.what());
  }
  const Graph empty_tail_graph = one_kernel_graph(stream, [&] { count_and_relaunch<<<1, 1, 0, stream>>>(ctl); });
  const GraphExec empty_tail = device_exec(empty_tail_graph, stream);
  // The children, one exec each (an exec still running can't be launched again).
  const int fan_out = std::min(config.fan_out, config.launches);
  std::vector<GraphExec> children;
  std::vector<cudaGraphExec_t> child_handles;
  for (int i = 0; i < fan_out; ++i) {
    children.push_back(device_exec(empty_graph, stream));
    child_handles.push_back(children.back().get());
  }
  DeviceBuffer<cudaGraphExec_t> empty_children(child_handles.size());
  CUDA_CHECK(cudaMemcpy(empty_children.data(), child_handles.data(), empty_children.bytes(), cudaMemcpyHostToDevice));
  const Graph empty_launcher_graph = one_kernel_graph(
      stream, [&] { fire_children<<<1, 1, 0, stream>>>(ctl, empty_children.data(), fan_out); });
  const GraphExec empty_launcher = device_exec(empty_launcher_graph, stream);

  // ---- the article's work, one device slot per batch ---------------------------
  const Workload& work = config.common.work;
  BatchBuffers buffers(work, config.common.host_memory, work.batches);
  buffers.fill_inputs(config.common.seed);
  const BatchOps full_ops = batch_ops(buffers, gemm);
  auto capture_work = [&](const BatchOps& ops, bool relaunch) {
    return capture_on(stream, [&] {
      issue_on_streams(ops, pool, work.batches);
      if (relaunch) {
        count_and_relaunch<<<1, 1, 0, stream>>>(ctl);
      } else {
        count_kernel<<<1, 1, 0, stream>>>(ctl);
      }
      CUDA_CHECK_LAUNCH("the work's counting kernel");
    });
  };
  BatchOps ops = full_ops;
  Graph work_graph = capture_work(ops, false);
  GraphExec work_flag;
  try {
    work_flag = device_exec(work_graph, stream);
  } catch (const CudaError& error) {
    static_cast<void>(cudaGetLastError());
    figures.work_flag_refusal = error.what();
    // Its device-only part: the kernels alone, A copied in before and C out after.
    ops.h2d = [](int, cudaStream_t) {};
    ops.d2h = [](int, cudaStream_t) {};
    work_graph = capture_work(ops, false);
    work_flag = device_exec(work_graph, stream);
    for (int batch = 0; batch < work.batches; ++batch) full_ops.h2d(batch, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  figures.work_nodes = work_graph.node_count();
  const GraphExec work_plain = plain_exec(work_graph, stream);
  const GraphExec work_tail = device_exec(capture_work(ops, true), stream);
  const cudaGraphExec_t work_child = work_flag.get();
  DeviceBuffer<cudaGraphExec_t> work_children(1);
  CUDA_CHECK(cudaMemcpy(work_children.data(), &work_child, sizeof work_child, cudaMemcpyHostToDevice));
  const GraphExec work_launcher = device_exec(
      one_kernel_graph(stream, [&] { fire_children<<<1, 1, 0, stream>>>(ctl, work_children.data(), 1); }), stream);
  auto poison = [&] { buffers.poison_outputs(stream); };
  auto verify_work = [&] {
    if (figures.work_kernels_only()) {
      for (int batch = 0; batch < work.batches; ++batch) full_ops.d2h(batch, stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    return buffers.verify(config.common.seed);
  };

  progress("the device-launch flag's cost to the host's cudaGraphLaunch");
  // ---- the flag's cost to the host ---------------------------------------------
  LaunchRun flag_checks;  // the flag runs' counters
  auto host_launches = [&](const GraphExec& exec_ref, int expected, const char* what) {
    const GraphExec* const exec = &exec_ref;
    return TimedVariant{.prepare = [&reset] { reset(0, 0); },
                        .run =
                            [&, exec, expected, what] {
                              Millis sum{0};
                              for (int i = 0; i < kFlagLaunchesPerSample; ++i) {
                                sum += host_issue_time(stream, [&] { CUDA_CHECK(cudaGraphLaunch(exec->get(), stream)); });
                              }
                              const std::string failure = control_failure(static_cast<unsigned long long>(expected));
                              if (!failure.empty()) note(flag_checks, std::string(what) + ": " + failure);
                              return sum / kFlagLaunchesPerSample;
                            },
                        .after_last = nullptr};
  };
  measure_interleaved_into(plan,
                           {host_launches(empty_plain, kFlagLaunchesPerSample, "the empty graph, plain"),
                            host_launches(empty_flag, kFlagLaunchesPerSample, "the empty graph, device-launch flag"),
                            host_launches(work_plain, kFlagLaunchesPerSample, "the work, plain"),
                            host_launches(work_flag, kFlagLaunchesPerSample, "the work, device-launch flag")},
                           {&figures.empty_plain_cpu, &figures.empty_flag_cpu, &figures.work_plain_cpu,
                            &figures.work_flag_cpu});
  // The flag runs leave the work's outputs computed: checked with the host's.

  progress("N launches from the host, by tail launch and fire-and-forget");
  // ---- N launches three ways ----------------------------------------------------
  // A variant: reset the control, time `launch` with events, check the count.
  auto launches = [&](LaunchRun& out_ref, int fired, int total, std::function<void()> launch,
                      std::function<void()> before, std::function<void()> after_last) {
    return TimedVariant{.prepare =
                            [&reset, before, fired, total] {
                              if (before) before();
                              reset(fired, total);
                            },
                        .run =
                            [&, out = &out_ref, launch, total] {
                              timer.start(stream);
                              launch();
                              const Millis time = timer.stop();
                              note(*out, control_failure(static_cast<unsigned long long>(total)));
                              return time;
                            },
                        .after_last = std::move(after_last)};
  };
  const int n = config.launches;
  const int work_n = config.work_launches;
  std::vector<Summary> empty = measure_interleaved(
      plan, {launches(figures.empty_host, 0, n,
                      [&] {
                        for (int i = 0; i < n; ++i) CUDA_CHECK(cudaGraphLaunch(empty_plain.get(), stream));
                      },
                      nullptr, nullptr),
             launches(figures.empty_tail, 1, n, [&] { CUDA_CHECK(cudaGraphLaunch(empty_tail.get(), stream)); },
                      nullptr, nullptr),
             launches(figures.empty_fire, 0, n, [&] { CUDA_CHECK(cudaGraphLaunch(empty_launcher.get(), stream)); },
                      nullptr, nullptr)});
  figures.empty_host.end_to_end = empty[0];
  figures.empty_tail.end_to_end = empty[1];
  figures.empty_fire.end_to_end = empty[2];

  WorkRuns& w = figures.work;
  std::vector<Summary> worked = measure_interleaved(
      plan, {launches(w.host, 0, work_n,
                      [&] {
                        for (int i = 0; i < work_n; ++i) CUDA_CHECK(cudaGraphLaunch(work_plain.get(), stream));
                      },
                      poison, [&] { w.host_check = verify_work(); }),
             launches(w.tail, 1, work_n, [&] { CUDA_CHECK(cudaGraphLaunch(work_tail.get(), stream)); }, poison,
                      [&] { w.tail_check = verify_work(); }),
             launches(w.fire, 0, work_n, [&] { CUDA_CHECK(cudaGraphLaunch(work_launcher.get(), stream)); }, poison,
                      [&] { w.fire_check = verify_work(); })});
  w.host.end_to_end = worked[0];
  w.tail.end_to_end = worked[1];
  w.fire.end_to_end = worked[2];
  if (!flag_checks.passed) note(w.host, "the flag's cost runs: " + flag_checks.failure);

  progress("decisions on the host and by a scheduler kernel");
  // ---- who decides what runs next -----------------------------------------------
  DeviceBuffer<Decisions> state(1);
  DeviceBuffer<int> trace(static_cast<std::size_t>(n));
  Decisions* const st = state.data();
  std::vector<int> expected(static_cast<std::size_t>(n));
  for (int step = 0; step < n; ++step) {
    expected[std::size_t(step)] = choice_for(step, config.common.seed);
    (expected[std::size_t(step)] == 0 ? figures.decide_a : figures.decide_b) += 1;
  }
  auto decided = [&](int id) {
    return one_kernel_graph(stream, [&] { decided_work<<<1, 1, 0, stream>>>(st, trace.data(), id, config.common.seed); });
  };
  const Graph graph_a = decided(0), graph_b = decided(1);
  const GraphExec a_plain = plain_exec(graph_a, stream), b_plain = plain_exec(graph_b, stream);
  const GraphExec a_flag = device_exec(graph_a, stream), b_flag = device_exec(graph_b, stream);
  const GraphExec scheduler = device_exec(
      one_kernel_graph(stream, [&] { schedule<<<1, 1, 0, stream>>>(st, a_flag.get(), b_flag.get()); }), stream);
  HostBuffer<int> choice(1, HostMemory::pinned);
  auto start_decisions = [&] {
    const Decisions start{0, n, choice_for(0, config.common.seed), 0, {0ULL, 0ULL}};
    CUDA_CHECK(cudaMemcpyAsync(st, &start, sizeof start, cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemsetAsync(trace.data(), 0xFF, trace.bytes(), stream));  // -1: no graph ran at that step
    CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  auto decisions_failure = [&]() -> std::string {
    Decisions seen{};
    std::vector<int> ran(static_cast<std::size_t>(n));
    CUDA_CHECK(cudaMemcpyAsync(&seen, st, sizeof seen, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(ran.data(), trace.data(), trace.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (seen.error != 0) {
      return std::string("a device-side cudaGraphLaunch failed: ") + cudaGetErrorName(cudaError_t(seen.error));
    }
    if (seen.step != n) return std::to_string(seen.step) + " decisions ran, expected " + std::to_string(n);
    for (int step = 0; step < n; ++step) {
      if (ran[std::size_t(step)] != expected[std::size_t(step)]) {
        return "step " + std::to_string(step) + " ran graph " + std::to_string(ran[std::size_t(step)]) +
               ", expected " + std::to_string(expected[std::size_t(step)]);
      }
    }
    if (seen.runs[0] != static_cast<unsigned long long>(figures.decide_a) ||
        seen.runs[1] != static_cast<unsigned long long>(figures.decide_b)) {
      return "A ran " + std::to_string(seen.runs[0]) + " and B " + std::to_string(seen.runs[1]) + " times, expected " +
             std::to_string(figures.decide_a) + " and " + std::to_string(figures.decide_b);
    }
    return "";
  };
  auto decide = [&](LaunchRun& out_ref, std::function<void()> body) {
    return TimedVariant{.prepare = start_decisions,
                        .run =
                            [&, out = &out_ref, body] {
                              timer.start(stream);
                              body();
                              const Millis time = timer.stop();
                              note(*out, decisions_failure());
                              return time;
                            },
                        .after_last = nullptr};
  };
  std::vector<Summary> decisions = measure_interleaved(
      plan, {decide(figures.decide_host,
                    [&] {
                      for (int step = 0; step < n; ++step) {
                        CUDA_CHECK(cudaMemcpyAsync(choice.data(), &st->choice, sizeof(int), cudaMemcpyDeviceToHost,
                                                   stream));
                        CUDA_CHECK(cudaStreamSynchronize(stream));
                        CUDA_CHECK(cudaGraphLaunch(choice.data()[0] == 0 ? a_plain.get() : b_plain.get(), stream));
                      }
                    }),
             decide(figures.decide_device, [&] { CUDA_CHECK(cudaGraphLaunch(scheduler.get(), stream)); })});
  figures.decide_host.end_to_end = decisions[0];
  figures.decide_device.end_to_end = decisions[1];
  return figures;
}

}  // namespace csg::graphs
