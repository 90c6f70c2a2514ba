// A request larger than the machine is refused by every GEMM stage, cleanly
// and at once (exit 2, one line with both numbers and a suggestion, no file);
// stage 02's timeline subcommand draws its overlap experiment.
#include <chrono>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "param_names.hpp"
#include "run_process.hpp"

namespace csg {
namespace gpu_limits_and_timelines {

class OversizeTest : public testing::GpuTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(OversizeTest, ARequestLargerThanTheMachineIsRefusedAtOnce) {
  // 10^6 batches at the article's size: 6 TB of host memory, and of device
  // memory for the per-batch layout.
  testing::TempDir dir;
  const auto start = std::chrono::steady_clock::now();
  const testing::ProcessResult run =
      testing::run_process({GetParam(), "--batches", "1000000", "--json", dir.file("out.json")});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
  EXPECT_NE(run.err.find("this run needs"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("fewer --batches"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_TRUE(dir.entries().empty());
  // Not a speed benchmark: a refusal that allocated first would take minutes.
  EXPECT_LT(seconds, 10.0) << "refusing took " << seconds << " s";
}

INSTANTIATE_TEST_SUITE_P(GemmStages, OversizeTest,
                         ::testing::Values(CSG_STAGE01_BINARY, CSG_STAGE03_BINARY, CSG_STAGE04_BINARY),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           return testing::stage_name(param_info.param);
                         });

class Stage02TimelineTest : public testing::GpuTest {};

TEST_F(Stage02TimelineTest, DrawsEachOverlapCaseOnTwoStreams) {
  testing::TempDir dir;
  const std::string trace_path = dir.file("02.trace.json");
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE02_BINARY, "timeline", "--host-memory", "pageable,pinned", "--warmup", "0", "--repeats", "1",
       "--overlap-mib", "4", "--kernel-ms", "2", "--trace", trace_path, "--json", dir.file("02.json")});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  if (run.out.find("timeline: not recorded:") != std::string::npos) {
    if (std::getenv("CSG_REQUIRE_GPU") != nullptr) FAIL() << "CUPTI unavailable on the GPU box:\n" << run.out;
    GTEST_SKIP() << "CUPTI unavailable here:\n" << run.out;
  }
  for (const char* label : {"pageable H2D, kernel then copy:", "pageable H2D, copy then kernel:",
                            "pinned H2D, copy then kernel:", "kernel stream |", "copy stream   |"}) {
    EXPECT_NE(run.out.find(label), std::string::npos) << label << "\n" << run.out;
  }
  EXPECT_EQ(run.out.find("note:"), std::string::npos) << run.out;
  std::ifstream in(trace_path);
  ASSERT_TRUE(in.good()) << run.out;
  const nlohmann::json trace = nlohmann::json::parse(in);
  int kernels = 0, copies = 0;
  for (const auto& event : trace.at("traceEvents")) {
    if (event.at("ph") != "X") continue;
    if (event.at("name") == "H2D") ++copies;
    else ++kernels;
  }
  EXPECT_EQ(copies, 3);  // one copy and one busy kernel per case
  EXPECT_EQ(kernels, 3);
  // The result names every operation the trace holds.
  std::ifstream result(dir.file("02.json"));
  ASSERT_TRUE(result.good()) << run.out;
  EXPECT_EQ(nlohmann::json::parse(result).at("timeline").at("ops"), copies + kernels);
}

}  // namespace gpu_limits_and_timelines
}  // namespace csg
