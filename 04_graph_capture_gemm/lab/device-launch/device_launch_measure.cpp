#include "04_graph_capture_gemm/lab/device-launch/device_launch.hpp"
#include "04_graph_capture_gemm/lab/device-launch/device_launch_kernels.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

// Instantiated with `flags` and uploaded.
GraphExec plain_exec(const Graph& graph, cudaStream_t stream, unsigned long long flags = 0) {
  GraphExec exec = GraphExec::instantiate(graph, InstantiateOptions{flags});
  CUDA_CHECK(cudaGraphUpload(exec.get(), stream));
  return exec;
}

// Instantiated for device launch and uploaded, so that a kernel may launch it.
GraphExec device_exec(const Graph& graph, cudaStream_t stream) {
  return plain_exec(graph, stream, cudaGraphInstantiateFlagDeviceLaunch);
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
  const Graph empty_graph = one_kernel_graph(stream, [&] { launch_count_kernel(ctl, stream); });
  const GraphExec empty_plain = plain_exec(empty_graph, stream);
  GraphExec empty_flag;
  try {
    empty_flag = device_exec(empty_graph, stream);
  } catch (const CudaError& error) {
    static_cast<void>(cudaGetLastError());
    throw NoDeviceError(std::string("device graph launch is not supported here: ") + error.what());
  }
  const Graph empty_tail_graph = one_kernel_graph(stream, [&] { launch_count_and_relaunch(ctl, stream); });
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
  const GraphExec empty_launcher = device_exec(
      one_kernel_graph(stream, [&] { launch_fire_children(ctl, empty_children.data(), fan_out, stream); }), stream);

  // ---- the article's work, one device slot per batch ---------------------------
  const Workload& work = config.common.work;
  BatchBuffers buffers(work, config.common.host_memory, work.batches);
  buffers.fill_inputs(config.common.seed);
  const BatchOps full_ops = batch_ops(buffers, gemm);
  auto capture_work = [&](const BatchOps& ops, bool relaunch) {
    return capture_on(stream, [&] {
      issue_on_streams(ops, pool, work.batches);
      if (relaunch) {
        launch_count_and_relaunch(ctl, stream);
      } else {
        launch_count_kernel(ctl, stream);
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
      one_kernel_graph(stream, [&] { launch_fire_children(ctl, work_children.data(), 1, stream); }), stream);
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
  auto host_launches = [&](const GraphExec& exec_ref, const char* what) {
    return TimedVariant{.prepare = [&reset] { reset(0, 0); },
                        .run =
                            [&, exec = &exec_ref, what] {
                              Millis sum{0};
                              for (int i = 0; i < kFlagLaunchesPerSample; ++i) {
                                sum += host_issue_time(stream, [&] { CUDA_CHECK(cudaGraphLaunch(exec->get(), stream)); });
                              }
                              const std::string failure = control_failure(kFlagLaunchesPerSample);
                              if (!failure.empty()) note(flag_checks, std::string(what) + ": " + failure);
                              return sum / kFlagLaunchesPerSample;
                            },
                        .after_last = nullptr};
  };
  measure_interleaved_into(plan,
                           {host_launches(empty_plain, "the empty graph, plain"),
                            host_launches(empty_flag, "the empty graph, device-launch flag"),
                            host_launches(work_plain, "the work, plain"),
                            host_launches(work_flag, "the work, device-launch flag")},
                           {&figures.empty_plain_cpu, &figures.empty_flag_cpu, &figures.work_plain_cpu,
                            &figures.work_flag_cpu});
  // The flag runs leave the work's outputs computed: checked with the host's.

  progress("N launches from the host, by tail launch and fire-and-forget");
  // ---- N launches three ways ----------------------------------------------------
  // A variant: `prepare`, then `issue` timed with events, then the failure `check` finds noted in `out`.
  auto timed = [&](LaunchRun& out_ref, std::function<void()> prepare, std::function<void()> issue,
                   std::function<std::string()> check, std::function<void()> after_last) {
    return TimedVariant{.prepare = std::move(prepare),
                        .run =
                            [&, out = &out_ref, issue, check] {
                              const Millis time = gpu_time(timer, stream, issue);
                              note(*out, check());
                              return time;
                            },
                        .after_last = std::move(after_last)};
  };
  // One that resets the control (after `before`) and checks the count.
  auto launches = [&](LaunchRun& out, int fired, int total, std::function<void()> launch,
                      std::function<void()> before = nullptr, std::function<void()> after_last = nullptr) {
    return timed(
        out,
        [&reset, before, fired, total] {
          if (before) before();
          reset(fired, total);
        },
        std::move(launch), [&, total] { return control_failure(static_cast<unsigned long long>(total)); },
        std::move(after_last));
  };
  const int n = config.launches;
  const int work_n = config.work_launches;
  measure_interleaved_into(
      plan, {launches(figures.empty_host, 0, n,
                      [&] {
                        for (int i = 0; i < n; ++i) CUDA_CHECK(cudaGraphLaunch(empty_plain.get(), stream));
                      }),
             launches(figures.empty_tail, 1, n, [&] { CUDA_CHECK(cudaGraphLaunch(empty_tail.get(), stream)); }),
             launches(figures.empty_fire, 0, n, [&] { CUDA_CHECK(cudaGraphLaunch(empty_launcher.get(), stream)); })},
      {&figures.empty_host.end_to_end, &figures.empty_tail.end_to_end, &figures.empty_fire.end_to_end});

  WorkRuns& w = figures.work;
  measure_interleaved_into(
      plan, {launches(w.host, 0, work_n,
                      [&] {
                        for (int i = 0; i < work_n; ++i) CUDA_CHECK(cudaGraphLaunch(work_plain.get(), stream));
                      },
                      poison, [&] { w.host_check = verify_work(); }),
             launches(w.tail, 1, work_n, [&] { CUDA_CHECK(cudaGraphLaunch(work_tail.get(), stream)); }, poison,
                      [&] { w.tail_check = verify_work(); }),
             launches(w.fire, 0, work_n, [&] { CUDA_CHECK(cudaGraphLaunch(work_launcher.get(), stream)); }, poison,
                      [&] { w.fire_check = verify_work(); })},
      {&w.host.end_to_end, &w.tail.end_to_end, &w.fire.end_to_end});
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
    return one_kernel_graph(stream, [&] { launch_decided_work(st, trace.data(), id, config.common.seed, stream); });
  };
  const Graph graph_a = decided(0), graph_b = decided(1);
  const GraphExec a_plain = plain_exec(graph_a, stream), b_plain = plain_exec(graph_b, stream);
  const GraphExec a_flag = device_exec(graph_a, stream), b_flag = device_exec(graph_b, stream);
  const GraphExec scheduler = device_exec(
      one_kernel_graph(stream, [&] { launch_schedule(st, a_flag.get(), b_flag.get(), stream); }), stream);
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
  measure_interleaved_into(
      plan, {timed(figures.decide_host, start_decisions,
                   [&] {
                     for (int step = 0; step < n; ++step) {
                       CUDA_CHECK(cudaMemcpyAsync(choice.data(), &st->choice, sizeof(int), cudaMemcpyDeviceToHost,
                                                  stream));
                       CUDA_CHECK(cudaStreamSynchronize(stream));
                       CUDA_CHECK(cudaGraphLaunch(choice.data()[0] == 0 ? a_plain.get() : b_plain.get(), stream));
                     }
                   },
                   decisions_failure, nullptr),
             timed(figures.decide_device, start_decisions,
                   [&] { CUDA_CHECK(cudaGraphLaunch(scheduler.get(), stream)); }, decisions_failure, nullptr)},
      {&figures.decide_host.end_to_end, &figures.decide_device.end_to_end});
  return figures;
}

}  // namespace csg::graphs
