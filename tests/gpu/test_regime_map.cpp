// Stage 04's regime map on the GPU: the regime-map subcommand end to end at
// tiny sizes (every cell verified and in the JSON, skipped cells marked with
// their reason), and measure_regime_map called directly with the
// laboratory's steps, and with broken ones that each variant's
// poison-and-verify must catch. No wall-clock assertions.
#include <gmock/gmock.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/regime-map/regime_map.hpp"
#include "base/errors.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "gpu_test.hpp"
#include "measure/estimate.hpp"
#include "run_process.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {
namespace gpu_regime_map {

class RegimeMapTest : public testing::GpuTest {};

const std::set<std::string> kWinners = {"graph", "streams", "tie"};

#ifdef CSG_STAGE04_BINARY

TEST_F(RegimeMapTest, TheBinaryMeasuresAndVerifiesEveryCellOfATinyMap) {
  testing::TempDir dir;
  const testing::JsonRun run =
      testing::run_with_json({CSG_STAGE04_BINARY, "regime-map", "--map-sizes", "16,32", "--map-batches", "3,20",
                              "--warmup", "1", "--repeats", "2", "--streams", "3"},
                             dir, "map.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.err, ::testing::HasSubstr("cell 1 of 4: 16\u00b3 \u00d7 3 batches"));
  EXPECT_THAT(run.err, ::testing::HasSubstr("cell 4 of 4: 32\u00b3 \u00d7 20 batches"));
  EXPECT_THAT(run.err, ::testing::HasSubstr("estimated"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("(every measured cell: 4 cells"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("where the graph starts to win"));

  const nlohmann::json doc = run.doc();
  EXPECT_EQ(doc.at("stage"), "04_graph_capture_gemm");
  EXPECT_EQ(doc.at("subcommand"), "regime-map");
  EXPECT_EQ(doc.at("config").at("mode"), "regime_map");
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 2 * (3 + 20));
  EXPECT_TRUE(doc.at("measurements").empty()) << "the map skips the stage's own experiments";
  const nlohmann::json& map = doc.at("regime_map");
  EXPECT_EQ(map.at("sizes"), (std::vector<int>{16, 32}));
  EXPECT_EQ(map.at("batches"), (std::vector<int>{3, 20}));
  EXPECT_EQ(map.at("streams"), 3);
  ASSERT_EQ(map.at("cells").size(), 4u);
  std::set<std::pair<int, int>> seen;
  for (const nlohmann::json& cell : map.at("cells")) {
    seen.emplace(cell.at("m").get<int>(), cell.at("batches").get<int>());
    EXPECT_EQ(cell.at("verified"), true) << cell.dump();
    EXPECT_TRUE(cell.at("skipped_reason").is_null()) << cell.dump();
    EXPECT_EQ(kWinners.count(cell.at("winner").get<std::string>()), 1u) << cell.dump();
    EXPECT_EQ(cell.at("samples"), 2) << cell.dump();
    for (const char* key : {"stream_ms", "graph_ms", "stream_issue_ms", "graph_issue_ms", "pool_percent_of_bound"}) {
      EXPECT_GT(cell.at(key).get<double>(), 0.0) << key << ": " << cell.dump();
    }
  }
  EXPECT_EQ(seen, (std::set<std::pair<int, int>>{{16, 3}, {16, 20}, {32, 3}, {32, 20}}));
  ASSERT_EQ(map.at("crossover").size(), 2u);
  EXPECT_EQ(map.at("crossover")[0].at("m"), 16);
  EXPECT_EQ(map.at("crossover")[0].at("measured_cells"), 2);
}

// A bound bounds in every cell: at 512^3 eight naive GEMMs on the pool ran
// side by side faster than the old one-stream "bound" (112-114% of it); at
// 64^3 the host's issue paces the pool, and the bound must say so. No cell's
// pool beats the pool's own bound by more than the noise the stage measured.
// ("Bound" in its name: it runs alone.)
TEST_F(RegimeMapTest, NoCellsPoolBeatsItsBoundAndTinyCellsNameWhatPacesThem) {
  testing::TempDir dir;
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "regime-map", "--map-sizes", "64,512", "--map-batches", "10,100", "--warmup", "1",
       "--repeats", "5"},
      dir, "map.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  EXPECT_THAT(run.out, ::testing::Not(::testing::HasSubstr("FASTER THAN ITS BOUND")));
  const nlohmann::json doc = run.doc();
  const std::set<std::string> paths = {"kernels",     "H2D copies",   "D2H copies",    "PCIe both ways",
                                       "host issue", "stream order", "busiest stream"};
  int cells = 0;
  for (const nlohmann::json& cell : doc.at("regime_map").at("cells")) {
    ++cells;
    EXPECT_LE(cell.at("pool_percent_of_bound").get<double>(),
              100.0 * (1.0 + cell.at("pool_bound_tolerance").get<double>()))
        << cell.dump();
    EXPECT_EQ(paths.count(cell.at("limited_by").get<std::string>()), 1u) << cell.dump();
    for (const char* key : {"kernels_alone_ms", "h2d_alone_ms", "d2h_alone_ms", "both_ways_alone_ms",
                            "busiest_stream_ms"}) {
      EXPECT_GT(cell.at(key).get<double>(), 0.0) << key << ": " << cell.dump();
    }
  }
  EXPECT_EQ(cells, 4);
  int bound_verdicts = 0;
  for (const nlohmann::json& verdict : doc.at("verdicts")) {
    if (!verdict.at("id").get<std::string>().starts_with("regime_map.bound.")) continue;
    ++bound_verdicts;
    EXPECT_NE(verdict.at("outcome"), "faster_than_bound") << verdict.dump();
  }
  EXPECT_EQ(bound_verdicts, 4) << "one per measured cell";
}

TEST_F(RegimeMapTest, TheBinaryMarksCellsItCannotAffordAndStillExitsZero) {
  testing::TempDir dir;
  // 16^3 x 100000 batches: ~4 us per operation is seconds, over a 1 s budget;
  // 8192^3 x 3: 1.1 TFLOP per GEMM, over it too; 8192^3 x 100000: 54 TB of host memory.
  const testing::JsonRun run = testing::run_with_json(
      {CSG_STAGE04_BINARY, "regime-map", "--map-sizes", "16,8192", "--map-batches", "3,100000",
       "--map-cell-seconds", "1", "--warmup", "0", "--repeats", "1"},
      dir, "map.json");
  ASSERT_EQ(run.exit_code, kExitOk) << run.out << run.err;
  const nlohmann::json cells = run.doc().at("regime_map").at("cells");
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0].at("verified"), true) << cells[0].dump();
  EXPECT_EQ(cells[1].at("skipped_because"), "time") << cells[1].dump();
  EXPECT_EQ(cells[2].at("skipped_because"), "time") << cells[2].dump();
  EXPECT_EQ(cells[3].at("skipped_because"), "memory") << cells[3].dump();
  for (int i = 1; i < 4; ++i) {
    EXPECT_FALSE(cells[i].at("skipped_reason").get<std::string>().empty());
    EXPECT_TRUE(cells[i].at("verified").is_null());
    EXPECT_TRUE(cells[i].at("winner").is_null());
  }
  EXPECT_THAT(run.out, ::testing::HasSubstr("skipped (memory)"));
  EXPECT_THAT(run.out, ::testing::HasSubstr("8192^3: no cell measured"));
  EXPECT_THAT(run.err, ::testing::HasSubstr("cell 4 of 4: 8192\u00b3 \u00d7 100000 batches: skipped"));
}

#endif  // CSG_STAGE04_BINARY

// ---- measure_regime_map with the laboratory's steps, whole and broken ----------

// Which of the calls to break, to prove each variant's check sees its own outputs.
enum class Broken { nothing, capture_drops_last_batch, pool_drops_last_batch };

class Lab {
 public:
  explicit Lab(int streams) : pool_(streams) { prepare_pool(gemm_, pool_); }

  // regime_map_steps, with one of its calls leaving out the last batch.
  RegimeMapSteps steps(Broken broken) {
    PoolConfig config;
    config.streams = pool_.size();
    RegimeMapSteps steps = regime_map_steps(pool_, config, gemm_);
    if (broken == Broken::capture_drops_last_batch) {
      steps.capture = [this](BatchBuffers& b, int batches) {
        return capture_batches(batch_ops(b, gemm_), pool_, batches - 1);
      };
    } else if (broken == Broken::pool_drops_last_batch) {
      steps.issue_on_streams = [this](const BatchOps& ops, int batches) { issue_on_streams(ops, pool_, batches - 1); };
    }
    return steps;
  }

 private:
  StreamPool pool_;
  Gemm gemm_;
};

RegimeMapConfig tiny_map() {
  RegimeMapConfig config;
  config.sizes = {16, 24};
  config.batches = {5, 7};
  return config;
}

CommonOptions tiny_options() {
  CommonOptions options;
  options.host_memory = HostMemory::pinned;
  options.plan = RepeatPlan{1, 2};
  options.seed = 3;
  return options;
}

// The map's report, as the subcommand ends with it.
Report reported(const RegimeMap& map) {
  Report report("04_graph_capture_gemm", "regime-map", DeviceInfo{});
  report_regime_map(RegimeMapOptions{}, map, report);
  return report;
}

TEST_F(RegimeMapTest, EveryCellIsMeasuredAndVerifiedWithTheCallsItIsGiven) {
  Lab calls(3);
  const RegimeMap map = measure_regime_map(tiny_map(), tiny_options(), calls.steps(Broken::nothing));
  EXPECT_EQ(map.streams, 3);
  ASSERT_EQ(map.cells.size(), 4u);
  for (const MapCell& cell : map.cells) {
    ASSERT_TRUE(cell.measured()) << cell.m << " x " << cell.batches << ": " << cell.skipped->reason;
    EXPECT_TRUE(cell.verified()) << cell.graph_check.message() << " / " << cell.stream_check.message();
    EXPECT_EQ(cell.graph_check.batches_checked, cell.batches);
    EXPECT_EQ(cell.stream_check.batches_checked, cell.batches);
    EXPECT_EQ(cell.graph_check.digest, cell.stream_check.digest) << "the same outputs either way";
    ASSERT_EQ(cell.alone.size(), 4u) << "kernels, H2D, D2H and both ways alone on the pool";
    for (const Summary* s : {&cell.stream_pool, &cell.graph_replay, &cell.stream_issue, &cell.graph_issue,
                             &cell.sums.h2d, &cell.sums.kernel, &cell.sums.d2h, &cell.sums.h2d_first,
                             &cell.sums.kernel_first, &cell.sums.d2h_first, &cell.alone[0], &cell.alone[1],
                             &cell.alone[2], &cell.alone[3], &cell.busiest_stream}) {
      EXPECT_EQ(s->samples, 2);
      EXPECT_GT(s->median_ms, 0.0);
    }
    EXPECT_GT(cell.estimate.timed_seconds, 0.0);
  }
  EXPECT_EQ(map.cells[0].m, 16);
  EXPECT_EQ(map.cells[1].batches, 7);
  EXPECT_EQ(map.cells[2].m, 24);
  EXPECT_GT(map.estimated_seconds, 0.0);
  const StageResult result = reported(map).result;
  EXPECT_TRUE(result.verification.passed) << result.verification.message();
  EXPECT_EQ(result.verification.batches_checked, 2 * (5 + 7));
}

TEST_F(RegimeMapTest, AGraphThatMissesABatchFailsOnlyTheReplaysCheck) {
  Lab calls(2);
  const RegimeMap map = measure_regime_map(tiny_map(), tiny_options(), calls.steps(Broken::capture_drops_last_batch));
  for (const MapCell& cell : map.cells) {
    ASSERT_TRUE(cell.measured());
    EXPECT_FALSE(cell.graph_check.passed) << "the last batch's C stayed poisoned";
    ASSERT_TRUE(cell.graph_check.first_failure.has_value());
    EXPECT_EQ(cell.graph_check.first_failure->batch, cell.batches - 1);
    EXPECT_TRUE(cell.stream_check.passed) << cell.stream_check.message();
    EXPECT_FALSE(cell.verified());
  }
  EXPECT_FALSE(reported(map).passed());
}

TEST_F(RegimeMapTest, APoolThatMissesABatchFailsOnlyThePoolsCheck) {
  Lab calls(2);
  const RegimeMap map = measure_regime_map(tiny_map(), tiny_options(), calls.steps(Broken::pool_drops_last_batch));
  for (const MapCell& cell : map.cells) {
    ASSERT_TRUE(cell.measured());
    EXPECT_TRUE(cell.graph_check.passed) << cell.graph_check.message();
    EXPECT_FALSE(cell.stream_check.passed) << "the last batch's C stayed poisoned";
    ASSERT_TRUE(cell.stream_check.first_failure.has_value());
    EXPECT_EQ(cell.stream_check.first_failure->batch, cell.batches - 1);
  }
}

// The plan is the subcommand's estimate, which the runner holds against
// --max-minutes before measure runs: it must estimate every cell from the
// rates alone, and issue no GEMM work of its own.
TEST_F(RegimeMapTest, ThePlanEstimatesEveryCellAndIssuesNoWork) {
  Lab calls(2);
  RegimeMapSteps steps = calls.steps(Broken::nothing);
  int issued = 0;
  steps.capture = [inner = steps.capture, &issued](BatchBuffers& b, int batches) {
    ++issued;
    return inner(b, batches);
  };
  steps.issue_on_streams = [inner = steps.issue_on_streams, &issued](const BatchOps& ops, int batches) {
    ++issued;
    inner(ops, batches);
  };
  const RegimeMap map = plan_regime_map(tiny_map(), tiny_options(), steps.pool_config, steps.rates);
  EXPECT_EQ(issued, 0) << "planning issues nothing";
  ASSERT_EQ(map.cells.size(), 4u);
  for (const MapCell& cell : map.cells) EXPECT_GT(cell.estimate.timed_seconds, 0.0);
  EXPECT_GT(map.estimated_seconds, 0.0);
  EXPECT_THAT(plan_text(map), ::testing::HasSubstr("regime map: 2 sizes x 2 batch counts = 4 cells"));
}

}  // namespace gpu_regime_map
}  // namespace csg::graphs
