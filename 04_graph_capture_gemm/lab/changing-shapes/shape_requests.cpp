#include "04_graph_capture_gemm/lab/changing-shapes/changing_shapes.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/interrupt.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "measure/timers.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace {

// ---- the sequence -----------------------------------------------------------

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
    buffers.poison_first(size, steps.stream);
    costs.buckets.first_launch_ms += host_synchronised(steps.stream, [&] { steps.launch(bucket_execs[i]); }).count();
    fold_check(costs.buckets.check, buffers.verify_first(steps.data_seed, size));
  }

  GraphExec update_exec_of_way;  // c.: the one exec that cudaGraphExecUpdate keeps changing
  int exec_batches = 0;          // the batch count it was last instantiated or updated for
  bool timed = false;            // the warm-up's updates are not counted

  // One request of `batches`, one way: untimed poison before, verify after.
  auto run_request = [&](ShapeWay way, int batches) {
    const int computed = way == ShapeWay::buckets ? bucket_for(batches, costs.buckets.sizes) : batches;
    buffers.poison_first(computed, steps.stream);
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
    fold_check(w.check, buffers.verify_first(steps.data_seed, computed));
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

ShapeRequestSteps shape_request_steps(const StreamPool& pool, const Gemm& gemm, BatchBuffers& buffers,
                                      std::uint64_t data_seed) {
  ShapeRequestSteps steps;
  steps.capture = [&pool, &gemm](BatchBuffers& b, int batches) {
    return capture_batches(batch_ops(b, gemm), pool, batches);
  };
  steps.instantiate = instantiate;
  steps.launch = [&pool](const GraphExec& exec) { launch(exec, pool); };
  steps.issue_on_streams = [&pool, &gemm](BatchBuffers& b, int batches) {
    issue_on_streams(batch_ops(b, gemm), pool, batches);
  };
  steps.buffers = &buffers;
  steps.data_seed = data_seed;
  steps.stream = pool[0];
  return steps;
}

}  // namespace csg::graphs
