#include <gtest/gtest.h>

#include "gtest_exit.hpp"

namespace csg {
namespace cpu_gtest_exit {

using testing::gtest_exit_status;
using testing::kExitSkipped;

// What ctest reads from a process that ran several GPU cases.
TEST(GtestExit, APassIsZeroAFailureIsGoogleTestsOwnStatus) {
  EXPECT_EQ(gtest_exit_status(0, 4, 0, false), 0);
  EXPECT_EQ(gtest_exit_status(1, 4, 0, false), 1);
}

TEST(GtestExit, ASkipAmongPassesIsReportedAsSkippedButNeverHidesAFailure) {
  EXPECT_EQ(gtest_exit_status(0, 4, 4, false), kExitSkipped);  // no GPU: every case skipped
  EXPECT_EQ(gtest_exit_status(0, 4, 1, false), kExitSkipped);  // no CUPTI: one case of four
  EXPECT_EQ(gtest_exit_status(1, 4, 1, false), 1);             // one failed, one skipped
}

TEST(GtestExit, AFilterThatChoseNoTestFailsAndAListingKeepsItsStatus) {
  EXPECT_EQ(gtest_exit_status(0, 0, 0, false), 1);
  EXPECT_EQ(gtest_exit_status(0, 0, 0, true), 0);
}

}  // namespace cpu_gtest_exit
}  // namespace csg
