// CPU reference GEMM for tests: C_i = A_i·B for every batch, in double.
#pragma once

#include <span>
#include <vector>

#include "batches.hpp"

namespace csg::testing {

// Compiled with the support library at the build's level (the tests
// themselves are -O0) and split over the host's cores a run of rows per
// thread: the article's size is half a G multiply-adds per batch.
std::vector<float> reference_gemm(const Workload& work, std::span<const float> a_all, std::span<const float> b);

}  // namespace csg::testing
