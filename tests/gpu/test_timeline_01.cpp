// Stage 01's timeline experiment with --trace, end to end at a small size: CUPTI
// records exactly 3 × batches operations (one H2D, one kernel, one D2H per
// batch) on the one row of the default stream, in the serial order, and the
// trace file says the same.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"
#include "trace_reader.hpp"

namespace csg {
namespace gpu_timeline_01 {

constexpr int kBatches = 5;
constexpr int kM = 33;
constexpr int kN = 17;
constexpr int kK = 65;
// CUPTI timestamps of back-to-back work on one stream may touch; allow a
// rounding's worth before calling it overlap.
constexpr double kTimestampSlackUs = 0.5;

using Slice = testing::TraceSlice;

class Timeline01Test : public testing::GpuTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(Timeline01Test, RecordsThreeOpsPerBatchInSerialOrder) {
  const std::string host_memory = GetParam();
  testing::TempDir dir;
  const std::string trace_path = dir.file("01.trace.json");
  const testing::ProcessResult run = testing::run_process(
      {CSG_STAGE01_BINARY, "timeline", "--batches", std::to_string(kBatches), "--m", std::to_string(kM), "--n", std::to_string(kN),
       "--k", std::to_string(kK), "--warmup", "0", "--repeats", "1", "--host-memory", host_memory,
       "--timeline-batches", "2", "--trace", trace_path});
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  if (run.out.find("timeline: not recorded:") != std::string::npos) {
    if (std::getenv("CSG_REQUIRE_GPU") != nullptr) FAIL() << "CUPTI unavailable on the GPU box:\n" << run.out;
    GTEST_SKIP() << "CUPTI unavailable here:\n" << run.out;
  }
  EXPECT_NE(run.out.find("default stream |"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("the first 2 of 5 batches"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("timeline run: all 5 batches verified"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("note:"), std::string::npos) << "labelling needed a fallback or left records out:\n"
                                                      << run.out;

  const testing::Trace read = testing::read_trace(trace_path);  // a missing or broken file throws: the test fails
  const nlohmann::json& trace = read.doc;
  std::vector<Slice> slices = read.slices;
  const std::map<int, std::string>& tracks = read.tracks;
  EXPECT_EQ(tracks, (std::map<int, std::string>{{0, "default stream"}}));
  ASSERT_EQ(slices.size(), std::size_t(3 * kBatches)) << trace.dump(1);

  std::map<std::string, int> per_kind;
  for (const auto& s : slices) {
    ++per_kind[s.kind];
    EXPECT_EQ(s.tid, 0);
    EXPECT_GE(s.batch, 0);
    EXPECT_LT(s.batch, kBatches);
    EXPECT_GE(s.end_us, s.start_us);
    if (s.kind == "h2d") {
      EXPECT_EQ(s.bytes, double(kM) * kK * sizeof(float));
    } else if (s.kind == "d2h") {
      EXPECT_EQ(s.bytes, double(kM) * kN * sizeof(float));
    } else {
      EXPECT_EQ(s.flops, 2.0 * kM * kN * kK);
    }
  }
  EXPECT_EQ(per_kind, (std::map<std::string, int>{{"h2d", kBatches}, {"kernel", kBatches}, {"d2h", kBatches}}));

  // The article's first timeline: H K D of batch 0, then of batch 1, ..., never two at once.
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) { return a.start_us < b.start_us; });
  const std::vector<std::string> order = {"h2d", "kernel", "d2h"};
  for (std::size_t i = 0; i < slices.size(); ++i) {
    EXPECT_EQ(slices[i].kind, order[i % 3]) << "slice " << i;
    EXPECT_EQ(slices[i].batch, static_cast<int>(i / 3)) << "slice " << i;
    if (i > 0) {
      EXPECT_GE(slices[i].start_us, slices[i - 1].end_us - kTimestampSlackUs) << "slice " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HostMemory, Timeline01Test, ::testing::Values("pageable", "pinned"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

// The lesson records nothing: the picture is the laboratory's.
TEST(Timeline01, NoTimelineUnlessAskedFor) {
  if (!testing::has_cuda_device()) {
    if (std::getenv("CSG_REQUIRE_GPU") != nullptr) FAIL() << "no CUDA device";
    GTEST_SKIP() << "no CUDA device";
  }
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE01_BINARY, "--batches", "2", "--m", "16", "--n", "16", "--k", "16", "--warmup", "0", "--repeats", "1"},
      dir, "01.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  // Its last line names the laboratory's timeline; no picture, no recording.
  EXPECT_EQ(run.out.find("timeline of "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("timeline run:"), std::string::npos) << run.out;
  EXPECT_FALSE(run.doc().contains("timeline")) << run.doc().dump(1);
}

}  // namespace gpu_timeline_01
}  // namespace csg
