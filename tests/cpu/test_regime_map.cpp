// Stage 04's regime map without a GPU: the winner rule and its threshold
// (each cell's verdict), the crossover row by row (its verdicts, including
// "graph never wins here"), the skip decisions and the estimate behind them,
// the printed map, the JSON's fields, and the map's options with every
// refusal, on made-up cells.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "04_graph_capture_gemm/lab/regime-map/regime_map.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/errors.hpp"
#include "made_up.hpp"
#include "param_names.hpp"
#include "report/device_info.hpp"

namespace csg::graphs {
namespace cpu_regime_map {

using testing::ms;

MapCell measured(int m, int batches, double graph_ms, double stream_ms) {
  MapCell cell;
  cell.m = m;
  cell.batches = batches;
  cell.graph_replay = ms(graph_ms);
  cell.stream_pool = ms(stream_ms);
  cell.graph_issue = ms(0.01);
  cell.stream_issue = ms(0.4 * stream_ms);
  cell.sums = StageSums{ms(stream_ms * 0.3), ms(stream_ms * 0.6), ms(stream_ms * 0.3)};
  // The pool's bound: kernels alone on the pool 90% of its time, the rest shorter: within it.
  cell.alone = {ms(0.9 * stream_ms), ms(0.3 * stream_ms), ms(0.3 * stream_ms), ms(0.5 * stream_ms)};
  cell.busiest_stream = ms(0.2 * stream_ms);
  for (VerifyResult* check : {&cell.graph_check, &cell.stream_check}) {
    check->passed = true;
    check->batches_checked = batches;
  }
  return cell;
}

MapCell skipped(int m, int batches, SkipKind kind, const std::string& reason) {
  MapCell cell;
  cell.m = m;
  cell.batches = batches;
  cell.skipped = CellSkip{kind, reason};
  return cell;
}

// Graph time for a given winner against a 10 ms pool.
constexpr double kPool = 10.0;
constexpr double kGraphWins = 8.8;     // -12%
constexpr double kStreamsWin = 10.4;   // +4%
constexpr double kTie = 10.2;          // +2%: within 3%

RegimeMap map_of(std::vector<int> sizes, std::vector<int> batches, std::vector<MapCell> cells) {
  RegimeMap map;
  map.config.sizes = std::move(sizes);
  map.config.batches = std::move(batches);
  map.plan = RepeatPlan{2, 10};
  map.cells = std::move(cells);
  return map;
}

Report reported(const RegimeMap& map) {
  DeviceInfo device;
  device.name = "Test GPU";
  RegimeMapOptions options;
  options.map = map.config;
  return testing::report_of("04_graph_capture_gemm", "regime-map", report_regime_map, options, map, device);
}

// ---- the winner rule ----------------------------------------------------------

TEST(RegimeMapWinner, TheGraphWinsOnlyMoreThanThreePercentFaster) {
  EXPECT_EQ(map_winner(kGraphWins, kPool), MapWinner::graph);
  EXPECT_EQ(map_winner(9.69, kPool), MapWinner::graph);
  EXPECT_EQ(map_winner(9.71, kPool), MapWinner::tie);
  EXPECT_EQ(map_winner(10.29, kPool), MapWinner::tie);
  EXPECT_EQ(map_winner(10.31, kPool), MapWinner::streams);
  EXPECT_EQ(map_winner(kStreamsWin, kPool), MapWinner::streams);
  EXPECT_EQ(map_winner(9.5, kPool, 0.10), MapWinner::tie) << "a stated threshold wins";
  EXPECT_EQ(map_winner(9.8, kPool, 0.01), MapWinner::graph) << "a stated threshold below 3% wins too";
  EXPECT_EQ(to_string(MapWinner::graph), "graph");
  EXPECT_EQ(to_string(MapWinner::streams), "streams");
  EXPECT_EQ(to_string(MapWinner::tie), "tie");
}

TEST(RegimeMapWinner, EachCellsVerdictIsItsWinner) {
  const Verdict graph = cell_verdict(measured(64, 1000, kGraphWins, kPool));
  EXPECT_EQ(graph.id, "regime_map.cell.64x1000");
  EXPECT_EQ(graph.outcome, "graph");
  EXPECT_EQ(graph.sentence, "64^3 x 1000 batches: graph -12%");
  EXPECT_DOUBLE_EQ(graph.threshold.at("equal_within").get<double>(), kEqualWithin);
  EXPECT_DOUBLE_EQ(graph.figures.at("graph_ms").get<double>(), kGraphWins);
  EXPECT_EQ(cell_verdict(measured(64, 1000, kStreamsWin, kPool)).outcome, "streams");
  EXPECT_EQ(cell_verdict(measured(64, 1000, kTie, kPool)).outcome, "tie");
  EXPECT_EQ(cell_verdict(measured(64, 1000, 9.5, kPool), 0.10).outcome, "tie") << "the stated threshold";
}

TEST(RegimeMapWinner, EachCellSaysTheWinnerAndTheReplaysTimeAgainstThePools) {
  EXPECT_EQ(cell_text(measured(64, 1000, kGraphWins, kPool)), "graph -12%");
  EXPECT_EQ(cell_text(measured(64, 1000, kStreamsWin, kPool)), "streams +4%");
  EXPECT_EQ(cell_text(measured(64, 1000, kTie, kPool)), "tie");
  EXPECT_EQ(cell_text(measured(64, 1000, 9.8, kPool)), "tie");
  EXPECT_EQ(cell_text(skipped(64, 1000, SkipKind::time, "too long")), "skipped (time)");
  EXPECT_EQ(cell_text(skipped(64, 1000, SkipKind::memory, "too big")), "skipped (memory)");
}

TEST(RegimeMapWinner, ACellWhoseMedianIsFarFromItsFastestRunIsMarkedNoisy) {
  // The replay's median 0.34 ms, its fastest run 0.13 ms: most runs were slow.
  MapCell cell = measured(256, 10, 0.34, 0.15);
  cell.graph_replay = ms(0.34, 0.13 / 0.34, 1.2);
  EXPECT_TRUE(noisy(cell));
  EXPECT_EQ(cell_text(cell), "streams +127% (noisy)");
  cell.graph_replay = ms(0.34, 0.7, 1.2);  // median 1.43x the fastest: within 1.5x
  EXPECT_FALSE(noisy(cell));
  cell.stream_pool = ms(0.34, 0.6, 1.2);  // the pool's median 1.67x its fastest
  EXPECT_EQ(cell_text(cell), "tie (noisy)");
  EXPECT_FALSE(noisy(skipped(64, 1000, SkipKind::time, "too long")));
  const Report report = reported(map_of({256}, {10}, {cell}));
  EXPECT_EQ(report.document().at("regime_map").at("cells").at(0).at("noisy"), true);
  EXPECT_THAT(report.console(),
              HasSubstr("noisy: 256^3 x 10 batches: median / fastest run 1.43x for the replay, 1.67x for the pool"));
  const auto cell_verdict_of = std::find_if(report.verdicts().begin(), report.verdicts().end(),
                                            [](const Verdict& v) { return v.id == "regime_map.cell.256x10"; });
  ASSERT_NE(cell_verdict_of, report.verdicts().end());
  const Verdict& verdict = *cell_verdict_of;
  EXPECT_EQ(verdict.outcome, "tie");
  EXPECT_EQ(verdict.figures.at("noisy"), true);
  EXPECT_EQ(verdict.sentence, "256^3 x 10 batches: tie (noisy)");
}

TEST(RegimeMapWinner, AMedianExactlyOneAndAHalfTimesTheFastestRunIsNotNoisy) {
  MapCell cell = measured(256, 10, 8.8, 10.0);
  cell.graph_replay = summarize({Millis(1.0), Millis(1.5), Millis(1.8)});  // median / fastest: exactly 1.5
  EXPECT_FALSE(noisy(cell));
  EXPECT_EQ(cell_text(cell).find("noisy"), std::string::npos) << cell_text(cell);
}

// ---- the bound --------------------------------------------------------------

TEST(RegimeMapBound, ThePoolsBoundIsStage03sAtThePoolsConcurrency) {
  // 10 batches on 4 streams: every kernel alone on the pool 6 ms (side by
  // side: less than the one-stream kernel sum of 8 ms), each copy direction
  // alone 2 ms, both at once 3 ms, the host's issue 1 ms, the busiest
  // stream's 3 batches alone 2.5 ms. Compute-bound: one H2D (0.2) + 6 + one
  // D2H (0.2) = 6.4 ms, not the one-stream kernel sum the pool beats.
  MapCell cell = measured(256, 10, 7.0, 8.0);
  cell.sums = StageSums{ms(2.0), ms(8.0), ms(2.0)};
  cell.alone = {ms(6.0), ms(2.0), ms(2.0), ms(3.0)};
  cell.stream_issue = ms(1.0);
  cell.busiest_stream = ms(2.5);
  const PipelineBound compute = pool_bound(cell, 4);
  EXPECT_DOUBLE_EQ(compute.bound_ms, 6.4);
  EXPECT_EQ(compute.limited_by, BoundPath::kernels);
  EXPECT_DOUBLE_EQ(compute.host_issue_ms, 1.0);
  EXPECT_DOUBLE_EQ(compute.busiest_stream_ms, 2.5);
  EXPECT_DOUBLE_EQ(compute.stream_order_ms, 3 * (0.2 + 0.6 + 0.2)) << "3 batches on the busiest of 4 streams";
  EXPECT_DOUBLE_EQ(pool_percent_of_bound(cell, 4), 80.0);
  EXPECT_NEAR(pool_bound_tolerance(cell, 4), 0.01 + (1.0 / 0.99 - 1.0) + kTimingJitterMs / 8.0, 1e-12)
      << "made-up runs 1% apart: the run's spread, the path's median over its fastest, the timing's jitter";
  // Tiny GEMMs: the host's issue paces the pool, and the bound names it.
  cell.stream_issue = ms(7.5);
  EXPECT_EQ(pool_bound(cell, 4).limited_by, BoundPath::host_issue);
  EXPECT_DOUBLE_EQ(pool_percent_of_bound(cell, 4), 93.75);
  // On one stream the stream order is every batch, one after another.
  EXPECT_DOUBLE_EQ(pool_bound(cell, 1).stream_order_ms, 10 * (0.2 + 0.6 + 0.2));
}

TEST(RegimeMapBound, EachCellSaysHowCloseThePoolCameAndWhatIsMissingWhereFarBelow) {
  MapCell cell = measured(64, 100, 7.0, 8.0);
  cell.sums = StageSums{ms(1.0), ms(2.0), ms(1.0)};
  cell.alone = {ms(2.0), ms(1.0), ms(1.0), ms(1.5)};
  cell.busiest_stream = ms(0.5);
  cell.stream_issue = ms(7.6);  // 95% of the pool's 8 ms: the host's issue paces it
  Verdict within = cell_bound_verdict(cell, 8);
  EXPECT_EQ(within.id, "regime_map.bound.64x100");
  EXPECT_EQ(within.outcome, "within_bound");
  EXPECT_EQ(within.sentence, "64^3 x 100 batches: the pool reached 95.0% of its bound, which host issue sets");
  EXPECT_EQ(within.figures.at("limited_by"), "host issue");
  EXPECT_DOUBLE_EQ(within.figures.at("percent_of_bound").get<double>(), 95.0);

  cell.stream_issue = ms(8.2);  // 102.5%: over the 2% the made-up runs' spread allows
  const Verdict faster = cell_bound_verdict(cell, 8);
  EXPECT_EQ(faster.outcome, "faster_than_bound");
  EXPECT_THAT(faster.sentence, HasSubstr("102.5% of its bound (host issue, 8.200 ms): FASTER THAN ITS BOUND"));
  cell.stream_issue = ms(8.15);  // 101.9%: within the noise
  EXPECT_EQ(cell_bound_verdict(cell, 8).outcome, "within_bound");

  cell.stream_issue = ms(4.0);  // 50%: no path comes near the pool's time
  const Verdict loose = cell_bound_verdict(cell, 8);
  EXPECT_EQ(loose.outcome, "well_below_bound");
  EXPECT_THAT(loose.sentence, AllOf(HasSubstr("64^3 x 100 batches: the pool reached 50.0% of its bound"),
                                    HasSubstr("no resource alone took more than 4.00 ms (host issue)"),
                                    HasSubstr("waiting on each other")));
}

// ---- which cells run ----------------------------------------------------------

TEST(RegimeMapSkips, MemoryFirstThenTheBudgetAndEveryReasonIsSaid) {
  EXPECT_FALSE(skip_for(9.9, 10, std::nullopt).has_value());
  EXPECT_FALSE(skip_for(10.0, 10, std::nullopt).has_value()) << "at the budget: still runs";
  const auto late = skip_for(14.7, 10, std::nullopt);
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->kind, SkipKind::time);
  EXPECT_EQ(late->reason, "estimated 14.7 s of timed runs, over the 10 s per cell (--map-cell-seconds)");
  EXPECT_EQ(skip_for(120.0, 10, std::nullopt)->reason,
            "estimated 120 s of timed runs, over the 10 s per cell (--map-cell-seconds)");
  const auto big = skip_for(1.0, 10, std::string("needs 80.0 GiB of host memory"));
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(big->kind, SkipKind::memory);
  EXPECT_EQ(big->reason, "needs 80.0 GiB of host memory");
  EXPECT_EQ(skip_for(100.0, 10, std::string("too big"))->kind, SkipKind::memory) << "memory before time";
}

// This GPU's rates, as measure_rates gives them on an H200 (naive GEMM, pinned copies).
const Rates kH200{6.0e12, 55.0e9, 8.0e9};

TEST(RegimeMapEstimate, TimedRoundsGrowWithTheWorkAndTinyWorkPaysPerOperation) {
  const RepeatPlan plan{2, 10};
  const CellEstimate hundred = estimate_cell(Workload{100, {1024, 1024, 1024}}, kH200, plan, 8);
  const CellEstimate thousand = estimate_cell(Workload{1000, {1024, 1024, 1024}}, kH200, plan, 8);
  EXPECT_NEAR(thousand.timed_seconds / hundred.timed_seconds, 10.0, 0.05) << "the busiest stream's share aside";
  EXPECT_GT(thousand.host_seconds, hundred.host_seconds);
  EXPECT_NEAR(estimate_cell(Workload{100, {1024, 1024, 1024}}, kH200, RepeatPlan{0, 6}, 8).timed_seconds,
              hundred.timed_seconds / 2.0, 1e-9)
      << "every round, warm-up included";
  // 1024^3: 0.36 ms of kernel per batch (2 GFLOP at 6 TFLOP/s).
  const double kernel = 2.0 * 1024.0 * 1024.0 * 1024.0 / kH200.kernel_flops_per_s;
  const double copy = 1024.0 * 1024.0 * 4.0 / kH200.pinned_bytes_per_s;
  // The replay and the pool (each the kernels), the three one-stream sums,
  // each resource alone on the pool (kernels, H2D, D2H, both ways) and the
  // busiest stream's 13 of the 100 batches on one stream.
  const double one_stream = kernel + 2 * copy;
  EXPECT_NEAR(hundred.timed_seconds,
              12 * 100 * (2 * kernel + one_stream + (kernel + 3 * copy) + one_stream * 13 / 100), 1e-9);
  // 32^3 at any rate: every operation costs at least a few microseconds.
  const Rates infinite{1e30, 1e30, 1e30};
  const CellEstimate tiny = estimate_cell(Workload{10000, {32, 32, 32}}, infinite, plan, 8);
  // Per batch and round: 6 operations for the replay and the pool (3 each),
  // 3 for the sums, 4 alone on the pool (both ways one copy's time), 3/8
  // for the busiest stream's share: 13.4 operations of a few microseconds.
  EXPECT_GT(tiny.timed_seconds, 12 * 10000 * 13 * 3e-6);
  EXPECT_LT(tiny.timed_seconds, 12 * 10000 * 14 * 5e-6);
}

TEST(RegimeMapEstimate, TheDefaultMapOnAnH200SkipsThreeCellsAndFitsInFiveMinutes) {
  const RegimeMapConfig defaults;
  const RepeatPlan plan{2, 10};
  std::vector<std::string> skipped_cells;
  double total = 0.0;
  for (const int m : defaults.sizes) {
    for (const int batches : defaults.batches) {
      const CellEstimate estimate = estimate_cell(Workload{batches, {m, m, m}}, kH200, plan, 8);
      if (skip_for(estimate.timed_seconds, defaults.cell_seconds, std::nullopt)) {
        skipped_cells.push_back(std::to_string(m) + "x" + std::to_string(batches));
        // Well over the budget, so that the measured rates' noise can't flip it.
        EXPECT_GT(estimate.timed_seconds, 1.4 * defaults.cell_seconds) << m << " x " << batches;
      } else {
        EXPECT_LT(estimate.timed_seconds, 0.7 * defaults.cell_seconds) << m << " x " << batches;
        total += estimate.total();
      }
    }
  }
  EXPECT_EQ(skipped_cells, (std::vector<std::string>{"512x10000", "1024x1000", "1024x10000"}));
  EXPECT_LT(total, 180.0) << "the default map's estimate, under 5 minutes with room to spare";
}

// ---- the crossover ----------------------------------------------------------

RegimeMap four_rows() {
  const std::vector<int> counts = {10, 100, 1000, 10000};
  std::vector<MapCell> cells = {
      // 32^3: streams, tie, then the graph: a clean crossover at 1000.
      measured(32, 10, kStreamsWin, kPool), measured(32, 100, kTie, kPool), measured(32, 1000, kGraphWins, kPool),
      measured(32, 10000, kGraphWins, kPool),
      // 64^3: the graph first wins at 100, ties at 1000, wins again.
      measured(64, 10, kTie, kPool), measured(64, 100, kGraphWins, kPool), measured(64, 1000, kTie, kPool),
      measured(64, 10000, kGraphWins, kPool),
      // 256^3: never, two cells skipped.
      measured(256, 10, kStreamsWin, kPool), measured(256, 100, kTie, kPool),
      skipped(256, 1000, SkipKind::time, "estimated 14.7 s of timed runs, over the 10 s per cell (--map-cell-seconds)"),
      skipped(256, 10000, SkipKind::memory, "needs 80.0 GiB"),
      // 1024^3: nothing measured.
      skipped(1024, 10, SkipKind::memory, "m1"), skipped(1024, 100, SkipKind::memory, "m2"),
      skipped(1024, 1000, SkipKind::memory, "m3"), skipped(1024, 10000, SkipKind::memory, "m4")};
  return map_of({32, 64, 256, 1024}, counts, std::move(cells));
}

// The crossover verdict of the only row of `map` (or of row `row`).
Verdict crossover_of(const RegimeMap& map, std::size_t row = 0) { return crossover_verdict(crossovers(map)[row], map); }

TEST(RegimeMapCrossover, RowByRowTheSmallestBatchCountWhereTheGraphWins) {
  const RegimeMap map = four_rows();
  const std::vector<RowCrossover> rows = crossovers(map);
  ASSERT_EQ(rows.size(), 4u);

  EXPECT_EQ(rows[0].m, 32);
  EXPECT_EQ(rows[0].first_graph_win, 1000);
  EXPECT_TRUE(rows[0].wins_from_there_on());
  const Verdict from = crossover_of(map, 0);
  EXPECT_EQ(from.id, "regime_map.crossover.32");
  EXPECT_EQ(from.outcome, "from_there_on");
  EXPECT_EQ(from.sentence, "  32^3: the graph wins from 1000 batches on (at every larger count measured too)");
  EXPECT_EQ(from.figures.at("first_graph_win_batches"), 1000);

  EXPECT_EQ(rows[1].first_graph_win, 100);
  EXPECT_FALSE(rows[1].wins_from_there_on());
  ASSERT_EQ(rows[1].not_won_above.size(), 1u);
  EXPECT_EQ(rows[1].not_won_above[0], (std::pair{1000, MapWinner::tie}));
  const Verdict not_every = crossover_of(map, 1);
  EXPECT_EQ(not_every.outcome, "not_every_larger");
  EXPECT_EQ(not_every.sentence, "  64^3: the graph wins first at 100 batches, but not at every larger count (1000: tie)");

  EXPECT_FALSE(rows[2].first_graph_win.has_value());
  EXPECT_EQ(rows[2].measured, (std::vector<int>{10, 100}));
  const Verdict never = crossover_of(map, 2);
  EXPECT_EQ(never.outcome, "never");
  EXPECT_EQ(never.sentence, "  256^3: graph never wins here (streams or a tie at 10, 100 batches)");

  EXPECT_TRUE(rows[3].measured.empty());
  const Verdict none = crossover_of(map, 3);
  EXPECT_EQ(none.outcome, "no_cell_measured");
  EXPECT_EQ(none.sentence, "  1024^3: no cell measured (every batch count skipped)");
}

TEST(RegimeMapCrossover, EverywhereAndOnlyAtTheLargestCount) {
  const RegimeMap everywhere = map_of({128}, {10, 100}, {measured(128, 10, kGraphWins, kPool),
                                                          measured(128, 100, kGraphWins, kPool)});
  EXPECT_EQ(crossover_of(everywhere).outcome, "every_count");
  EXPECT_EQ(crossover_of(everywhere).sentence, "  128^3: the graph wins at every batch count measured (10, 100)");
  const RegimeMap last = map_of({128}, {10, 100}, {measured(128, 10, kTie, kPool),
                                                    measured(128, 100, kGraphWins, kPool)});
  EXPECT_EQ(crossover_of(last).outcome, "only_largest");
  EXPECT_EQ(crossover_of(last).sentence, "  128^3: the graph wins only at 100 batches, the largest count measured");
  const RegimeMap streams_above = map_of({128}, {10, 100, 1000}, {measured(128, 10, kGraphWins, kPool),
                                                                   measured(128, 100, kStreamsWin, kPool),
                                                                   measured(128, 1000, kTie, kPool)});
  EXPECT_EQ(crossover_of(streams_above).sentence,
            "  128^3: the graph wins first at 10 batches, but not at every larger count (100: streams, 1000: tie)");
}

TEST(RegimeMapCrossover, OneMeasuredCellIsTheLargestCountNotEveryCount) {
  const RegimeMap one = map_of({128}, {10}, {measured(128, 10, kGraphWins, kPool)});
  EXPECT_EQ(crossover_of(one).outcome, "only_largest");
}

TEST(RegimeMapCrossover, TheLargestCountIsTheLargestMeasuredNotTheLargestAsked) {
  // 1000 batches were asked for but skipped: 100 is the largest count measured.
  const RegimeMap map = map_of({128}, {10, 100, 1000}, {measured(128, 10, kTie, kPool),
                                                         measured(128, 100, kGraphWins, kPool),
                                                         skipped(128, 1000, SkipKind::time, "too long")});
  EXPECT_EQ(crossover_of(map).sentence, "  128^3: the graph wins only at 100 batches, the largest count measured");
}

// ---- the printed map and the JSON ---------------------------------------------

std::string line_starting(const std::string& text, const std::string& start) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(start, 0) == 0) return line;
  }
  return "";
}

TEST(RegimeMapReport, TheTableHasARowPerSizeAndAColumnPerBatchCount) {
  const Report report = reported(four_rows());
  const std::string text = report.console();
  const std::string header = line_starting(text, "m=n=k \\ batches");
  ASSERT_FALSE(header.empty()) << text;
  EXPECT_THAT(header, AllOf(HasSubstr("10"), HasSubstr("100"), HasSubstr("1000"), HasSubstr("10000")));
  const std::string row32 = line_starting(text, "32 ");
  EXPECT_THAT(row32, AllOf(HasSubstr("streams +4%"), HasSubstr("tie"), HasSubstr("graph -12%")));
  EXPECT_LT(row32.find("streams +4%"), row32.find("graph -12%")) << "batch counts left to right";
  const std::string row256 = line_starting(text, "256 ");
  EXPECT_THAT(row256, AllOf(HasSubstr("skipped (time)"), HasSubstr("skipped (memory)")));
  // The columns line up: every row as wide as the header.
  EXPECT_EQ(row32.size(), header.size());
  EXPECT_EQ(row256.size(), header.size());
  // Every skipped cell with its reason, the crossover, the verification.
  EXPECT_THAT(text, AllOf(HasSubstr("skipped: 256^3 x 1000 batches: estimated 14.7 s of timed runs, over the 10 s per cell"),
                          HasSubstr("skipped: 256^3 x 10000 batches: needs 80.0 GiB"),
                          HasSubstr("  32^3: the graph wins from 1000 batches on"),
                          HasSubstr("  256^3: graph never wins here"),
                          HasSubstr("all 22330 batches verified"), HasSubstr("(every measured cell: 10 cells")));
  // The crossover's verdicts are printed, one per row; each measured cell's is carried.
  std::vector<std::string> printed;
  for (const Verdict& verdict : report.verdicts()) {
    if (text.find(verdict.sentence) != std::string::npos) printed.push_back(verdict.id);
  }
  EXPECT_THAT(printed, ElementsAre("regime_map.crossover.32", "regime_map.crossover.64", "regime_map.crossover.256",
                                   "regime_map.crossover.1024"));
  EXPECT_EQ(report.verdicts().size(), 4u + 10u + 10u) << "the crossovers, and each measured cell's winner and bound";
  EXPECT_TRUE(report.passed());
}

TEST(RegimeMapReport, TheJsonHasEveryCellAndTheCrossover) {
  const nlohmann::json doc = reported(four_rows()).document();
  EXPECT_EQ(doc.at("schema"), kResultSchema);
  EXPECT_TRUE(doc.at("measurements").empty());
  EXPECT_EQ(doc.at("config").at("mode"), "regime_map");
  EXPECT_TRUE(doc.at("config").at("batches").is_null());
  EXPECT_TRUE(doc.at("config").at("m").is_null());
  EXPECT_EQ(doc.at("verification").at("passed"), true);
  EXPECT_EQ(doc.at("verification").at("batches_checked"), 22330);
  EXPECT_EQ(doc.at("verification").at("variants_checked"), 20);

  const nlohmann::json& rm = doc.at("regime_map");
  EXPECT_EQ(rm.at("sizes"), (std::vector<int>{32, 64, 256, 1024}));
  EXPECT_EQ(rm.at("batches"), (std::vector<int>{10, 100, 1000, 10000}));
  EXPECT_DOUBLE_EQ(rm.at("equal_within").get<double>(), kEqualWithin);
  EXPECT_THAT(rm.at("bound").get<std::string>(), HasSubstr("the pool's pipeline bound"));
  ASSERT_EQ(rm.at("cells").size(), 16u);
  const nlohmann::json& win = rm.at("cells")[2];  // 32^3 x 1000
  EXPECT_EQ(win.at("m"), 32);
  EXPECT_EQ(win.at("batches"), 1000);
  EXPECT_DOUBLE_EQ(win.at("stream_ms").get<double>(), kPool);
  EXPECT_DOUBLE_EQ(win.at("graph_ms").get<double>(), kGraphWins);
  EXPECT_DOUBLE_EQ(win.at("stream_issue_ms").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(win.at("graph_issue_ms").get<double>(), 0.01);
  // The pool's bound: one H2D + the kernels alone on the pool + one D2H.
  EXPECT_DOUBLE_EQ(win.at("pool_percent_of_bound").get<double>(), 100.0 * (3.0 / 1000 + 9.0 + 3.0 / 1000) / kPool);
  EXPECT_NEAR(win.at("pool_bound_tolerance").get<double>(), 0.01 + (1.0 / 0.99 - 1.0) + kTimingJitterMs / kPool, 1e-12);
  EXPECT_EQ(win.at("limited_by"), "kernels");
  EXPECT_DOUBLE_EQ(win.at("kernels_alone_ms").get<double>(), 9.0);
  EXPECT_DOUBLE_EQ(win.at("busiest_stream_ms").get<double>(), 2.0);
  EXPECT_EQ(win.at("winner"), "graph");
  EXPECT_TRUE(win.at("skipped_reason").is_null());
  EXPECT_EQ(win.at("verified"), true);
  EXPECT_EQ(win.at("text"), "graph -12%");
  EXPECT_EQ(rm.at("cells")[0].at("winner"), "streams");
  EXPECT_EQ(rm.at("cells")[1].at("winner"), "tie");
  const nlohmann::json& late = rm.at("cells")[10];  // 256^3 x 1000
  EXPECT_EQ(late.at("m"), 256);
  EXPECT_EQ(late.at("batches"), 1000);
  for (const char* key : {"stream_ms", "graph_ms", "stream_issue_ms", "graph_issue_ms", "pool_percent_of_bound",
                          "pool_bound_tolerance", "winner", "verified"}) {
    EXPECT_TRUE(late.at(key).is_null()) << key;
  }
  EXPECT_THAT(late.at("skipped_reason").get<std::string>(), HasSubstr("over the 10 s per cell"));
  EXPECT_EQ(late.at("skipped_because"), "time");
  EXPECT_EQ(rm.at("cells")[11].at("skipped_because"), "memory");

  ASSERT_EQ(rm.at("crossover").size(), 4u);
  EXPECT_EQ(rm.at("crossover")[0].at("first_graph_win_batches"), 1000);
  EXPECT_EQ(rm.at("crossover")[0].at("graph_wins_from_there_on"), true);
  EXPECT_EQ(rm.at("crossover")[1].at("first_graph_win_batches"), 100);
  EXPECT_EQ(rm.at("crossover")[1].at("graph_wins_from_there_on"), false);
  EXPECT_TRUE(rm.at("crossover")[2].at("first_graph_win_batches").is_null());
  EXPECT_EQ(rm.at("crossover")[2].at("text"), "256^3: graph never wins here (streams or a tie at 10, 100 batches)");
  EXPECT_EQ(rm.at("crossover")[3].at("measured_cells"), 0);
}

TEST(RegimeMapReport, AFailedCellFailsTheRunAndIsNamed) {
  RegimeMap map = four_rows();
  MapCell& bad = map.cells[5];  // 64^3 x 100
  bad.graph_check.passed = false;
  bad.graph_check.first_failure = Mismatch{37, 1, 2, 128.0, std::nan(""), "freivalds"};
  const Report report = reported(map);
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.result.verification.method, HasSubstr("cell 64^3 x 100 batches, graph replay"));
  EXPECT_THAT(report.console(), HasSubstr("cell 64^3 x 100 batches, graph replay: verification failed: batch 37"));
  const nlohmann::json cell = report.document().at("regime_map").at("cells")[5];
  EXPECT_EQ(cell.at("verified"), false);
  EXPECT_THAT(cell.at("failure").get<std::string>(), HasSubstr("batch 37"));
}

TEST(RegimeMapReport, AMapWithEveryCellSkippedSaysSo) {
  const Report report = reported(map_of({1024}, {10}, {skipped(1024, 10, SkipKind::memory, "needs more")}));
  EXPECT_EQ(report.result.verification.batches_checked, 0);
  EXPECT_THAT(report.console(), AllOf(HasSubstr("no cell measured: every cell was skipped"),
                                      Not(HasSubstr("every measured cell (GPU time"))));
}

// ---- the options --------------------------------------------------------------

RegimeMapConfig parse(const std::vector<std::string>& args) {
  StageCli cli("04_graph_capture_gemm regime-map", "test", {.host_memory = HostMemory::pinned, .gemm_workload = false});
  add_regime_map_options(cli);
  if (!cli.parse(args)) throw std::logic_error("--help");
  return read_regime_map_options(cli);
}

TEST(RegimeMapOptions, DefaultsAndSortedLists) {
  const RegimeMapConfig defaults = parse({});
  EXPECT_EQ(defaults.sizes, (std::vector<int>{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(defaults.batches, (std::vector<int>{10, 100, 1000, 10000}));
  EXPECT_EQ(defaults.cell_seconds, kDefaultMapCellSeconds);
  const RegimeMapConfig given = parse({"--map-sizes", "32,16", "--map-batches", "20,3", "--map-cell-seconds", "2"});
  EXPECT_EQ(given.sizes, (std::vector<int>{16, 32}));
  EXPECT_EQ(given.batches, (std::vector<int>{3, 20}));
  EXPECT_EQ(given.cell_seconds, 2);
  EXPECT_EQ(parse({"--map-sizes", "8,8192", "--map-batches", "1,1000000"}).sizes, (std::vector<int>{8, 8192}));
}

std::string refusal(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(accepted)";
}

struct Refused {
  std::vector<std::string> args;
  std::string must_mention;
};

class RegimeMapRefusals : public ::testing::TestWithParam<Refused> {};

TEST_P(RegimeMapRefusals, NameTheFlagAndWhatItAccepts) {
  EXPECT_THAT(refusal(GetParam().args), HasSubstr(GetParam().must_mention));
}

INSTANTIATE_TEST_SUITE_P(
    Each, RegimeMapRefusals,
    ::testing::Values(
        Refused{{"--map-sizes", "7"}, "--map-sizes takes an integer in [8, 8192], got 7"},
        Refused{{"--map-sizes", "32,8193"}, "--map-sizes takes an integer in [8, 8192], got 8193"},
        Refused{{"--map-sizes", "32,,64"}, "--map-sizes takes a comma-separated list"},
        Refused{{"--map-sizes", "32x"}, "--map-sizes takes an integer"},
        Refused{{"--map-sizes", "64,32,64"}, "--map-sizes lists 64 twice"},
        Refused{{"--map-batches", "0"}, "--map-batches takes an integer in [1, 1000000], got 0"},
        Refused{{"--map-batches", "1000001"}, "--map-batches takes an integer in [1, 1000000]"},
        Refused{{"--map-batches", "10,10"}, "--map-batches lists 10 twice"},
        Refused{{"--map-cell-seconds", "0"}, "--map-cell-seconds takes an integer in [1, 3600]"},
        // The map chooses its own shapes and batch counts, and measures pinned memory only.
        Refused{{"--m", "64"}, "unknown option '--m'"}, Refused{{"--batches", "64"}, "unknown option '--batches'"}),
    [](const ::testing::TestParamInfo<Refused>& param_info) {
      return testing::words_name(param_info.index, param_info.param.args);
    });

}  // namespace cpu_regime_map
}  // namespace csg::graphs
