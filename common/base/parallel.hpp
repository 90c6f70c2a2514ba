// parallel_for: split [0, count) into contiguous chunks over the host's cores.
// Used for filling inputs and verifying batches; results never depend on the
// number of threads.
#pragma once

#include <cstddef>
#include <functional>

namespace csg {

void parallel_for(std::size_t count, const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace csg
