// The timeline subcommands of stages 03 (stream pool) and 04 (graph replay),
// with --trace and --json, end to end at a small size: CUPTI records exactly 3 × batches
// operations, one H2D, one kernel and one D2H per batch, on the pool stream
// the batch was issued to (batch b on stream b % 3), each batch in order
// H2D -> kernel -> D2H; the results JSON carries the timeline object with
// the overlap figures and the timed median before and after recording.
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/errors.hpp"
#include "gpu_test.hpp"
#include "run_process.hpp"
#include "trace_reader.hpp"

namespace csg {
namespace gpu_timeline_03_04 {

constexpr int kBatches = 12;
constexpr int kStreams = 3;
constexpr int kBatchesPerStream = kBatches / kStreams;
static_assert(kBatches % kStreams == 0, "every stream gets the same number of batches");
constexpr int kM = 33;
constexpr int kN = 17;
constexpr int kK = 65;
// CUPTI timestamps of back-to-back work on one stream may touch; allow a
// rounding's worth before calling it out of order.
constexpr double kTimestampSlackUs = 0.5;

using Slice = testing::TraceSlice;

struct StageCase {
  std::string name;
  std::string binary;
  std::string labelling;  // what the JSON must say about how ops got their rows
};

void PrintTo(const StageCase& stage, std::ostream* out) { *out << stage.name; }

std::vector<StageCase> stage_cases() {
  std::vector<StageCase> cases;
#ifdef CSG_STAGE03_BINARY
  cases.push_back({"stage03", CSG_STAGE03_BINARY, "stream ids"});
#endif
#ifdef CSG_STAGE04_BINARY
  // Graph nodes are labelled through CUPTI's clone callback (04_graph_capture_gemm/lab/timeline/timeline.cpp).
  cases.push_back({"stage04", CSG_STAGE04_BINARY, "graph node ids"});
#endif
  return cases;
}

class Timeline0304Test : public testing::GpuTest, public ::testing::WithParamInterface<StageCase> {};

TEST_P(Timeline0304Test, RecordsThreeOpsPerBatchOnItsPoolStream) {
  const StageCase& stage = GetParam();
  testing::TempDir dir;
  const std::string trace_path = dir.file("trace.json");
  // Each stage's own timeline subcommand, with only the workload's and the timeline's flags.
  const std::vector<std::string> argv = {stage.binary, "timeline", "--batches", std::to_string(kBatches),
                                         "--streams", std::to_string(kStreams), "--m", std::to_string(kM), "--n",
                                         std::to_string(kN), "--k", std::to_string(kK), "--warmup", "0", "--repeats",
                                         "2", "--timeline-batches", "6", "--trace", trace_path};
  const testing::JsonRun run = testing::run_with_json(argv, dir, "result.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  if (run.out.find("timeline: not recorded:") != std::string::npos) {
    if (std::getenv("CSG_REQUIRE_GPU") != nullptr) FAIL() << "CUPTI unavailable on the GPU box:\n" << run.out;
    GTEST_SKIP() << "CUPTI unavailable here:\n" << run.out;
  }
  for (int row = 0; row < kStreams; ++row) {
    EXPECT_NE(run.out.find("stream " + std::to_string(row) + " |"), std::string::npos) << run.out;
  }
  EXPECT_NE(run.out.find("the first 6 of 12 batches"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("timeline run: all 12 batches verified"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("timed median before recording "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("note:"), std::string::npos) << "labelling needed a fallback or left records out:\n"
                                                      << run.out;

  // The results JSON's timeline object.
  ASSERT_TRUE(run.wrote_json()) << "no JSON at " << run.json_path;
  const nlohmann::json result = run.doc();
  EXPECT_EQ(result.at("subcommand"), "timeline");
  ASSERT_TRUE(result.contains("timeline")) << result.dump(1);
  const nlohmann::json& timeline = result.at("timeline");
  EXPECT_EQ(timeline.at("recorded"), true);
  EXPECT_EQ(timeline.at("labelling"), stage.labelling) << timeline.dump(1);
  EXPECT_EQ(timeline.at("ops"), 3 * kBatches);
  EXPECT_EQ(timeline.at("ignored"), 0);
  EXPECT_EQ(timeline.at("dropped"), 0);
  EXPECT_EQ(timeline.at("rows"), (std::vector<std::string>{"stream 0", "stream 1", "stream 2"}));
  EXPECT_EQ(timeline.at("verified"), true);
  EXPECT_EQ(timeline.at("after_verified"), true);
  EXPECT_EQ(timeline.at("after_samples"), 2);
  EXPECT_GT(timeline.at("median_before_ms").get<double>(), 0.0);
  EXPECT_GT(timeline.at("median_after_ms").get<double>(), 0.0);
  EXPECT_EQ(timeline.at("trace_file"), trace_path);
  for (const char* figure : {"h2d_busy", "compute_busy", "d2h_busy", "copy_and_compute"}) {
    const double value = timeline.at("overlap").at(figure).get<double>();
    EXPECT_GE(value, 0.0) << figure;
    EXPECT_LE(value, 1.0) << figure;
  }
  EXPECT_GT(timeline.at("overlap").at("compute_busy").get<double>(), 0.0);
  EXPECT_GT(timeline.at("overlap").at("wall_ms").get<double>(), 0.0);

  // The trace: one slice per operation, on the track of its pool stream.
  const testing::Trace read = testing::read_trace(trace_path);  // a missing or broken file throws: the test fails
  const nlohmann::json& trace = read.doc;
  std::vector<Slice> slices = read.slices;
  const std::map<int, std::string>& tracks = read.tracks;
  EXPECT_EQ(tracks, (std::map<int, std::string>{{0, "stream 0"}, {1, "stream 1"}, {2, "stream 2"}}));
  ASSERT_EQ(slices.size(), std::size_t(3 * kBatches)) << trace.dump(1);

  std::map<std::string, int> per_kind;
  std::map<std::pair<int, std::string>, std::set<int>> batches_on;  // (tid, kind) -> batches
  std::map<std::pair<int, std::string>, const Slice*> slice_of;     // (batch, kind) -> slice
  for (const auto& s : slices) {
    ++per_kind[s.kind];
    ASSERT_GE(s.batch, 0) << s.kind;
    ASSERT_LT(s.batch, kBatches) << s.kind;
    EXPECT_EQ(s.tid, s.batch % kStreams) << "batch " << s.batch << " " << s.kind;
    EXPECT_GE(s.end_us, s.start_us);
    batches_on[{s.tid, s.kind}].insert(s.batch);
    EXPECT_TRUE(slice_of.emplace(std::make_pair(s.batch, s.kind), &s).second)
        << "two " << s.kind << " slices for batch " << s.batch;
    if (s.kind == "h2d") {
      EXPECT_EQ(s.bytes, double(kM) * kK * sizeof(float));
    } else if (s.kind == "d2h") {
      EXPECT_EQ(s.bytes, double(kM) * kN * sizeof(float));
    } else {
      EXPECT_EQ(s.kind, "kernel");
      EXPECT_EQ(s.flops, 2.0 * kM * kN * kK);
    }
  }
  EXPECT_EQ(per_kind, (std::map<std::string, int>{{"h2d", kBatches}, {"kernel", kBatches}, {"d2h", kBatches}}));
  for (int tid = 0; tid < kStreams; ++tid) {
    for (const char* kind : {"h2d", "kernel", "d2h"}) {
      const std::pair<int, std::string> key{tid, kind};
      EXPECT_EQ(batches_on[key].size(), std::size_t(kBatchesPerStream)) << "stream " << tid << " " << kind;
    }
  }
  // Each batch in its stream's order: H2D, then the kernel, then D2H.
  for (int batch = 0; batch < kBatches; ++batch) {
    const auto h2d = slice_of.find({batch, "h2d"});
    const auto kernel = slice_of.find({batch, "kernel"});
    const auto d2h = slice_of.find({batch, "d2h"});
    ASSERT_TRUE(h2d != slice_of.end() && kernel != slice_of.end() && d2h != slice_of.end()) << "batch " << batch;
    EXPECT_GE(kernel->second->start_us, h2d->second->end_us - kTimestampSlackUs) << "batch " << batch;
    EXPECT_GE(d2h->second->start_us, kernel->second->end_us - kTimestampSlackUs) << "batch " << batch;
  }
}

INSTANTIATE_TEST_SUITE_P(Stages, Timeline0304Test, ::testing::ValuesIn(stage_cases()),
                         [](const ::testing::TestParamInfo<StageCase>& param_info) { return param_info.param.name; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Timeline0304Test);

}  // namespace gpu_timeline_03_04
}  // namespace csg
