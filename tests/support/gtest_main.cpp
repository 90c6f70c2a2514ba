// The test binaries' main: GoogleTest's own, with the exit status of
// gtest_exit.hpp (77 when a test skipped and none failed, 1 when the filter
// chose none), so that ctest reads a process of several cases rightly.
#include <gtest/gtest.h>

#include <iostream>

#include "gtest_exit.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const bool listing = GTEST_FLAG_GET(list_tests);
  if (!listing && unit.test_to_run_count() == 0) {
    std::cerr << "no test matched --gtest_filter=" << GTEST_FLAG_GET(filter) << "\n";
  }
  return csg::testing::gtest_exit_status(status, unit.test_to_run_count(), unit.skipped_test_count(), listing);
}
