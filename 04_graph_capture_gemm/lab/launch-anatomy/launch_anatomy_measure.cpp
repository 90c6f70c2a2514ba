// The chains of the launch anatomy (launch_anatomy.hpp): graphs of small
// nodes of one kind, as one line or forked into lines, each launched back to
// back and checked after every launch.
#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy.hpp"
#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy_kernels.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr int kPoison = -1;  // every slot before a launch (memset 0xFF)

// The byte a memset node writes into its slot: never 0xFF, the poison.
int memset_byte(int node) { return 1 + node % 250; }
int memset_value(int node) {
  const auto b = static_cast<std::uint32_t>(memset_byte(node));
  return static_cast<int>(b | (b << 8) | (b << 16) | (b << 24));
}

// The slots of one graph: line j owns slots [j * (len + 1), (j + 1) * (len + 1)):
// its first slot is the counter (kernel) or the source (memcpy), then one slot per node.
class ChainSlots {
 public:
  ChainSlots(int lines, int len)
      : lines_(lines), len_(len), device_(count()), source_(count(), HostMemory::pinned),
        readback_(count(), HostMemory::pinned) {}
  std::size_t count() const { return static_cast<std::size_t>(lines_) * (len_ + 1); }
  int* line(int j) { return device_.data() + first(j); }
  int* source(int j) { return source_.data() + first(j); }
  int lines() const { return lines_; }
  int len() const { return len_; }

  // Before launch `round`: every slot poisoned, then what the kind starts from:
  // the counters at 0, the memcpy sources at a value of this round, the host
  // sources at values of this round (so a copy that did not run this launch shows).
  void prepare(NodeKind kind, int round, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(device_.data(), 0xFF, count() * sizeof(int), stream));
    for (std::size_t i = 0; i < count(); ++i) source_.data()[i] = round_value(round, static_cast<int>(i));
    if (kind == NodeKind::kernel || kind == NodeKind::memcpy) {
      for (int j = 0; j < lines_; ++j) {
        if (kind == NodeKind::kernel) source(j)[0] = 0;
        CUDA_CHECK(cudaMemcpyAsync(line(j), source(j), sizeof(int), cudaMemcpyHostToDevice, stream));
      }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // After the launch: the slots against what the chain must have left; the
  // first wrong one in words, or "" when all are right.
  std::string check(NodeKind kind, cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(readback_.data(), device_.data(), count() * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int j = 0; j < lines_; ++j) {
      const int* got = readback_.data() + first(j);
      for (int t = 0; t <= len_; ++t) {
        const int expected = expected_slot(kind, j, t);
        if (got[t] != expected) {
          return std::string(to_string(kind)) + " chain of " + std::to_string(lines_ * len_) + " nodes, line " +
                 std::to_string(j) + " slot " + std::to_string(t) + ": expected " + std::to_string(expected) +
                 ", got " + std::to_string(got[t]);
        }
      }
    }
    return "";
  }

 private:
  std::size_t first(int j) const { return static_cast<std::size_t>(j) * (len_ + 1); }  // line j's first slot
  static int round_value(int round, int index) { return 1000 + 7 * round + 13 * index; }
  int expected_slot(NodeKind kind, int j, int t) const {
    switch (kind) {
      case NodeKind::kernel: return t == 0 ? len_ : kPoison;
      case NodeKind::memcpy: return source_.data()[first(j)];  // copied down the whole line
      case NodeKind::memset: return t == 0 ? kPoison : memset_value(t - 1);
      case NodeKind::host_copy: return t == 0 ? kPoison : source_.data()[first(j) + t];
    }
    return kPoison;
  }

  int lines_;
  int len_;
  DeviceBuffer<int> device_;
  HostBuffer<int> source_;
  HostBuffer<int> readback_;
};

void issue_line(NodeKind kind, ChainSlots& slots, int j, cudaStream_t stream) {
  int* line = slots.line(j);
  for (int t = 0; t < slots.len(); ++t) {
    switch (kind) {
      case NodeKind::kernel:
        launch_add_one(line, stream);
        break;
      case NodeKind::memcpy:
        CUDA_CHECK(cudaMemcpyAsync(line + t + 1, line + t, sizeof(int), cudaMemcpyDeviceToDevice, stream));
        break;
      case NodeKind::memset:
        CUDA_CHECK(cudaMemsetAsync(line + t + 1, memset_byte(t), sizeof(int), stream));
        break;
      case NodeKind::host_copy:
        CUDA_CHECK(cudaMemcpyAsync(line + t + 1, slots.source(j) + t + 1, sizeof(int), cudaMemcpyHostToDevice, stream));
        break;
    }
  }
}

// One line on pool stream 0, or every stream of the pool forked from stream 0
// and joined back, each its own line.
Graph capture_chain(NodeKind kind, GraphShape shape, ChainSlots& slots, const StreamPool& pool) {
  CUDA_CHECK(cudaStreamBeginCapture(pool[0], cudaStreamCaptureModeGlobal));
  const CaptureGuard guard(pool);
  if (shape == GraphShape::line) {
    issue_line(kind, slots, 0, pool[0]);
  } else {
    csg::fork(pool);
    for (int j = 0; j < slots.lines(); ++j) issue_line(kind, slots, j, pool[j]);
    csg::join(pool);
  }
  return end_capture(pool[0]);
}

ChainLaunch measure_chain(const AnatomyConfig& config, NodeKind kind, GraphShape shape, int nodes,
                          const StreamPool& pool, Anatomy& into) {
  const int lines = shape == GraphShape::line ? 1 : config.chains;
  ChainSlots slots(lines, nodes / lines);
  const Graph graph = capture_chain(kind, shape, slots, pool);
  if (graph.node_count() != static_cast<std::size_t>(nodes) && into.chains_checked) {
    into.chains_checked = false;
    into.chains_failure = std::string(to_string(kind)) + " graph of " + std::to_string(nodes) + " nodes holds " +
                          std::to_string(graph.node_count());
  }
  const GraphExec exec = instantiate(graph);
  CUDA_CHECK(cudaGraphUpload(exec.get(), pool[0]));
  EventTimer timer;
  std::vector<Millis> host, gpu;
  for (int round = 0; round < config.warmup + config.repeats; ++round) {
    throw_if_interrupted("the launch anatomy (" + std::string(to_string(kind)) + " chains)");
    slots.prepare(kind, round, pool[0]);
    Millis launch{};
    const Millis replay =
        gpu_and_issue_time(timer, pool[0], launch, [&] { CUDA_CHECK(cudaGraphLaunch(exec.get(), pool[0])); });
    if (round >= config.warmup) {
      host.push_back(launch);
      gpu.push_back(replay);
    }
    const std::string wrong = slots.check(kind, pool[0]);
    if (!wrong.empty() && into.chains_checked) {
      into.chains_checked = false;
      into.chains_failure = wrong;
    }
  }
  return ChainLaunch{kind, shape, nodes, summarize(std::move(host)), summarize(std::move(gpu))};
}

}  // namespace

void measure_chain_launches(Anatomy& anatomy) {
  const AnatomyConfig& config = anatomy.config;
  const StreamPool pool(config.chains);
  for (const NodeKind kind : config.kinds) {
    for (const GraphShape shape : {GraphShape::line, GraphShape::fork}) {
      for (const int nodes : config.nodes) {
        anatomy.chains.push_back(measure_chain(config, kind, shape, nodes, pool, anatomy));
      }
    }
  }
}

}  // namespace csg::graphs
