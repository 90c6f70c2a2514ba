#include "changing_shapes.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/interrupt.hpp"
#include "measure/timers.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace {

// ---- the sequence -----------------------------------------------------------

// NaN into, and the check of, batches 0..n-1 of the buffers only: a request
// of 3 batches poisons and verifies 3, not the buffers' 128.
class PrefixCheck {
 public:
  PrefixCheck(BatchBuffers& buffers, std::uint64_t seed, cudaStream_t stream)
      : buffers_(buffers), seed_(seed), stream_(stream), host_b_(buffers.work().b_elems()) {
    fill_matrix(host_b_, seed, 0);  // B as fill_inputs made it (matrix id 0): the host's copy for the check
  }

  void poison(int batches) {
    const Workload& work = buffers_.work();
    // Batches 0..n-1 use device slots 0..min(n, slots)-1: contiguous from slot 0.
    const int slots = std::min(batches, buffers_.device_slots());
    poison_device(buffers_.device_c(0), std::size_t(slots) * work.c_elems(), stream_);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    poison_host(std::span<float>(buffers_.host_c(0), std::size_t(batches) * work.c_elems()));
  }

  VerifyResult verify(int batches) {
    const Workload& all = buffers_.work();
    const Workload prefix{batches, all.shape};
    return verify_batches(prefix, std::span<const float>(buffers_.host_a(0), prefix.batch_count() * all.a_elems()),
                          host_b_, std::span<const float>(buffers_.host_c(0), prefix.batch_count() * all.c_elems()),
                          VerifyOptions{seed_, 32});
  }

 private:
  BatchBuffers& buffers_;
  std::uint64_t seed_;
  cudaStream_t stream_;
  std::vector<float> host_b_;
};

// Folds one request's check into a way's: the first failure stays.
void add_check(VerifyResult& total, const VerifyResult& request) {
  const bool passed_so_far = total.passed || total.batches_checked == 0;
  if (passed_so_far && !request.passed) {
    total.first_failure = request.first_failure;
    total.method = request.method;
  }
  total.passed = passed_so_far && request.passed;
  total.batches_checked += request.batches_checked;
}

struct RequestTimes {
  Millis total{0};
  Millis gpu{0};
  Millis cpu{0};
  Millis prepare{0};
};

struct RoundSums {
  std::vector<Millis> total, gpu, cpu, prepare;  // one per round
  void start_round() {
    for (auto* v : {&total, &gpu, &cpu, &prepare}) v->push_back(Millis{0});
  }
  void add(const RequestTimes& t) {
    total.back() += t.total;
    gpu.back() += t.gpu;
    cpu.back() += t.cpu;
    prepare.back() += t.prepare;
  }
};

// ---- the node-level switch --------------------------------------------------

// Where a pointer of one set of buffers lies, and the same place in another.
struct Region {
  const char* base;
  std::size_t bytes;
};

class BufferMap {
 public:
  explicit BufferMap(BatchBuffers& b) {
    const Workload& w = b.work();
    regions_ = {Region{reinterpret_cast<const char*>(b.host_a(0)), w.batch_count() * w.a_bytes()},
                Region{reinterpret_cast<const char*>(b.host_c(0)), w.batch_count() * w.c_bytes()},
                Region{reinterpret_cast<const char*>(b.device_a(0)), std::size_t(b.device_slots()) * w.a_bytes()},
                Region{reinterpret_cast<const char*>(b.device_b()), w.b_bytes()},
                Region{reinterpret_cast<const char*>(b.device_c(0)), std::size_t(b.device_slots()) * w.c_bytes()}};
  }
  // The region of `p` and its offset there, or -1.
  int find(const void* p, std::size_t& offset) const {
    const char* c = static_cast<const char*>(p);
    for (std::size_t r = 0; r < regions_.size(); ++r) {
      if (c >= regions_[r].base && c < regions_[r].base + regions_[r].bytes) {
        offset = std::size_t(c - regions_[r].base);
        return static_cast<int>(r);
      }
    }
    return -1;
  }
  void* at(int region, std::size_t offset) const {
    return const_cast<char*>(regions_[std::size_t(region)].base) + offset;
  }

 private:
  std::vector<Region> regions_;
};

// The naive kernel's arguments, in its parameter order: gemm_naive(a, b, c, m, n, k).
struct NaiveArgs {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
};

struct PlacedPointer {
  int region = -1;
  std::size_t offset = 0;
};

struct KernelNode {
  cudaGraphNode_t node;
  cudaKernelNodeParams params;  // func, grid, block, shared memory as instantiated
  PlacedPointer a, b, c;
  int m, n, k;
};

struct CopyNode {
  cudaGraphNode_t node;
  PlacedPointer dst, src;
  std::size_t count;
  cudaMemcpyKind kind;
};

// Every node of the stage's graph, with its pointers as places in the first
// buffers: built once, untimed. Empty `problem` when every node is understood.
struct NodeTable {
  std::vector<KernelNode> kernels;
  std::vector<CopyNode> copies;
  std::size_t other_nodes = 0;
  std::string problem;
};

NodeTable read_nodes(const Graph& graph, const BufferMap& first, const GemmShape& shape) {
  NodeTable table;
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph.get(), nullptr, &count));
  std::vector<cudaGraphNode_t> nodes(count);
  CUDA_CHECK(cudaGraphGetNodes(graph.get(), nodes.data(), &count));
  auto place = [&](const void* p, PlacedPointer& out) { return (out.region = first.find(p, out.offset)) >= 0; };
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      KernelNode k{};
      k.node = node;
      CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &k.params));
      if (k.params.kernelParams == nullptr) {
        table.problem = "a kernel node holds its arguments in the 'extra' format";
        return table;
      }
      // kernelParams[i] points at argument i (owned by the node): read the values.
      void** args = k.params.kernelParams;
      k.m = *static_cast<const int*>(args[3]);
      k.n = *static_cast<const int*>(args[4]);
      k.k = *static_cast<const int*>(args[5]);
      if (!place(*static_cast<const float* const*>(args[0]), k.a) ||
          !place(*static_cast<const float* const*>(args[1]), k.b) ||
          !place(*static_cast<float* const*>(args[2]), k.c) || k.m != shape.m || k.n != shape.n || k.k != shape.k) {
        table.problem = "a kernel node's arguments are not the naive kernel's (a, b, c, m, n, k) on these buffers";
        return table;
      }
      k.params.kernelParams = nullptr;  // replaced by new argument storage at every switch
      k.params.extra = nullptr;
      table.kernels.push_back(k);
    } else if (type == cudaGraphNodeTypeMemcpy) {
      cudaMemcpy3DParms p{};
      CUDA_CHECK(cudaGraphMemcpyNodeGetParams(node, &p));
      // A captured cudaMemcpyAsync is a 1D copy: width = bytes, one row, one slice, no offsets.
      const bool one_dimensional = p.srcArray == nullptr && p.dstArray == nullptr && p.extent.height == 1 &&
                                   p.extent.depth == 1 && p.srcPos.x == 0 && p.srcPos.y == 0 && p.srcPos.z == 0 &&
                                   p.dstPos.x == 0 && p.dstPos.y == 0 && p.dstPos.z == 0;
      CopyNode c{node, {}, {}, p.extent.width, p.kind};
      if (!one_dimensional || !place(p.dstPtr.ptr, c.dst) || !place(p.srcPtr.ptr, c.src)) {
        table.problem = "a copy node is not a 1D copy between these buffers";
        return table;
      }
      table.copies.push_back(c);
    } else {
      ++table.other_nodes;
    }
  }
  return table;
}

// Points every node of `exec` (instantiated from the table's graph) at the
// same places in `to`: new arguments for each kernel node, new pointers for
// each copy. Returns the first refusal, if any, and the call that refused.
struct NodeRefusal {
  cudaError_t status = cudaSuccess;
  const char* call = "";
};

NodeRefusal point_nodes_at(const GraphExec& exec, const NodeTable& table, const BufferMap& to) {
  for (const KernelNode& k : table.kernels) {
    NaiveArgs args{static_cast<const float*>(to.at(k.a.region, k.a.offset)),
                   static_cast<const float*>(to.at(k.b.region, k.b.offset)),
                   static_cast<float*>(to.at(k.c.region, k.c.offset)), k.m, k.n, k.k};
    void* arg_pointers[] = {&args.a, &args.b, &args.c, &args.m, &args.n, &args.k};
    cudaKernelNodeParams params = k.params;
    params.kernelParams = arg_pointers;  // copied by the call: the storage may end with this iteration
    const cudaError_t status = cudaGraphExecKernelNodeSetParams(exec.get(), k.node, &params);
    if (status != cudaSuccess) return {status, "cudaGraphExecKernelNodeSetParams"};
  }
  for (const CopyNode& c : table.copies) {
    const cudaError_t status = cudaGraphExecMemcpyNodeSetParams1D(
        exec.get(), c.node, to.at(c.dst.region, c.dst.offset), to.at(c.src.region, c.src.offset), c.count, c.kind);
    if (status != cudaSuccess) return {status, "cudaGraphExecMemcpyNodeSetParams1D"};
  }
  return {};
}

void point_nodes_or_throw(const GraphExec& exec, const NodeTable& table, const BufferMap& to) {
  const NodeRefusal refusal = point_nodes_at(exec, table, to);
  if (refusal.status != cudaSuccess) {
    throw_cuda_error(refusal.status, (std::string(refusal.call) + " (it applied when first tried)").c_str(),
                     __FILE__, __LINE__);
  }
}

}  // namespace

ShapeSequenceCosts measure_changing_shapes(const ChangingShapesConfig& config, const ShapeRequestSteps& steps) {
  if (!config.sequence_on()) throw std::invalid_argument("measure_changing_shapes: the sequence is off");
  BatchBuffers& buffers = *steps.buffers;
  ShapeSequenceCosts costs;
  costs.config = config;
  costs.shape = buffers.work().shape;
  costs.sequence = request_sequence(config);
  costs.buckets.sizes = bucket_sizes(config.max_batches);
  if (buffers.work().batches < costs.buckets.sizes.back()) {
    throw std::invalid_argument("measure_changing_shapes: the buffers hold " + std::to_string(buffers.work().batches) +
                                " batches; the largest bucket needs " + std::to_string(costs.buckets.sizes.back()));
  }
  PrefixCheck check(buffers, steps.data_seed, steps.stream);
  EventTimer timer;

  // d. the buckets: captured and instantiated up front, each launched once
  // (which uploads it) and verified.
  std::vector<GraphExec> bucket_execs;
  for (int size : costs.buckets.sizes) {
    const HostTimer capture_timer;
    const Graph graph = steps.capture(buffers, size);
    costs.buckets.capture_ms += capture_timer.elapsed().count();
    const HostTimer instantiate_timer;
    GraphExec exec = steps.instantiate(graph);
    costs.buckets.instantiate_ms += instantiate_timer.elapsed().count();
    bucket_execs.push_back(std::move(exec));
  }
  for (std::size_t i = 0; i < bucket_execs.size(); ++i) {
    const int size = costs.buckets.sizes[i];
    check.poison(size);
    costs.buckets.first_launch_ms += host_synchronised(steps.stream, [&] { steps.launch(bucket_execs[i]); }).count();
    add_check(costs.buckets.check, check.verify(size));
  }

  GraphExec update_exec_of_way;  // c.: the one exec that cudaGraphExecUpdate keeps changing
  int exec_batches = 0;          // the batch count it was last instantiated or updated for
  bool timed = false;            // the warm-up's updates are not counted

  // One request of `batches`, one way: untimed poison before, verify after.
  auto run_request = [&](ShapeWay way, int batches) {
    const int computed = way == ShapeWay::buckets ? bucket_for(batches, costs.buckets.sizes) : batches;
    check.poison(computed);
    RequestTimes t;
    // Graphs and execs made or replaced here are destroyed after the timers are read.
    Graph graph;
    GraphExec fresh;    // b.'s exec of this request
    GraphExec retired;  // c.'s exec before a re-instantiation
    const HostTimer wall;
    switch (way) {
      case ShapeWay::streams:  // a.
        timer.start(steps.stream);
        steps.issue_on_streams(buffers, batches);
        break;
      case ShapeWay::recapture: {  // b.
        graph = steps.capture(buffers, batches);
        fresh = steps.instantiate(graph);
        t.prepare = wall.elapsed();
        timer.start(steps.stream);
        steps.launch(fresh);
        break;
      }
      case ShapeWay::exec_update: {  // c.
        graph = steps.capture(buffers, batches);
        UpdateCounts& n = costs.updates;
        bool instantiate = !update_exec_of_way.get();
        if (!instantiate) {
          const ExecUpdateAttempt attempt = update_exec(update_exec_of_way, graph);
          const bool same_batches = batches == exec_batches;
          if (timed) {
            ++n.attempts;
            if (attempt.applied()) {
              ++(same_batches ? n.applied_same_batches : n.applied_other_batches);
            } else {
              ++n.refused;
              if (same_batches) ++n.refused_same_batches;
              if (n.refused_result.empty()) n.refused_result = attempt.describe();
            }
          }
          if (!attempt.applied() && same_batches) {
            throw std::runtime_error("cudaGraphExecUpdate refused a graph of the same batch count: " +
                                     attempt.describe());
          }
          instantiate = !attempt.applied();
        }
        if (instantiate) {
          retired = std::move(update_exec_of_way);
          update_exec_of_way = steps.instantiate(graph);
          if (timed) ++n.instantiations;
        }
        exec_batches = batches;
        t.prepare = wall.elapsed();
        timer.start(steps.stream);
        steps.launch(update_exec_of_way);
        break;
      }
      case ShapeWay::buckets: {  // d.
        const auto index = std::find(costs.buckets.sizes.begin(), costs.buckets.sizes.end(), computed) -
                           costs.buckets.sizes.begin();
        timer.start(steps.stream);
        steps.launch(bucket_execs[std::size_t(index)]);
        break;
      }
    }
    t.cpu = wall.elapsed();
    t.gpu = timer.stop();  // waits until the request's work is done
    t.total = wall.elapsed();
    ShapeWayCosts& w = costs.way(way);
    if (timed) {
      w.batches_requested += batches;
      w.batches_computed += computed;
    }
    add_check(w.check, check.verify(computed));
    return t;
  };

  const int warmup = std::min(config.requests, kShapeWarmupRequests);
  for (int r = 0; r < warmup; ++r) {
    for (ShapeWay way : kAllShapeWays) static_cast<void>(run_request(way, costs.sequence[std::size_t(r)]));
  }
  timed = true;
  std::array<RoundSums, kShapeWays> sums;
  for (int round = 0; round < config.rounds; ++round) {
    for (RoundSums& s : sums) s.start_round();
    for (int batches : costs.sequence) {
      throw_if_interrupted("the changing-shapes experiment");
      for (ShapeWay way : kAllShapeWays) sums[std::size_t(way)].add(run_request(way, batches));
    }
  }
  for (ShapeWay way : kAllShapeWays) {
    ShapeWayCosts& w = costs.way(way);
    const RoundSums& s = sums[std::size_t(way)];
    w.total = summarize(s.total);
    w.gpu = summarize(s.gpu);
    w.cpu = summarize(s.cpu);
    w.prepare = summarize(s.prepare);
    w.batches_requested /= config.rounds;
    w.batches_computed /= config.rounds;
  }
  return costs;
}

NodeUpdateCosts measure_node_updates(const RepeatPlan& plan, const UpdateExperiment& ex, GemmKernel kernel) {
  BatchBuffers& first = *ex.first;
  BatchBuffers& second = *ex.second;
  const int batches = first.work().batches;
  NodeUpdateCosts costs;
  costs.batches = batches;

  // The article's graph on the first buffers, and an exec of it for each switch.
  const Graph original = ex.capture(first, batches);
  GraphExec whole_exec = ex.instantiate(original);
  GraphExec node_exec;  // only ever changed node by node: its nodes stay those of `original`
  GraphExec recaptured;
  const BufferMap first_map(first);
  const BufferMap second_map(second);
  NodeTable table;
  if (kernel != GemmKernel::naive) {
    costs.node_level_note = "node-level update: naive kernel only (this run's kernel is " +
                            std::string(csg::to_string(kernel)) + ", whose nodes' arguments differ)";
  } else {
    table = read_nodes(original, first_map, first.work().shape);
    if (!table.problem.empty()) costs.node_level_note = "node-level update not tried: " + table.problem;
  }
  costs.kernel_nodes = table.kernels.size();
  costs.memcpy_nodes = table.copies.size();
  bool node_level = costs.node_level_note.empty();
  if (node_level) {
    node_exec = ex.instantiate(original);
    // Tried once untimed: a refusal (e.g. of a copy from pageable memory) is
    // an answer, the note, not a failure of the stage.
    const NodeRefusal refusal = point_nodes_at(node_exec, table, second_map);
    if (refusal.status != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      costs.node_level_note = std::string("node-level update refused: ") + refusal.call + " returned " +
                              cudaGetErrorName(refusal.status) + " (" + cudaGetErrorString(refusal.status) + ")";
      node_level = false;
    }
  }

  auto whole_update = [&](const Graph& graph) {
    const ExecUpdateAttempt attempt = update_exec(whole_exec, graph);
    if (!attempt.applied()) {
      throw std::runtime_error("cudaGraphExecUpdate refused new pointers with the same topology: " +
                               attempt.describe());
    }
  };
  std::vector<TimedVariant> variants = {
      {.prepare = [&] { whole_update(original); },  // back on the first buffers
       .run = [&] {
         const HostTimer timer;
         const Graph graph = ex.capture(second, batches);
         whole_update(graph);
         return timer.elapsed();  // before `graph` is destroyed
       },
       .after_last = nullptr},
      {.prepare = [&] { recaptured = GraphExec(); },
       .run = [&] {
         const HostTimer timer;
         const Graph graph = ex.capture(second, batches);
         recaptured = ex.instantiate(graph);
         return timer.elapsed();
       },
       .after_last = nullptr},
  };
  if (node_level) {
    variants.push_back({.prepare = [&] { point_nodes_or_throw(node_exec, table, first_map); },
                        .run = [&] {
                          const HostTimer timer;
                          point_nodes_or_throw(node_exec, table, second_map);
                          return timer.elapsed();
                        },
                        .after_last = nullptr});
  }
  const std::vector<Summary> summaries = measure_interleaved(plan, variants);
  costs.whole_graph = summaries[0];
  costs.recapture_instantiate = summaries[1];
  if (node_level) costs.node_level = summaries[2];

  // Every exec must now compute the second buffers' result; poisoned outputs prove it wrote it.
  auto launch_and_verify = [&](const GraphExec& exec) {
    second.poison_outputs(ex.stream);
    ex.launch(exec);
    CUDA_CHECK(cudaStreamSynchronize(ex.stream));
    return second.verify(ex.second_seed);
  };
  costs.whole_graph_check = launch_and_verify(whole_exec);
  if (node_level) costs.node_level_check = launch_and_verify(node_exec);
  costs.recapture_check = launch_and_verify(recaptured);
  return costs;
}

}  // namespace csg::graphs
