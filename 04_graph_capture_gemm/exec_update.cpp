#include "exec_update.hpp"

#include <stdexcept>
#include <vector>

#include "measure/timers.hpp"

namespace csg {

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
  GraphExec exec = GraphExec::instantiate(ex.capture(*ex.first, batches));
  GraphExec reinstantiated;
  std::vector<Millis> recapture_ms, update_ms, update_call_ms;
  const int rounds = plan.warmup + plan.repeats;
  for (int round = 0; round < rounds; ++round) {
    // Alternate so that every update really changes the pointers, and end on `second`.
    BatchBuffers& target = (rounds - 1 - round) % 2 == 0 ? *ex.second : *ex.first;

    HostTimer timer;
    const Graph graph = ex.capture(target, batches);
    const HostTimer call_timer;
    costs.new_pointers = update_exec(exec, graph);
    const Millis call = call_timer.elapsed();
    const Millis update = timer.elapsed();
    if (!costs.new_pointers.applied()) {
      throw std::runtime_error("cudaGraphExecUpdate refused new pointers with the same topology: " +
                               costs.new_pointers.describe());
    }

    timer.restart();
    reinstantiated = GraphExec::instantiate(ex.capture(target, batches));
    const Millis recapture = timer.elapsed();

    if (round >= plan.warmup) {
      update_ms.push_back(update);
      update_call_ms.push_back(call);
      recapture_ms.push_back(recapture);
    }
  }
  costs.update_exec = summarize(update_ms);
  costs.update_call = summarize(update_call_ms);
  costs.recapture_instantiate = summarize(recapture_ms);

  // Both must now compute the second buffers' result; poisoned outputs prove they wrote it.
  auto launch_and_verify = [&](const GraphExec& e) {
    ex.second->poison_outputs(ex.stream);
    e.launch(ex.stream);
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

}  // namespace csg
