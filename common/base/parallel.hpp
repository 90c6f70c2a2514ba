// parallel_for: split [0, count) into contiguous chunks over the host's cores,
// each of at least `grain` items (fewer items than two grains run on the
// calling thread: starting a thread costs more than filling a small matrix).
// Used for filling inputs and verifying batches; results never depend on the
// number of threads.
#pragma once

#include <cstddef>
#include <functional>

namespace csg {

void parallel_for(std::size_t count, const std::function<void(std::size_t begin, std::size_t end)>& body,
                  std::size_t grain = 1);

}  // namespace csg
