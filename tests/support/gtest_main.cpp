// The test binaries' main: GoogleTest's own, with two exits ctest can read
// when one process runs several tests (the GPU suites run a few cases per
// process, support/gtest_groups.cmake):
// - every test it ran was skipped (a GPU test on a machine without a GPU):
//   77, ctest's SKIP_RETURN_CODE, so ctest says "skipped", never "passed";
// - its --gtest_filter selected no test: 1, so a group whose names went stale
//   fails instead of passing by running nothing.
#include <gtest/gtest.h>

#include <iostream>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  if (GTEST_FLAG_GET(list_tests)) return status;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (unit.test_to_run_count() == 0) {
    std::cerr << "no test matched --gtest_filter=" << GTEST_FLAG_GET(filter) << "\n";
    return 1;
  }
  if (status == 0 && unit.skipped_test_count() == unit.test_to_run_count()) return 77;
  return status;
}
