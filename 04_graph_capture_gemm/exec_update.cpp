#include "exec_update.hpp"

#include <stdexcept>
#include <vector>

#include "measure/timers.hpp"

namespace csg::graphs {

std::string_view to_string(cudaGraphExecUpdateResult result) {
  switch (result) {
    case cudaGraphExecUpdateSuccess: return "cudaGraphExecUpdateSuccess";
    case cudaGraphExecUpdateError: return "cudaGraphExecUpdateError";
    case cudaGraphExecUpdateErrorTopologyChanged: return "cudaGraphExecUpdateErrorTopologyChanged";
    case cudaGraphExecUpdateErrorNodeTypeChanged: return "cudaGraphExecUpdateErrorNodeTypeChanged";
    case cudaGraphExecUpdateErrorFunctionChanged: return "cudaGraphExecUpdateErrorFunctionChanged";
    case cudaGraphExecUpdateErrorParametersChanged: return "cudaGraphExecUpdateErrorParametersChanged";
    case cudaGraphExecUpdateErrorNotSupported: return "cudaGraphExecUpdateErrorNotSupported";
    case cudaGraphExecUpdateErrorUnsupportedFunctionChange: return "cudaGraphExecUpdateErrorUnsupportedFunctionChange";
    case cudaGraphExecUpdateErrorAttributesChanged: return "cudaGraphExecUpdateErrorAttributesChanged";
  }
  return "unknown cudaGraphExecUpdateResult";
}

std::string ExecUpdateAttempt::describe() const {
  std::string text;
  if (status != cudaSuccess) {
    text += cudaGetErrorName(status);
    text += ": ";
  }
  text += to_string(result);
  return text;
}

ExecUpdateAttempt update_exec(const GraphExec& exec, const Graph& graph) {
  cudaGraphExecUpdateResultInfo info{};
  ExecUpdateAttempt attempt;
  attempt.status = cudaGraphExecUpdate(exec.get(), graph.get(), &info);
  attempt.result = info.result;
  if (attempt.status == cudaErrorGraphExecUpdateFailure) {
    static_cast<void>(cudaGetLastError());  // a refused update is an answer, not an error
  } else if (attempt.status != cudaSuccess) {
    throw_cuda_error(attempt.status, "cudaGraphExecUpdate(exec, graph, &info)", __FILE__, __LINE__);
  }
  return attempt;
}

UpdateCosts measure_updates(const RepeatPlan& plan, const UpdateExperiment& ex) {
  const int batches = ex.first->work().batches;
  UpdateCosts costs;
  GraphExec exec = ex.instantiate(ex.capture(*ex.first, batches));
  GraphExec reinstantiated;
  Graph to_second;  // captured untimed for the update-alone variant
  auto update = [&](const Graph& graph) {
    costs.new_pointers = update_exec(exec, graph);
    if (!costs.new_pointers.applied()) {
      throw std::runtime_error("cudaGraphExecUpdate refused new pointers with the same topology: " +
                               costs.new_pointers.describe());
    }
  };
  // Each timed region holds the calls it names and nothing else: graphs and
  // execs of the round before are destroyed outside it (a captured graph
  // lives until after the timer has been read).
  const std::vector<TimedVariant> rounds = {
      {.prepare = nullptr,
       .run = [&] {
         const HostTimer timer;
         const Graph graph = ex.capture(*ex.first, batches);
         update(graph);
         return timer.elapsed();
       },
       .after_last = nullptr},
      {.prepare = [&] { to_second = Graph(); to_second = ex.capture(*ex.second, batches); },
       .run = [&] { const HostTimer timer; update(to_second); return timer.elapsed(); },
       .after_last = nullptr},
      {.prepare = [&] { reinstantiated = GraphExec(); },
       .run = [&] {
         const HostTimer timer;
         const Graph graph = ex.capture(*ex.second, batches);
         reinstantiated = ex.instantiate(graph);
         return timer.elapsed();
       },
       .after_last = nullptr},
  };
  measure_interleaved_into(plan, rounds, {&costs.update_exec, &costs.update_call, &costs.recapture_instantiate});

  // Both must now compute the second buffers' result; poisoned outputs prove they wrote it.
  auto launch_and_verify = [&](const GraphExec& e) {
    ex.second->poison_outputs(ex.stream);
    ex.launch(e);
    CUDA_CHECK(cudaStreamSynchronize(ex.stream));
    return ex.second->verify(ex.second_seed);
  };
  costs.updated_check = launch_and_verify(exec);
  costs.reinstantiated_check = launch_and_verify(reinstantiated);

  // A different batch count: fewer nodes, so a different topology. The exec
  // is not launched after this attempt.
  if (batches >= 2) {
    costs.smaller_batches = batches - 1;
    costs.topology_change = update_exec(exec, ex.capture(*ex.first, batches - 1));
  }
  return costs;
}

}  // namespace csg::graphs
