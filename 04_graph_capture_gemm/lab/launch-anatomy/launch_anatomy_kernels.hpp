// The launch anatomy's one kernel (launch_anatomy.cu), behind the host call
// that launches it.
#pragma once

#include <cuda_runtime.h>

namespace csg::graphs {

// The kernel node of a chain: one thread adds 1 to its line's counter. The
// nodes of a line run in order, so no atomic is needed, and a node run twice
// or not at all leaves a wrong count.
void launch_add_one(int* counter, cudaStream_t stream);

}  // namespace csg::graphs
