// The laboratory's graph helper beside the owners (Graph, GraphExec in
// owners.hpp): ending a capture whose outcome is an owner or an exception.
#pragma once

#include "owners.hpp"

namespace csg {

// Ends the capture begun on `stream` and owns the result. If the capture was
// invalidated (an illegal call during capture, an unjoined fork), throws the
// CudaError that cudaStreamEndCapture returned; the stream is no longer capturing.
Graph end_capture(cudaStream_t stream);

}  // namespace csg
