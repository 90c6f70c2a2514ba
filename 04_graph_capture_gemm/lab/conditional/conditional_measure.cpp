#include "04_graph_capture_gemm/lab/conditional/conditional.hpp"
#include "04_graph_capture_gemm/lab/conditional/conditional_kernels.hpp"
#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"

namespace csg::graphs {
namespace {

// ---- graphs -------------------------------------------------------------------

Graph new_graph() {
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  return Graph(graph);
}

// Captures what `issue` queues on `stream` into `graph` (a conditional
// node's body, owned by the node), after the nodes it already holds.
template <class Issue>
void capture_into(cudaGraph_t graph, cudaStream_t stream, Issue&& issue) {
  CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, graph, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
  try {
    issue();
  } catch (...) {
    cudaGraph_t dropped = nullptr;
    static_cast<void>(cudaStreamEndCapture(stream, &dropped));
    throw;
  }
  cudaGraph_t captured = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(stream, &captured));
}

// A <<<1, 1>>> kernel node of `kernel` with `args`, after `deps`.
cudaGraphNode_t add_kernel(cudaGraph_t graph, const void* kernel, void** args, const cudaGraphNode_t* deps,
                           std::size_t deps_count) {
  cudaKernelNodeParams params{};
  params.func = const_cast<void*>(kernel);
  params.gridDim = dim3(1);
  params.blockDim = dim3(1);
  params.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  CUDA_CHECK(cudaGraphAddKernelNode(&node, graph, deps, deps_count, &params));
  return node;
}

// A conditional node of `type` with `size` bodies after `dep`; its bodies.
cudaGraph_t* add_conditional(cudaGraph_t graph, cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                             unsigned int size, cudaGraphNode_t dep) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = type;
  params.conditional.size = size;
  cudaGraphNode_t node = nullptr;
  CUDA_CHECK(cudaGraphAddNode(&node, graph, &dep, nullptr, 1, &params));
  return params.conditional.phGraph_out;
}

GraphExec uploaded(const Graph& graph, cudaStream_t stream) {
  GraphExec exec = GraphExec::instantiate(graph);
  CUDA_CHECK(cudaGraphUpload(exec.get(), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return exec;
}

// ---- the body's buffers ---------------------------------------------------------

// One GEMM's A, B and C (BatchBuffers of one batch, pinned), inputs on the device.
std::unique_ptr<BatchBuffers> gemm_buffers(int size, std::uint64_t seed, cudaStream_t stream) {
  auto buffers = std::make_unique<BatchBuffers>(Workload{1, GemmShape{size, size, size}}, HostMemory::pinned, 1);
  buffers->fill_inputs(seed);
  CUDA_CHECK(cudaMemcpyAsync(buffers->device_a(0), buffers->host_a(0), buffers->work().a_bytes(),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return buffers;
}

// C back to the host.
BatchBuffers& c_on_host(BatchBuffers& buffers, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(buffers.host_c(0), buffers.device_c(0), buffers.work().c_bytes(),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return buffers;
}

// Whether C on the device is still all NaN (nothing wrote it since the poison).
bool still_poisoned(BatchBuffers& buffers, cudaStream_t stream) {
  const float* c = c_on_host(buffers, stream).host_c(0);
  return std::all_of(c, c + buffers.work().c_elems(), [](float x) { return std::isnan(x); });
}

template <class T>
T read_back(const T* device, cudaStream_t stream) {
  T value{};
  CUDA_CHECK(cudaMemcpyAsync(&value, device, sizeof(T), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

class Study {
 public:
  Study(const ConditionalConfig& config, const RepeatPlan& plan, std::uint64_t seed, cudaStream_t stream)
      : config_(config), plan_(plan), seed_(seed), stream_(stream) {}

  ConditionalCosts run() {
    loop_state_ = DeviceBuffer<LoopState>(1);
    host_go_ = HostBuffer<unsigned int>(1, HostMemory::pinned);
    gemm_ = gemm_buffers(config_.size, seed_, stream_);
    // As before the SWITCH graph below: the whole device synchronised before
    // these buffers go into WHILE graphs (compute-sanitizer has misread
    // conditional graphs that read memory allocated just before capture).
    CUDA_CHECK(cudaDeviceSynchronize());
    for (const LoopBody body : {LoopBody::empty, LoopBody::gemm}) {
      LoopFigures& figures = costs_.loops[static_cast<int>(body)];
      figures.body = body;
      for (const int n : config_.iterations) figures.points.push_back(loop_point(body, n));
    }
    if (config_.requests > 0) costs_.switch_node = switch_figures();
    return std::move(costs_);
  }

 private:
  void fail(const std::string& why) {
    if (costs_.checked) costs_.failure = why;
    costs_.checked = false;
  }

  // The body's kernels on `stream`: the GEMM (unless empty), then the step,
  // which sets `handle`'s condition where there is one.
  void issue_body(LoopBody body, cudaStream_t stream, const cudaGraphConditionalHandle* handle) {
    if (body == LoopBody::gemm) {
      const GemmShape shape{config_.size, config_.size, config_.size};
      launch_gemm_naive(gemm_->device_a(0), gemm_->device_b(), gemm_->device_c(0), shape, stream);
    }
    if (handle != nullptr) {
      launch_step_while(loop_state_.data(), *handle, stream);
      CUDA_CHECK_LAUNCH("step_while");
    } else {
      launch_step(loop_state_.data(), stream);
      CUDA_CHECK_LAUNCH("step");
    }
  }

  void issue_start(cudaStream_t stream) {
    launch_start_loop(loop_state_.data(), stream);
    CUDA_CHECK_LAUNCH("start_loop");
  }

  // [start_while -> WHILE(body)]: the whole loop in one graph.
  GraphExec while_graph(LoopBody body) {
    Graph graph = new_graph();
    cudaGraphConditionalHandle handle{};
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph.get(), 0, cudaGraphCondAssignDefault));
    LoopState* state = loop_state_.data();
    void* args[] = {&state, &handle};
    const cudaGraphNode_t start = add_kernel(graph.get(), start_while_kernel(), args, nullptr, 0);
    cudaGraph_t* bodies = add_conditional(graph.get(), handle, cudaGraphCondTypeWhile, 1, start);
    capture_into(bodies[0], stream_, [&] { issue_body(body, stream_, &handle); });
    return uploaded(graph, stream_);
  }

  // A run's check: the counter must equal N.
  void check_counter(const std::string& what, int n) {
    const LoopState state = read_back(loop_state_.data(), stream_);
    ++costs_.counter_checks;
    if (state.counter != static_cast<unsigned int>(n)) {
      fail(what + ": the counter reads " + std::to_string(state.counter) + " after a loop of " + std::to_string(n));
    }
  }

  // A variant: `issue` timed with events on the stream, `check` after every
  // run, `verify` after the last.
  template <class Issue, class Check, class Verify>
  TimedVariant timed(EventTimer& timer, std::function<void()> prepare, Issue issue, Check check, Verify verify) {
    return TimedVariant{.prepare = std::move(prepare),
                        .run =
                            [this, &timer, issue, check] {
                              const Millis time = gpu_time(timer, stream_, issue);
                              check();
                              return time;
                            },
                        .after_last = verify};
  }

  LoopPoint loop_point(LoopBody body, int n) {
    LoopPoint point;
    point.iterations = n;
    const std::string label = std::string(to_string(body)) + " body, N = " + std::to_string(n);
    const LoopState initial{0u, static_cast<unsigned int>(n), 0u};
    CUDA_CHECK(cudaMemcpyAsync(loop_state_.data(), &initial, sizeof initial, cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));

    // The start and N bodies queued from the host: the kernel loop, and what the unrolled graph captures.
    auto kernel_loop = [&] {
      issue_start(stream_);
      for (int i = 0; i < n; ++i) issue_body(body, stream_, nullptr);
    };
    const GraphExec while_exec = while_graph(body);
    const GraphExec one_body = uploaded(capture_on(stream_, [&] { issue_body(body, stream_, nullptr); }), stream_);
    GraphExec unrolled;
    if (n <= config_.unroll_max) {
      const HostTimer timer;
      const Graph graph = capture_on(stream_, kernel_loop);
      unrolled = GraphExec::instantiate(graph);
      point.unrolled_instantiate_ms = timer.elapsed().count();
      CUDA_CHECK(cudaGraphUpload(unrolled.get(), stream_));
      point.unrolled_measured = true;
    }

    EventTimer timer;
    std::vector<TimedVariant> variants;
    std::vector<Summary*> into;
    auto add = [&](int variant, auto issue) {
      const std::string what = label + ", " + kLoopVariantNames[variant];
      into.push_back(&point.variant[variant]);
      variants.push_back(timed(
          timer, [&] { if (body == LoopBody::gemm) gemm_->poison_device_outputs(stream_); }, issue,
          [&, what] { check_counter(what, n); },
          [&, what] {
            if (body != LoopBody::gemm) return;
            VerifyResult check = c_on_host(*gemm_, stream_).verify(seed_);
            if (!check.passed) check.method = what + ": " + check.method;
            costs_.gemm_checks.push_back(std::move(check));
          }));
    };
    add(kWhileNode, [&] { CUDA_CHECK(cudaGraphLaunch(while_exec.get(), stream_)); });
    add(kKernelLoop, kernel_loop);
    add(kGraphLoop, [&] {
      issue_start(stream_);
      for (int i = 0; i < n; ++i) CUDA_CHECK(cudaGraphLaunch(one_body.get(), stream_));
    });
    if (point.unrolled_measured) add(kUnrolled, [&] { CUDA_CHECK(cudaGraphLaunch(unrolled.get(), stream_)); });
    add(kHostDecided, [&] {
      issue_start(stream_);
      unsigned int* go = host_go_.data();
      do {
        issue_body(body, stream_, nullptr);
        CUDA_CHECK(cudaMemcpyAsync(go, &loop_state_.data()->go, sizeof *go, cudaMemcpyDeviceToHost, stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
      } while (*go != 0);
    });

    const std::vector<Summary> summaries = measure_interleaved(plan_, variants);
    for (std::size_t i = 0; i < summaries.size(); ++i) *into[i] = summaries[i];
    return point;
  }

  SwitchFigures switch_figures() {
    SwitchFigures figures;
    figures.measured = true;
    figures.requests = config_.requests;
    const int count = static_cast<int>(config_.buckets.size());
    std::vector<std::unique_ptr<BatchBuffers>> outputs;
    for (const int size : config_.buckets) outputs.push_back(gemm_buffers(size, seed_, stream_));

    const std::vector<int> sizes = request_sizes(config_.requests, config_.buckets.back(), seed_);
    figures.per_bucket.assign(count, 0);
    for (const int size : sizes) ++figures.per_bucket[bucket_of(size, config_.buckets)];
    std::vector<unsigned int> device_sizes(sizes.begin(), sizes.end());
    std::vector<unsigned int> bucket_sizes(config_.buckets.begin(), config_.buckets.end());
    DeviceBuffer<unsigned int> sizes_on_device(device_sizes.size());
    DeviceBuffer<unsigned int> buckets_on_device(bucket_sizes.size());
    DeviceBuffer<RequestState> state(1);
    CUDA_CHECK(cudaMemcpyAsync(sizes_on_device.data(), device_sizes.data(), sizes_on_device.bytes(),
                               cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(buckets_on_device.data(), bucket_sizes.data(), buckets_on_device.bytes(),
                               cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    // The whole device, not only the stream, before these buffers go into a
    // graph with a conditional node: under compute-sanitizer memcheck on the
    // H200, 3 of 80 tiny runs hit an illegal address in the SWITCH graph's
    // launches with the stream synchronised alone, none of 80 with this.
    CUDA_CHECK(cudaDeviceSynchronize());

    auto issue_bucket = [&](int b, cudaStream_t stream) {
      const GemmShape shape{config_.buckets[b], config_.buckets[b], config_.buckets[b]};
      BatchBuffers& out = *outputs[b];
      launch_gemm_naive(out.device_a(0), out.device_b(), out.device_c(0), shape, stream);
      launch_served_by(state.data(), b, stream);
      CUDA_CHECK_LAUNCH("served_by");
    };

    // The host's choice: one graph per bucket.
    std::vector<GraphExec> bucket_graphs;
    for (int b = 0; b < count; ++b) {
      bucket_graphs.push_back(uploaded(capture_on(stream_, [&] { issue_bucket(b, stream_); }), stream_));
    }
    // The device's: [next_request -> choose_bucket -> SWITCH(one body per bucket)].
    Graph graph = new_graph();
    cudaGraphConditionalHandle handle{};
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, graph.get(), static_cast<unsigned int>(count),
                                                cudaGraphCondAssignDefault));
    const unsigned int* sizes_ptr = sizes_on_device.data();
    const unsigned int* buckets_ptr = buckets_on_device.data();
    RequestState* state_ptr = state.data();
    int bucket_count = count;
    void* next_args[] = {&sizes_ptr, &state_ptr};
    const cudaGraphNode_t next = add_kernel(graph.get(), next_request_kernel(), next_args, nullptr, 0);
    void* choose_args[] = {&state_ptr, &buckets_ptr, &bucket_count, &handle};
    const cudaGraphNode_t choose = add_kernel(graph.get(), choose_bucket_kernel(), choose_args, &next, 1);
    cudaGraph_t* bodies = add_conditional(graph.get(), handle, cudaGraphCondTypeSwitch, count, choose);
    for (int b = 0; b < count; ++b) capture_into(bodies[b], stream_, [&] { issue_bucket(b, stream_); });
    const GraphExec switch_exec = uploaded(graph, stream_);

    HostBuffer<unsigned int> host_size(1, HostMemory::pinned);
    EventTimer timer;
    auto prepare = [&] {
      CUDA_CHECK(cudaMemsetAsync(state.data(), 0, sizeof(RequestState), stream_));
      for (auto& out : outputs) out->poison_device_outputs(stream_);
    };
    auto check_counts = [&](const std::string& what) {
      const RequestState served = read_back(state.data(), stream_);
      ++costs_.counter_checks;
      if (served.next != static_cast<unsigned int>(config_.requests)) {
        fail(what + ": " + std::to_string(served.next) + " requests taken of " + std::to_string(config_.requests));
      }
      for (int b = 0; b < count; ++b) {
        if (served.served[b] != static_cast<unsigned int>(figures.per_bucket[b])) {
          fail(what + ": bucket " + std::to_string(config_.buckets[b]) + " ran " + std::to_string(served.served[b]) +
               " times, its requests number " + std::to_string(figures.per_bucket[b]));
        }
      }
    };
    auto verify_buckets = [&](const std::string& what) {
      for (int b = 0; b < count; ++b) {
        if (figures.per_bucket[b] == 0) {
          if (!still_poisoned(*outputs[b], stream_)) {
            fail(what + ": bucket " + std::to_string(config_.buckets[b]) + " wrote its output, yet no request chose it");
          }
          continue;
        }
        VerifyResult check = c_on_host(*outputs[b], stream_).verify(seed_);
        if (!check.passed) check.method = what + ", bucket " + std::to_string(config_.buckets[b]) + ": " + check.method;
        costs_.gemm_checks.push_back(std::move(check));
      }
    };
    auto variant = [&](const std::string& what, auto issue) {
      return timed(timer, prepare, issue, [&, what] { check_counts(what); }, [&, what] { verify_buckets(what); });
    };
    const std::vector<TimedVariant> variants = {
        variant("SWITCH node",
                [&] {
                  for (int r = 0; r < config_.requests; ++r) CUDA_CHECK(cudaGraphLaunch(switch_exec.get(), stream_));
                }),
        variant("host's choice", [&] {
          unsigned int* size = host_size.data();
          for (int r = 0; r < config_.requests; ++r) {
            launch_next_request(sizes_on_device.data(), state.data(), stream_);
            CUDA_CHECK_LAUNCH("next_request");
            CUDA_CHECK(cudaMemcpyAsync(size, &state.data()->size, sizeof *size, cudaMemcpyDeviceToHost, stream_));
            CUDA_CHECK(cudaStreamSynchronize(stream_));
            const int b = bucket_of(static_cast<int>(*size), config_.buckets);
            if (b < 0) throw std::logic_error("a request larger than every bucket");
            CUDA_CHECK(cudaGraphLaunch(bucket_graphs[b].get(), stream_));
          }
        })};
    measure_interleaved_into(plan_, variants, {&figures.device_chosen, &figures.host_chosen});
    return figures;
  }

  const ConditionalConfig& config_;
  RepeatPlan plan_;
  std::uint64_t seed_;
  cudaStream_t stream_;
  ConditionalCosts costs_;
  DeviceBuffer<LoopState> loop_state_;
  HostBuffer<unsigned int> host_go_;
  std::unique_ptr<BatchBuffers> gemm_;
};

}  // namespace

ConditionalCosts measure_conditional(const ConditionalConfig& config) {
  const Stream stream;
  return Study(config, config.common.plan, config.common.seed, stream.get()).run();
}

}  // namespace csg::graphs
