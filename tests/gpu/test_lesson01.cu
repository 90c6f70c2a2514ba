// Stage 01's lesson, through the functions its main.cu defines: the test
// compiles main.cu itself (its main renamed), so it calls the very loop a
// learner reads, never a copy of it.
#define main stage01_lesson_main
#include "01_serial_baseline/main.cu"
#undef main

#include "gpu_test.hpp"

namespace {

class Lesson01 : public csg::testing::GpuTest, public ::testing::WithParamInterface<csg::HostMemory> {};

// The article's loop computes every batch, at a shape that is no multiple of
// the 32x32 block, from either kind of host memory.
TEST_P(Lesson01, TheSerialLoopVerifiesEveryBatch) {
  const csg::Workload work{5, {33, 17, 65}};
  csg::BatchBuffers buffers(work, GetParam());
  buffers.fill_inputs(3);
  buffers.poison_outputs(nullptr);
  csg::EventTimer timer;
  EXPECT_GT(serial_run(buffers, timer).count(), 0.0);
  const csg::VerifyResult check = buffers.verify(3);
  EXPECT_TRUE(check.passed) << check.message();
  EXPECT_EQ(check.batches_checked, 5);
}

// Each stage sum issues only its kind of work: the copies in and out alone
// leave the poisoned outputs as they were, and the kernels alone bring
// nothing back to the host; the three in turn compute every batch.
TEST_P(Lesson01, EachStageSumIssuesOnlyItsKindOfWork) {
  const csg::Workload work{4, {40, 24, 16}};
  csg::BatchBuffers buffers(work, GetParam());
  buffers.fill_inputs(9);
  csg::EventTimer timer;
  buffers.poison_outputs(nullptr);
  static_cast<void>(serial_run(buffers, timer, kH2d | kD2h));
  EXPECT_FALSE(buffers.verify(9).passed) << "no kernel ran, yet C verified";
  buffers.poison_outputs(nullptr);
  static_cast<void>(serial_run(buffers, timer, kH2d | kKernel));
  EXPECT_FALSE(buffers.verify(9).passed) << "no copy out ran, yet host C verified";
  static_cast<void>(serial_run(buffers, timer, kD2h));
  const csg::VerifyResult check = buffers.verify(9);
  EXPECT_TRUE(check.passed) << check.message();
}

// One round keeps a sample of each figure when timed, none in warm-up, and
// the last round verifies both the serial run and what the sums computed.
TEST_P(Lesson01, ARoundTimesTheRunAndItsSumsAndTheLastVerifiesBoth) {
  const csg::Workload work{3, {31, 29, 7}};
  csg::BatchBuffers buffers(work, GetParam());
  buffers.fill_inputs(5);
  csg::EventTimer timer;
  Figures f;
  time_round(f, buffers, timer, /*timed=*/false, /*last=*/false, 5);
  EXPECT_TRUE(f.serial.empty() && f.h2d_sum.empty() && f.kernel_sum.empty() && f.d2h_sum.empty());
  time_round(f, buffers, timer, /*timed=*/true, /*last=*/true, 5);
  EXPECT_EQ(f.serial.size(), 1U);
  EXPECT_EQ(f.h2d_sum.size(), 1U);
  EXPECT_EQ(f.kernel_sum.size(), 1U);
  EXPECT_EQ(f.d2h_sum.size(), 1U);
  EXPECT_TRUE(f.serial_check.passed) << f.serial_check.message();
  EXPECT_TRUE(f.sums_check.passed) << f.sums_check.message();
  EXPECT_EQ(f.sums_check.batches_checked, 3);
}

INSTANTIATE_TEST_SUITE_P(HostMemory, Lesson01, ::testing::Values(csg::HostMemory::pageable, csg::HostMemory::pinned),
                         [](const ::testing::TestParamInfo<csg::HostMemory>& param_info) {
                           return std::string(csg::to_string(param_info.param));
                         });

}  // namespace
