// The memory-nodes subcommand's GPU work: the article's graph with each
// batch's device A and C allocated inside it (cudaMallocAsync and
// cudaFreeAsync captured on the batch's stream become memory nodes) and the
// same graph on preallocated buffers, instantiated, replayed and checked, and
// the graph memory the driver reports at every moment from instantiate to trim.
#include <iostream>
#include <utility>
#include <vector>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/memory-nodes/memory_nodes.hpp"
#include "base/progress.hpp"

namespace csg::graphs {
namespace {

// The addresses a capture of allocating_ops recorded: the graph's own,
// valid while it runs. One set per captured graph.
struct GraphAddresses {
  std::vector<float*> a;
  std::vector<float*> c;
};

// Batch i's three calls as batch_ops makes them, with its device A and C
// allocated on its stream before the H2D and freed after the D2H. Captured,
// the allocations and frees are the graph's memory nodes, and the kernel and
// copies use the addresses they returned. `buffers`, `gemm` and `at` must
// outlive the capture.
BatchOps allocating_ops(BatchBuffers& buffers, const Gemm& gemm, GraphAddresses& at) {
  at.a.assign(std::size_t(buffers.work().batches), nullptr);
  at.c.assign(std::size_t(buffers.work().batches), nullptr);
  BatchBuffers* b = &buffers;
  const Gemm* g = &gemm;
  GraphAddresses* d = &at;
  return BatchOps{
      .h2d = [b, d](int i, cudaStream_t stream) {
        void* a = nullptr;
        void* c = nullptr;
        CUDA_CHECK(cudaMallocAsync(&a, b->work().a_bytes(), stream));
        CUDA_CHECK(cudaMallocAsync(&c, b->work().c_bytes(), stream));
        d->a[std::size_t(i)] = static_cast<float*>(a);
        d->c[std::size_t(i)] = static_cast<float*>(c);
        CUDA_CHECK(cudaMemcpyAsync(a, b->host_a(i), b->work().a_bytes(), cudaMemcpyHostToDevice, stream));
      },
      .compute = [b, g, d](int i, cudaStream_t stream) {
        g->run(d->a[std::size_t(i)], b->device_b(), d->c[std::size_t(i)], b->work().shape, stream);
      },
      .d2h = [b, d](int i, cudaStream_t stream) {
        float* c = d->c[std::size_t(i)];
        CUDA_CHECK(cudaMemcpyAsync(b->host_c(i), c, b->work().c_bytes(), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaFreeAsync(d->a[std::size_t(i)], stream));
        CUDA_CHECK(cudaFreeAsync(c, stream));
      }};
}

// Every host A_i from --seed or from a second seed (B keeps --seed's). The
// memory graph's launches alternate them: its allocations may land on the
// physical memory of its previous launch, where the C of the other inputs
// still lies, so a launch that copied out a C its kernel had not written
// fails the check instead of passing on stale data.
class AlternatingInputs {
 public:
  AlternatingInputs(BatchBuffers& buffers, std::uint64_t seed) : buffers_(buffers), seed_(seed) {}
  void use(bool other) {
    if (other == other_) return;
    const Workload& work = buffers_.work();
    const std::uint64_t seed = other ? splitmix64(seed_ ^ 0x6d656d6f7279ull) : seed_;
    for (int i = 0; i < work.batches; ++i) {
      fill_matrix({buffers_.host_a(i), work.a_elems()}, seed, std::uint64_t(i) + 1);  // A_i is matrix i + 1
    }
    other_ = other;
  }
  void flip() { use(!other_); }

 private:
  BatchBuffers& buffers_;
  std::uint64_t seed_;
  bool other_ = false;
};

// The first failure stays; while none, the latest check.
void keep(VerifyResult& kept, VerifyResult latest) {
  if (kept.batches_checked > 0 && !kept.passed) return;
  kept = std::move(latest);
}

GraphMemory read_graph_memory(int device) {
  GraphMemory g;
  for (const auto& [attribute, into] :
       {std::pair{cudaGraphMemAttrUsedMemCurrent, &g.used_current},
        std::pair{cudaGraphMemAttrUsedMemHigh, &g.used_high},
        std::pair{cudaGraphMemAttrReservedMemCurrent, &g.reserved_current},
        std::pair{cudaGraphMemAttrReservedMemHigh, &g.reserved_high}}) {
    std::uint64_t value = 0;  // the attribute's type, cuuint64_t
    CUDA_CHECK(cudaDeviceGetGraphMemAttribute(device, attribute, &value));
    *into = value;
  }
  std::size_t free = 0;
  std::size_t total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  g.device_free = free;
  return g;
}

// The high-water marks can only be reset, to zero.
void reset_high_water(int device) {
  for (const cudaGraphMemAttributeType attribute : {cudaGraphMemAttrUsedMemHigh, cudaGraphMemAttrReservedMemHigh}) {
    std::uint64_t zero = 0;
    CUDA_CHECK(cudaDeviceSetGraphMemAttribute(device, attribute, &zero));
  }
}

}  // namespace

MemoryNodesFigures measure_memory_nodes(const ArticleOptions& options) {
  const CommonOptions& common = options.common;
  const Workload& work = common.work;
  const RepeatPlan& plan = common.plan;
  for (const std::string& warning : options.pool.warnings) std::cerr << warning << '\n';
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const Gemm gemm(common.gemm);
  MemoryNodesFigures f;
  f.sizes = memory_sizes(options);
  ArticleWork article(options, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  AlternatingInputs inputs(buffers, common.seed);

  // Launch, wait, check: the device buffers are the graph's, so only the
  // host's C can be poisoned and read.
  auto launch_checked = [&](const GraphExec& exec) {
    inputs.flip();
    buffers.poison_host_outputs();
    launch(exec, pool);
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    return buffers.verify(common.seed);
  };

  progress("capturing both graphs, and their instantiate times");
  const BatchOps preallocated_ops = batch_ops(buffers, gemm);
  const Graph preallocated_graph = capture_batches(preallocated_ops, pool, work.batches);
  GraphAddresses first_addresses;
  const Graph memory_graph = capture_batches(allocating_ops(buffers, gemm, first_addresses), pool, work.batches);
  f.memory_nodes = memory_graph.node_count();
  f.preallocated_nodes = preallocated_graph.node_count();
  // A graph with memory nodes has at most one exec at a time: each is destroyed in its round.
  auto instantiate_time = [](const Graph& graph) {
    const HostTimer timer;
    const GraphExec exec = instantiate(graph);
    return timer.elapsed();
  };
  measure_interleaved_into(plan,
                           {{.prepare = nullptr, .run = [&] { return instantiate_time(memory_graph); },
                             .after_last = nullptr},
                            {.prepare = nullptr, .run = [&] { return instantiate_time(preallocated_graph); },
                             .after_last = nullptr}},
                           {&f.memory_instantiate, &f.preallocated_instantiate});
  const GraphExec preallocated_exec = instantiate(preallocated_graph);

  progress("graph memory from instantiate to first launch");
  auto read = [&](Moment moment) { f.footprint[moment] = read_graph_memory(device); };
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaDeviceGraphMemTrim(device));  // whatever an earlier graph of this process left
  reset_high_water(device);
  read(Moment::baseline);
  {
    const GraphExec first = instantiate(memory_graph);
    read(Moment::instantiated);
    CUDA_CHECK(cudaGraphUpload(first.get(), pool[0]));
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    read(Moment::uploaded);
    // The inputs alternate from launch to launch so that the last timed
    // replay runs on --seed's (the digest every stage reports): the first
    // launch takes the other inputs when the timed runs are odd in number.
    const int runs = plan.warmup + plan.repeats;
    if (runs % 2 == 0) inputs.use(true);  // launch_checked flips: to --seed's for an even count
    f.first_launch_check = launch_checked(first);
    read(Moment::first_launch);

    progress("replays of both graphs, interleaved, each checked");
    EventTimer timer;
    Millis issued{};
    auto timed = [&](const GraphExec& exec) {
      timer.start(pool[0]);
      const HostTimer host;
      launch(exec, pool);
      issued = host.elapsed();
      return timer.stop();
    };
    const std::vector<Measured> replays = measure_rounds(
        plan, {{.prepare = [&] { inputs.flip(); buffers.poison_host_outputs(); },
                .run = [&] {
                  const Millis ms = timed(first);
                  keep(f.memory_check, buffers.verify(common.seed));
                  return ms;
                },
                .after_last = nullptr,
                .side = [&] { return issued; }},
               {.prepare = [&] { buffers.poison_outputs(pool[0]); },
                .run = [&] {
                  const Millis ms = timed(preallocated_exec);
                  keep(f.preallocated_check, buffers.verify(common.seed));
                  return ms;
                },
                .after_last = nullptr,
                .side = [&] { return issued; }}});
    f.memory_replay = replays.at(0).primary;
    f.memory_launch_cpu = replays.at(0).side.value();
    f.preallocated_replay = replays.at(1).primary;
    f.preallocated_launch_cpu = replays.at(1).side.value();
    read(Moment::replays);

    progress("a second memory graph beside the first; destroy; trim");
    GraphAddresses second_addresses;
    const Graph second_graph =
        capture_batches(allocating_ops(buffers, gemm, second_addresses), pool, work.batches);
    const GraphExec second = instantiate(second_graph);
    CUDA_CHECK(cudaGraphUpload(second.get(), pool[0]));
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    read(Moment::second_uploaded);
    keep(f.second_check, launch_checked(second));
    read(Moment::second_launched);
    // One after the other on one stream: the second's outputs are the ones checked.
    inputs.flip();
    buffers.poison_host_outputs();
    launch(first, pool);
    launch(second, pool);
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    keep(f.second_check, buffers.verify(common.seed));
    read(Moment::both_launched);
  }  // both memory execs (and the second graph) destroyed
  CUDA_CHECK(cudaDeviceSynchronize());
  read(Moment::destroyed);
  CUDA_CHECK(cudaDeviceGraphMemTrim(device));
  CUDA_CHECK(cudaDeviceSynchronize());
  read(Moment::trimmed);

  return f;
}

}  // namespace csg::graphs
