// Base fixture of the GPU suite: skips the test when there is no CUDA device,
// or fails it when CSG_REQUIRE_GPU is set (the GPU-box check sets it, so that
// a box whose GPU vanished can't pass by skipping everything).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>

namespace csg::testing {

inline bool has_cuda_device() {
  int count = 0;
  const bool found = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  static_cast<void>(cudaGetLastError());
  return found;
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (has_cuda_device()) return;
    if (std::getenv("CSG_REQUIRE_GPU") != nullptr) {
      FAIL() << "no CUDA device, and CSG_REQUIRE_GPU is set";
    }
    GTEST_SKIP() << "no CUDA device";
  }
};

}  // namespace csg::testing
