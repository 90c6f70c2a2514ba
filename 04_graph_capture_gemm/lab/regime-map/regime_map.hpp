// The regime-map subcommand (kAbout in regime_map.cpp says what it
// measures). Its options, the plan of which cells run, the winner rule, the
// crossover, the printed map and its JSON are plain arithmetic on the figures
// (the CPU tests feed every branch with made-up cells).
//
// Each cell is timed on the stream pool and as one replay of a graph
// captured from it, in interleaved rounds with the runs of the pool's bound
// (measure_cell), each verified after its last run. The article's calls
// (graph_steps.hpp) come in as callbacks: the tests can hand it broken ones.
// The default map takes under two minutes on an H200: kDefaultMapCellSeconds
// says which cells it skips, estimate_cell what the others cost.
#pragma once

#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "experiment/lab.hpp"
#include "measure/stage_sums.hpp"

namespace csg::graphs {

// ---- the options ------------------------------------------------------------

inline constexpr int kMinMapSize = 8;
inline constexpr int kMaxMapSize = 8192;
inline constexpr int kMaxMapBatches = 1000000;
// 15 s of timed rounds per cell: at the stage's 2 + 10 rounds, every default
// cell up to 256^3 x 10000 batches (about 7 s) and 1024^3 x 100 (2.3 s) runs;
// 1024^3 x 1000 (about 23 s) and 512^3 x 10000 (about 34 s) are skipped.
inline constexpr int kDefaultMapCellSeconds = 15;
inline constexpr int kMaxMapCellSeconds = 3600;

struct RegimeMapConfig {
  std::vector<int> sizes{32, 64, 128, 256, 512, 1024};  // ascending, no repeats
  std::vector<int> batches{10, 100, 1000, 10000};      // ascending, no repeats
  int cell_seconds = kDefaultMapCellSeconds;
};

void add_regime_map_options(StageCli& cli);
// The lists sorted; UsageError for an item given twice.
RegimeMapConfig read_regime_map_options(const StageCli& cli);

// ---- which cells run ----------------------------------------------------------

// What a cell will cost on a pool of `streams`, at this GPU's rates at the
// cell's size and the napkin figures in regime_map.cpp for what the rates
// don't cover.
struct CellEstimate {
  double timed_seconds = 0.0;  // every round (warm-up + timed) of the four variants: GPU time
  double host_seconds = 0.0;   // allocating, filling, poisoning, verifying, capture + instantiate
  double total() const { return timed_seconds + host_seconds; }
};
CellEstimate estimate_cell(const Workload& work, const Rates& rates, const RepeatPlan& plan, int streams);

enum class SkipKind { memory, time };

struct CellSkip {
  SkipKind kind = SkipKind::time;
  std::string reason;  // "estimated 14.7 s of timed runs, over the 10 s per cell (--map-cell-seconds)"
};

// Memory first (a cell that can't be allocated runs at no budget), then the
// timed rounds against `budget_seconds`. Nothing: the cell runs.
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
  Summary stream_issue;             // host time to issue the pool's run, in its runs
  Summary graph_issue;              // host time of the cudaGraphLaunch call, in the replays' runs
  StageSums sums;                   // every H2D, kernel, D2H alone on one stream, and batch 0's three ops
  std::vector<Summary> alone;       // kernels, H2D, D2H, both ways: each alone, issued as the pool's run is
  Summary busiest_stream;           // the busiest stream's batches alone on one stream
  VerifyResult stream_check;
  VerifyResult graph_check;

  bool measured() const { return !skipped.has_value(); }
  bool verified() const { return measured() && stream_check.passed && graph_check.passed; }
};

// Graph replay against the stream pool, GPU time (compare_times).
enum class MapWinner { graph, streams, tie };
MapWinner map_winner(double graph_ms, double stream_ms, double equal_within = kEqualWithin);
std::string_view to_string(MapWinner winner);

// The pool's bound in a cell at the pool's `streams`, as stage 03's lesson
// takes it (kPoolBound in regime_map.cpp lists its paths). Where the host's
// issue paces the pool (tiny GEMMs) the bound says so: its path is "host issue".
PipelineBound pool_bound(const MapCell& cell, int streams);
double pool_percent_of_bound(const MapCell& cell, int streams);  // 100 x bound / pool median
double pool_bound_tolerance(const MapCell& cell, int streams);   // the noise it is allowed (tolerance_of)

// A measured cell whose replay or pool has a median more than kNoisySpread
// times its fastest run: more than half its runs were slow, so its winner may
// be the noise's (a cell of 0.1 ms took 0.34 ms in most of its replays and
// 0.13 in its fastest). Such a cell is marked, and listed under the map.
inline constexpr double kNoisySpread = 1.5;
bool noisy(const MapCell& cell);  // false for a skipped cell

// "graph -12%" (the replay took 12% less GPU time than the pool), "streams
// +3%", "tie", "skipped (time)", "skipped (memory)"; " (noisy)" after a noisy cell's.
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
  std::vector<int> measured;           // the batch counts of its measured cells, ascending
  std::optional<int> first_graph_win;  // the smallest batch count where the graph wins
  // The measured batch counts above it where it does not win, with who did.
  std::vector<std::pair<int, MapWinner>> not_won_above;
  bool wins_from_there_on() const { return first_graph_win && not_won_above.empty(); }
};
std::vector<RowCrossover> crossovers(const RegimeMap& map);
// "regime_map.crossover.<m>": where the graph starts to win in the row of size m.
Verdict crossover_verdict(const RowCrossover& row, const RegimeMap& map);
// "regime_map.cell.<m>x<batches>": a measured cell's winner, cell_text its sentence.
Verdict cell_verdict(const MapCell& cell, double equal_within = kEqualWithin);
// "regime_map.bound.<m>x<batches>": how close the pool came to its bound in a
// measured cell: "within_bound", "faster_than_bound" (above 100% by more
// than pool_bound_tolerance: the bound is wrong) or "well_below_bound"
// (under kLooseBound of it: bound_gap_text says which path is missing).
Verdict cell_bound_verdict(const MapCell& cell, int streams);

// ---- the report -------------------------------------------------------------

struct RegimeMapOptions {
  ArticleOptions article;  // the pool's flags and the kernel; no workload of its own
  RegimeMapConfig map;
};

// No measurements: the cells are in the "regime_map" section.
void report_regime_map(const RegimeMapOptions& options, const RegimeMap& map, Report& report);

// ---- the measurement ----------------------------------------------------------

// The pool and the article's calls.
struct RegimeMapSteps : GraphCalls {
  const StreamPool* pool = nullptr;  // the article's streams; timers, sums and launches on pool stream 0
  PoolConfig pool_config;            // --streams and --device-buffers: device_slots_for gives each cell's slots
  std::function<BatchOps(BatchBuffers&)> ops_for;                      // batch i's H2D, compute and D2H on any buffers
  std::function<void(const BatchOps&, int batches)> issue_on_streams;  // stage 03's loop
  std::function<Rates(GemmShape)> rates;                               // this GPU's rates for the estimate
};

// Every cell's estimate and whether it is skipped and why, from this GPU's
// rates at each size; the map's whole estimate. Issues no GEMM work.
RegimeMap plan_regime_map(const RegimeMapConfig& config, const CommonOptions& options, const PoolConfig& pool,
                          const std::function<Rates(GemmShape)>& rates_at);
// "regime map: 6 sizes x 4 batch counts = 24 cells, 21 to measure, ...; estimated 61 s (...)".
std::string plan_text(const RegimeMap& map);
// The plan's cells measured, one at a time, each in its own buffers. A failed
// verification is recorded in its cell, not thrown; CudaError, Interrupted are.
RegimeMap measure_regime_map(const RegimeMapConfig& config, const CommonOptions& options,
                             const RegimeMapSteps& steps);

// The steps as the laboratory binds them: graph_steps.hpp's calls on `pool`
// with `gemm`, each cell's device slots as `pool_config` lays them out.
RegimeMapSteps regime_map_steps(const StreamPool& pool, const PoolConfig& pool_config, const Gemm& gemm);

}  // namespace csg::graphs
