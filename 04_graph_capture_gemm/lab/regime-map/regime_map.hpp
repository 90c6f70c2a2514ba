// The regime-map subcommand: where graphs win on the article's own work.
// Its options, the estimate that decides which cells run, the winner rule,
// the crossover, the printed map and its JSON are plain arithmetic on the
// figures (the CPU tests feed every branch with made-up cells);
// regime_map_cells.cpp measures them.
//
// A cell is one GEMM size (m = n = k) at one batch count: the article's work
// (H2D, GEMM, D2H per batch, batch i on pool stream i % pool, fork/join) on
// the stream pool and as one graph replay. The winner is the variant with
// less GPU time, "tie" within kEqualWithin (3%, report/conclusions.hpp).
//
// Each cell is timed on the stream pool and as one replay of a graph
// captured from it, in interleaved rounds
// (measure_rounds) with the one-stream sums of its bound:
//   graph replay   GPU time of one cudaGraphLaunch (events on pool stream 0),
//                  and the host's time of that call, read in the same runs
//   stream pool    GPU time of fork, 3 x batches calls and join, and the
//                  host's time to issue them, read in the same runs
//   sums           every H2D, every kernel, every D2H alone on pool stream 0
// Both variants poison the outputs before every run and are verified (every
// batch) after their last. The article's calls (graph_steps.hpp) come in as
// callbacks: this file only times them, and the tests can hand it broken ones.
//
// Before anything is measured, each size's rates (measure_rates) give every
// cell's estimate; a cell whose pinned host memory and device slots don't
// fit, or whose timed rounds would exceed --map-cell-seconds, is skipped
// and says why. The whole map's estimate is the subcommand's, so a map
// estimated over --max-minutes is refused (exit 2) before any cell runs.
// Napkin math for the default map on an H200 (naive GEMM ~6 TFLOP/s, PCIe
// ~55 GB/s each way, 2 + 10 rounds of replay + pool + sums per cell):
//   1024^3: 0.36 ms of kernel per batch, 1.2 ms per batch a round
//           -> 100 batches 1.5 s, 1000 batches 15 s: skipped at 10 s
//   512^3:  45 us of kernel per batch -> 1000 batches 2.1 s, 10000 21 s: skipped
//   256^3 and smaller: ~4 us per operation, launch-bound -> 10000 batches 4-5 s
// About 25 s of GPU time, and as much again on the host (pinning up to 5 GiB,
// filling, poisoning, verifying): about a minute in all.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "batches.hpp"
#include "cuda/graph.hpp"
#include "cuda/stream_pool.hpp"
#include "experiment/report.hpp"
#include "measure/pipeline_bound.hpp"
#include "measure/stage_sums.hpp"
#include "report/conclusions.hpp"
#include "workload/gemm.hpp"

namespace csg::graphs {

// ---- the options ------------------------------------------------------------

inline constexpr int kMinMapSize = 8;
inline constexpr int kMaxMapSize = 8192;
inline constexpr int kMaxMapBatches = 1000000;
// 10 s of timed rounds per cell: at the stage's 2 + 10 rounds, every default
// cell up to 256^3 x 10000 batches (about 5 s) and 1024^3 x 100 (1.5 s) runs;
// 1024^3 x 1000 (about 15 s) and 512^3 x 10000 (about 21 s) are skipped.
inline constexpr int kDefaultMapCellSeconds = 10;
inline constexpr int kMaxMapCellSeconds = 3600;

struct RegimeMapConfig {
  std::vector<int> sizes{32, 64, 128, 256, 512, 1024};  // ascending, no repeats
  std::vector<int> batches{10, 100, 1000, 10000};      // ascending, no repeats
  int cell_seconds = kDefaultMapCellSeconds;
};

// --map-sizes, --map-batches, --map-cell-seconds.
void add_regime_map_options(StageCli& cli);

// After cli.parse(). The lists are sorted; refused (UsageError, exit 2): an
// item out of range (sizes [8, 8192], batches [1, 1000000]) or given twice.
RegimeMapConfig read_regime_map_options(const StageCli& cli);

// ---- which cells run ----------------------------------------------------------

// What a cell will cost, at this GPU's rates (measure_rates at the cell's
// size) and the napkin figures in regime_map_report.cpp for what the rates
// don't cover (per-operation latency, pinning, host memsets, capture).
struct CellEstimate {
  double timed_seconds = 0.0;  // every round (warm-up + timed) of the four variants: GPU time
  double host_seconds = 0.0;   // allocating, filling, poisoning, verifying, capture + instantiate
  double total() const { return timed_seconds + host_seconds; }
};
CellEstimate estimate_cell(const Workload& work, const Rates& rates, const RepeatPlan& plan);

enum class SkipKind { memory, time };

struct CellSkip {
  SkipKind kind = SkipKind::time;
  std::string reason;  // "estimated 14.7 s of timed runs, over the 10 s per cell (--map-cell-seconds)"
};

// Memory first (a cell that can't be allocated runs at no budget), then the
// budget: timed rounds estimated above `budget_seconds`. Nothing: the cell runs.
std::optional<CellSkip> skip_for(double timed_seconds, int budget_seconds,
                                 const std::optional<std::string>& memory_problem);

// ---- the measured map ---------------------------------------------------------

struct MapCell {
  int m = 0;  // m = n = k
  int batches = 0;
  CellEstimate estimate;
  std::optional<CellSkip> skipped;  // set: not measured, every figure below is empty
  Summary stream_pool;              // GPU time, events on pool stream 0 around fork ... join
  Summary graph_replay;             // GPU time of one cudaGraphLaunch of the same work
  Summary stream_issue;             // host time to issue fork + 3 x batches operations + join (the pool's runs)
  Summary graph_issue;              // host time of the cudaGraphLaunch call (the replays' runs)
  StageSums sums;                   // every H2D, kernel, D2H alone on one stream
  VerifyResult stream_check;        // every batch, after the pool's last timed run
  VerifyResult graph_check;         // every batch, after the last replay

  bool measured() const { return !skipped.has_value(); }
  bool verified() const { return measured() && stream_check.passed && graph_check.passed; }
};

// Graph replay against the stream pool, GPU time: "graph" when the replay
// took less than stream_ms x (1 - equal_within), "streams" when more than
// stream_ms x (1 + equal_within), else "tie" (compare_times).
enum class MapWinner { graph, streams, tie };
MapWinner map_winner(double graph_ms, double stream_ms, double equal_within = kEqualWithin);
std::string_view to_string(MapWinner winner);
MapWinner winner_of(const MapCell& cell, double equal_within = kEqualWithin);  // measured cells only

// The bound of the pool's % of bound: the one-stream bound, the simplest
// honest one. Each of H2D, kernels and D2H summed over every batch alone on
// ONE stream (the cell's StageSums); the bound is the largest of the three
// plus the fill (the other kinds' share of one batch, before the first and
// after the last), as pipeline_bound.hpp computes it with only those three
// paths (no both-ways copy path, no host-issue path). Where the pool's
// kernels of several streams run side by side (small GEMMs leave most SMs
// idle) the pool can beat it: above 100% means the pool did better than one
// stream's resources could, not that the bound is wrong.
PipelineBound one_stream_bound(const StageSums& sums, int batches);
double pool_percent_of_bound(const MapCell& cell);  // 100 x bound / pool median

// A measured cell whose replay or pool has a median more than kNoisySpread
// times its fastest run: more than half its runs were slow, so its winner may
// be the noise's (a cell of 0.1 ms took 0.34 ms in most of its replays and
// 0.13 in its fastest). Such a cell is marked, and listed under the map.
inline constexpr double kNoisySpread = 1.5;
bool noisy(const MapCell& cell);  // false for a skipped cell

// The map's cell as printed: "graph -12%" (the replay took 12% less GPU time
// than the pool), "streams +3%" (3% more), "tie", "skipped (time)",
// "skipped (memory)"; " (noisy)" after a noisy cell's. ASCII signs, so the
// table printer's columns line up.
std::string cell_text(const MapCell& cell, double equal_within = kEqualWithin);

struct RegimeMap {
  RegimeMapConfig config;
  RepeatPlan plan;
  int streams = 8;
  std::string device_buffers = "slots";
  double equal_within = kEqualWithin;
  double estimated_seconds = 0.0;  // the whole map, printed before it starts
  std::vector<MapCell> cells;      // sizes outer, batch counts inner, in the config's order

  const MapCell* find(int m, int batches) const;
};

// Where the graph starts to win, row by row.
struct RowCrossover {
  int m = 0;
  int measured = 0;                    // cells of the row measured
  std::optional<int> first_graph_win;  // the smallest batch count where the graph wins
  // The measured batch counts above it where it does not win, with who did.
  std::vector<std::pair<int, MapWinner>> not_won_above;
  bool wins_from_there_on() const { return first_graph_win && not_won_above.empty(); }
};
std::vector<RowCrossover> crossovers(const RegimeMap& map);
// "regime_map.crossover.<m>": where the graph starts to win in the row of
// size m: "from_there_on" ("256^3: the graph wins from 1000 batches on"),
// "every_count", "only_largest", "not_every_larger" ("32^3: the graph wins
// first at 100 batches, but not at every larger count (1000: tie)"),
// "never" or "no_cell_measured". Printed under the map.
Verdict crossover_verdict(const RowCrossover& row, const RegimeMap& map);

// "regime_map.cell.<m>x<batches>": a measured cell's winner ("graph",
// "streams", "tie"), its figures, and cell_text as its sentence. Carried in
// the JSON, not printed line by line: the map's table shows each cell's text.
Verdict cell_verdict(const MapCell& cell, double equal_within = kEqualWithin);

// ---- the report -------------------------------------------------------------

struct RegimeMapOptions {
  ArticleOptions article;  // the pool's flags and the kernel; no workload of its own
  RegimeMapConfig map;
};

// The map (rows sizes, columns batch counts), the skipped and noisy cells,
// the crossover row by row (its verdicts), every measured cell's figures;
// config "mode": "regime_map" with batches, m, n, k null (the map has its
// own); no measurements (the cells are in the section); the verification
// over every measured cell; each measured cell's verdict; and
// "regime_map": {"sizes", "batches", "streams", "device_buffers", "host_memory",
//   "warmup", "repeats", "cell_seconds", "equal_within", "bound" (which bound,
//   in words), "estimated_seconds" (the whole map),
//   "cells": [{"m", "n", "k", "batches", "stream_ms", "graph_ms" (GPU medians),
//     "stream_issue_ms", "graph_issue_ms" (host medians), "pool_percent_of_bound",
//     "winner" ("graph", "streams", "tie"), "skipped_reason", "verified", "text"
//     (as printed), "noisy", "estimated_seconds" (its timed rounds),
//     "estimated_host_seconds"; measured cells also "graph_over_streams",
//     "stream_min_ms", "graph_min_ms", "stream_p95_ms", "graph_p95_ms",
//     "samples", "bound_ms", "limited_by", "h2d_sum_ms", "kernel_sum_ms",
//     "d2h_sum_ms", and "failure" where a check failed; skipped cells
//     "skipped_because" ("time", "memory") and null figures, winner and verified}],
//   "crossover": [{"m", "first_graph_win_batches" (null: never),
//     "graph_wins_from_there_on", "measured_cells", "text"}]}.
void report_regime_map(const RegimeMapOptions& options, const RegimeMap& map, Report& report);

// ---- the measurement ----------------------------------------------------------

// The pool and the article's calls.
struct RegimeMapSteps {
  const StreamPool* pool = nullptr;  // the article's streams; timers, sums and launches on pool stream 0
  PoolConfig pool_config;            // --streams and --device-buffers: device_slots_for gives each cell's slots
  // Batch i's H2D, compute and D2H on any buffers.
  std::function<BatchOps(BatchBuffers&)> ops_for;
  // Steps 1-5a with the join: begin capture, fork, the per-batch work of
  // batches 0 .. batches-1 of the buffers, join, end capture.
  CaptureWork capture;
  std::function<GraphExec(const Graph&)> instantiate;  // step 5b
  std::function<void(const GraphExec&)> launch;        // step 6, on pool stream 0
  // Stage 03's loop on the pool: fork, every batch's three calls, join.
  std::function<void(const BatchOps&, int batches)> issue_on_streams;
  // This GPU's rates for the estimate: measure_rates(gemm, shape).
  std::function<Rates(GemmShape)> rates;
};

// Plans every cell before any runs, from this GPU's rates at each size
// (`rates_at`): its estimate, and whether it is skipped (its pinned host
// memory and device slots don't fit, or its timed rounds would exceed
// --map-cell-seconds) and why; the map's whole estimate. Issues no GEMM work.
RegimeMap plan_regime_map(const RegimeMapConfig& config, const CommonOptions& options, const PoolConfig& pool,
                          const std::function<Rates(GemmShape)>& rates_at);
// "regime map: 6 sizes x 4 batch counts = 24 cells, 21 to measure, ...; estimated 61 s (...)".
std::string plan_text(const RegimeMap& map);
// Measures the cells the plan runs, one at a time, each in its own buffers
// (allocated, filled, freed), with a progress line per cell ("cell 7 of 24:
// 256³ × 1000 batches") and an interrupt check between cells. A failed
// verification is recorded in its cell, not thrown; CudaError, Interrupted are.
void measure_cells(RegimeMap& map, std::uint64_t seed, const RegimeMapSteps& steps);
// Both, with the options' plan and seed.
RegimeMap measure_regime_map(const RegimeMapConfig& config, const CommonOptions& options,
                             const RegimeMapSteps& steps);

// The steps as the laboratory binds them: graph_steps.hpp's calls on `pool`
// with `gemm`, each cell's device slots as `pool_config` lays them out.
RegimeMapSteps regime_map_steps(const StreamPool& pool, const PoolConfig& pool_config, const Gemm& gemm);

}  // namespace csg::graphs
