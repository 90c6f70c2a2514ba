#include "04_graph_capture_gemm/lab/pdl/pdl.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "base/parallel.hpp"
#include "experiment/lab.hpp"
#include "workload/spin.hpp"

namespace csg::graphs {
namespace {

// Every edge of `graph` into `total`, and how many are programmatic (CUDA
// 13's cudaGraphGetEdges takes the edge data).
void count_edges(const Graph& graph, int& total, int& programmatic) {
  std::size_t count = 0;
  const cudaError_t status = cudaGraphGetEdges(graph.get(), nullptr, nullptr, nullptr, &count);
  if (status == cudaErrorLossyQuery) {
    // Should the count alone be refused as lossy (the edges carry data), ask
    // with room for more edges than a chain of these nodes can have.
    static_cast<void>(cudaGetLastError());
    count = 4 * graph.node_count() + 16;
  } else {
    CSG_CUDA_ON_ERROR(status, "cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count)", ::csg::throw_cuda_error);
  }
  total = programmatic = 0;
  if (count == 0) return;
  std::vector<cudaGraphNode_t> from(count), to(count);
  std::vector<cudaGraphEdgeData> data(count);
  CUDA_CHECK(cudaGraphGetEdges(graph.get(), from.data(), to.data(), data.data(), &count));
  total = static_cast<int>(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (data[i].type == cudaGraphDependencyTypeProgrammatic) ++programmatic;
  }
}

// One timed run: the spin kernel holds the stream for `hold_ms` while the
// host queues `issue`; the events time what follows the hold. Stores the
// host's issue time in `issue_ms`.
Millis held_run(EventTimer& timer, cudaStream_t stream, double hold_ms, const std::function<void()>& issue,
                Millis& issue_ms) {
  launch_spin(std::chrono::nanoseconds(static_cast<long long>(hold_ms * 1e6)), 1, stream);
  return gpu_and_issue_time(timer, stream, issue_ms, issue);
}

// What one chain gives drive(): how to queue it, how to check it.
struct ChainDriver {
  PdlChainRun& run;
  cudaStream_t stream;
  // Kernel `index` of the chain for way `w` (programmatic for the PDL ways):
  // drive() queues the whole chain with it (the stream ways run it, the graph
  // ways are captured from it once).
  std::function<void(bool programmatic, int w, int index)> issue_kernel;
  std::function<void(long long run_index)> issue_alone;  // one kernel of the chain
  std::function<void()> prepare;                          // before every run, untimed; may be empty
  // After the last run of way `w` (kPdlWays: the kernel alone), which ran
  // `runs` times in all: checks its outputs, sets run.passed[w] and, when it
  // failed, run.failure (the first failure wins).
  std::function<void(int w, long long runs)> check_after;
};

void issue_chain(const ChainDriver& d, PdlWay way) {
  const bool programmatic = way == PdlWay::stream_pdl || way == PdlWay::graph_pdl;
  for (int i = 0; i < d.run.kernels; ++i) d.issue_kernel(programmatic, index_of(way), i);
}

void note_failure(PdlChainRun& run, const std::string& why) {
  if (run.failure.empty()) run.failure = why;
}

// Captures the two graphs and counts their edges, then runs the four ways
// and the kernel alone interleaved in rounds (`plan`), each run held behind
// the spin kernel (run.hold_ms, set here) and timed with events.
void drive(const RepeatPlan& plan, const ChainDriver& d) {
  PdlChainRun& run = d.run;
  run.hold_ms = pdl_hold_ms(run.kernels);
  const Graph plain_graph = capture_on(d.stream, [&] { issue_chain(d, PdlWay::graph_plain); });
  const Graph pdl_graph = capture_on(d.stream, [&] { issue_chain(d, PdlWay::graph_pdl); });
  count_edges(plain_graph, run.plain_graph_edges, run.plain_programmatic_edges);
  count_edges(pdl_graph, run.graph_edges, run.programmatic_edges);
  if (run.programmatic_edges != run.kernels - 1) {
    note_failure(run, "the captured PDL chain has " + std::to_string(run.programmatic_edges) +
                          " programmatic edges of " + std::to_string(run.graph_edges) + ", expected " +
                          std::to_string(run.kernels - 1));
  }
  if (run.graph_edges != run.kernels - 1 || run.plain_graph_edges != run.kernels - 1) {
    note_failure(run, "the captured chains have " + std::to_string(run.plain_graph_edges) + " (plain) and " +
                          std::to_string(run.graph_edges) + " (PDL) edges, expected " +
                          std::to_string(run.kernels - 1));
  }
  if (run.plain_programmatic_edges != 0) {
    note_failure(run, "the captured plain chain has " + std::to_string(run.plain_programmatic_edges) +
                          " programmatic edges, expected none");
  }
  const GraphExec plain_exec = GraphExec::instantiate(plain_graph);
  const GraphExec pdl_exec = GraphExec::instantiate(pdl_graph);
  CUDA_CHECK(cudaGraphUpload(plain_exec.get(), d.stream));
  CUDA_CHECK(cudaGraphUpload(pdl_exec.get(), d.stream));
  CUDA_CHECK(cudaStreamSynchronize(d.stream));

  EventTimer timer;
  std::array<Millis, kPdlWays + 1> issue_ms{};
  std::array<long long, kPdlWays + 1> runs{};
  std::vector<TimedVariant> variants;
  for (const PdlWay way : kAllPdlWays) {
    const int w = index_of(way);
    const cudaGraphExec_t exec = way == PdlWay::graph_pdl ? pdl_exec.get() : plain_exec.get();
    const std::function<void()> issue = [&d, way, exec] {
      if (way == PdlWay::graph_plain || way == PdlWay::graph_pdl) {
        CUDA_CHECK(cudaGraphLaunch(exec, d.stream));
      } else {
        issue_chain(d, way);
      }
    };
    variants.push_back(TimedVariant{.prepare = d.prepare,
                                    .run =
                                        [&timer, &d, &run, &issue_ms, &runs, w, issue] {
                                          ++runs[w];
                                          return held_run(timer, d.stream, run.hold_ms, issue, issue_ms[w]);
                                        },
                                    .after_last = [&d, &runs, w] { d.check_after(w, runs[w]); },
                                    .side = [&issue_ms, w] { return issue_ms[w]; }});
  }
  variants.push_back(TimedVariant{.prepare = d.prepare,
                                  .run =
                                      [&] {
                                        const long long index = runs[kPdlWays]++;
                                        return held_run(timer, d.stream, pdl_hold_ms(1),
                                                        [&] { d.issue_alone(index); }, issue_ms[kPdlWays]);
                                      },
                                  .after_last = [&d, &runs] { d.check_after(kPdlWays, runs[kPdlWays]); },
                                  .side = nullptr});
  const std::vector<Measured> measured = measure_rounds(plan, variants);
  for (int w = 0; w < kPdlWays; ++w) {
    run.chain[w] = measured[w].primary;
    run.issue[w] = *measured[w].side;
  }
  run.alone = measured[kPdlWays].primary;
}

std::string way_label(int w) { return w == kPdlWays ? std::string("one kernel alone") : to_string(kAllPdlWays[w]); }

PdlChainRun run_gemm_chain(const PdlConfig& config, cudaStream_t stream) {
  const Workload& work = config.common.work;
  const GemmShape shape = work.shape;
  PdlChainRun run;
  run.kernels = work.batches;

  std::vector<float> host_a(work.batch_count() * work.a_elems());
  std::vector<float> host_b(work.b_elems());
  std::vector<float> host_c(work.batch_count() * work.c_elems());
  fill_inputs(work, config.common.seed, host_a, host_b);
  DeviceBuffer<float> a(host_a.size()), b(host_b.size()), c(host_c.size());
  CUDA_CHECK(cudaMemcpy(a.data(), host_a.data(), a.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(b.data(), host_b.data(), b.bytes(), cudaMemcpyHostToDevice));

  const dim3 grid = naive_grid(shape);
  const dim3 block = naive_block();
  // Batch `batch` of the chain; the first has no previous output and is
  // always a plain launch (nothing before it in the chain to overlap).
  auto gemm = [&](bool programmatic, int batch) {
    const float* previous = batch == 0 ? nullptr : c.data() + std::size_t(batch - 1) * work.c_elems();
    const float* a_batch = a.data() + std::size_t(batch) * work.a_elems();
    float* c_batch = c.data() + std::size_t(batch) * work.c_elems();
    launch_chain_gemm(programmatic && batch > 0, grid, block, stream, a_batch, b.data(), previous, c_batch, shape.m,
                      shape.n, shape.k);
  };
  const ChainDriver driver{
      .run = run,
      .stream = stream,
      .issue_kernel = [&](bool programmatic, int, int batch) { gemm(programmatic, batch); },
      .issue_alone = [&](long long) { gemm(false, 0); },
      .prepare = [&] { poison_device(c.data(), c.size(), stream); },
      .check_after =
          [&](int w, long long) {
            // The kernel alone wrote C_0 only: that one batch is checked.
            const int batches = w == kPdlWays ? 1 : work.batches;
            const std::size_t elems = std::size_t(batches) * work.c_elems();
            CUDA_CHECK(cudaMemcpyAsync(host_c.data(), c.data(), elems * sizeof(float), cudaMemcpyDeviceToHost,
                                       stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            undo_carry(std::span<float>(host_c.data(), elems), work.c_elems(), batches);
            VerifyResult result = verify_batches(Workload{batches, shape}, host_a, host_b,
                                                 std::span<const float>(host_c.data(), elems),
                                                 VerifyOptions{config.common.seed, 32});
            run.passed[w] = result.passed;
            if (!result.passed) note_failure(run, "GEMM chain, " + way_label(w) + ": " + result.message());
            run.verified[w] = std::move(result);
          }};
  drive(config.common.plan, driver);
  return run;
}

PdlChainRun run_empty_chain(const PdlConfig& config, cudaStream_t stream) {
  PdlChainRun run;
  run.kernels = config.empty_kernels();
  // Each way (and the kernel alone, last) has its own pair of counters: the
  // sequence number and how many kernels saw the wrong parity.
  DeviceBuffer<unsigned long long> counters(2 * (kPdlWays + 1));
  CUDA_CHECK(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream));
  auto step = [&](bool programmatic, int w, long long index) {
    unsigned long long* sequence = counters.data() + 2 * w;
    unsigned long long* wrong = sequence + 1;
    const bool even = index % 2 == 0;
    launch_sequence_step(programmatic && index > 0, even, stream, sequence, wrong);
  };
  const ChainDriver driver{
      .run = run,
      .stream = stream,
      .issue_kernel = step,
      .issue_alone = [&](long long index) { step(false, kPdlWays, index); },
      .prepare = nullptr,
      .check_after =
          [&](int w, long long runs) {
            unsigned long long values[2] = {0, 0};
            CUDA_CHECK(cudaMemcpyAsync(values, counters.data() + 2 * w, sizeof values, cudaMemcpyDeviceToHost,
                                       stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            const long long per_run = w == kPdlWays ? 1 : run.kernels;
            const auto expected = static_cast<unsigned long long>(runs * per_run);
            run.passed[w] = values[0] == expected && values[1] == 0;
            if (!run.passed[w]) {
              note_failure(run, "empty pair, " + way_label(w) + ": the sequence reached " + std::to_string(values[0]) +
                                    " (expected " + std::to_string(expected) + "), " + std::to_string(values[1]) +
                                    " kernels saw the wrong parity");
            }
          }};
  drive(config.common.plan, driver);
  return run;
}

}  // namespace

const char* to_string(PdlWay way) {
  constexpr const char* kNames[kPdlWays] = {"stream_plain", "stream_pdl", "graph_plain", "graph_pdl"};
  return kNames[index_of(way)];
}

double pdl_hold_ms(int kernels) { return 0.1 + 0.01 * kernels; }

void undo_carry(std::span<float> c, std::size_t c_elems, int batches) {
  if (c.size() < std::size_t(batches) * c_elems) {
    throw std::invalid_argument("undo_carry: buffer smaller than the chain");
  }
  // Each element's chain through the batches is its own: the host's cores
  // take ranges of elements (100 outputs of 1024² are 100 M fmods), an
  // element costing one fmod per batch.
  parallel_for(c_elems, [&](std::size_t begin, std::size_t end) {
    for (int batch = batches - 1; batch >= 1; --batch) {
      float* out = c.data() + std::size_t(batch) * c_elems;
      const float* previous = out - c_elems;
      for (std::size_t i = begin; i < end; ++i) out[i] -= std::fmod(previous[i], kPdlCarry);
    }
  }, grain_for(std::size_t(batches)));
}

void require_pdl(int device) {
  int major = 0;
  int minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major < 9) {
    throw NoDeviceError("programmatic dependent launch needs compute capability 9.0 or newer; this GPU is " +
                        std::to_string(major) + "." + std::to_string(minor));
  }
}

PdlCosts measure_pdl(const PdlConfig& config) {
  const Stream stream;
  PdlCosts costs;
  costs.empty = run_empty_chain(config, stream.get());
  costs.gemm = run_gemm_chain(config, stream.get());
  return costs;
}

}  // namespace csg::graphs
