// Two ways of using the HostTimer (owners.hpp) that the laboratory needs
// often: the host's time to issue work, and to issue it and wait for it.
#pragma once

#include "owners.hpp"

namespace csg {

// Host time of issuing `body` alone: `stream` is synchronised after the timer
// stops, so what is measured is the CPU cost of queueing the work, not of
// running it (stage 04: one cudaGraphLaunch against the same work on streams).
template <class Body>
Millis host_issue_time(cudaStream_t stream, Body&& body) {
  const HostTimer timer;
  body();
  const Millis issue = timer.elapsed();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return issue;
}

// Host time of `body` followed by a synchronise of `stream`, both inside the
// timer: "launch and wait until done".
template <class Body>
Millis host_synchronised(cudaStream_t stream, Body&& body) {
  const HostTimer timer;
  body();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return timer.elapsed();
}

}  // namespace csg
