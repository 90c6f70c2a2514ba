#include "04_graph_capture_gemm/lab/regime-map/regime_map.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_costs.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
regime-map: GEMM sizes x batch counts, the pool vs one replay: where the graph wins

The stream pool against one graph replay of the same work over GEMM sizes (m = n = k) x batch
counts, pinned memory, each cell verified: where the graph starts to win.
)";

constexpr const char* kRuns = R"(
# where the graph starts to win, 2 sizes x 3 batch counts: regime map section, regime_map_*.png
q  -     --map-sizes 64,512 --map-batches 10,100,300 --warmup 1 --repeats 3
# ... the whole map, 6 sizes x 4 batch counts (--full)
c  -     --map-sizes 64,512 --map-batches 10,100,1000
f  -
t  tiny  --map-sizes 16,32 --map-batches 3,20 --warmup 0 --repeats 1
m  -     --map-sizes 16 --map-batches 3 --streams 2 --warmup 0 --repeats 1
)";

constexpr const char* kPoolBound =
    "the pool's pipeline bound (pipeline_bound.hpp), as stage 03's lesson and costs take it: the longest of each "
    "resource's work alone (kernels, H2D, D2H, both ways) issued on the pool as its run is, the host's issue of "
    "the pool's run, the stream order and the busiest stream's batches alone on one stream";

// The flag's list, no item twice, sorted.
std::vector<int> sorted_list(const StageCli& cli, const char* flag, long long min_value, long long max_value) {
  const std::vector<long long> values = parse_distinct_int_list(flag, cli.get_string(flag), min_value, max_value);
  std::vector<int> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

std::string size_label(int m) { return std::to_string(m) + "^3"; }

std::string cell_label(const MapCell& cell) { return size_label(cell.m) + " x " + plural(cell.batches, "batch"); }

std::string join_counts(const std::vector<int>& counts) {
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(counts[i]);
  return text;
}

double spread_of(const Summary& s) { return s.min_ms > 0.0 ? s.median_ms / s.min_ms : 1.0; }

MapWinner winner_of(const MapCell& cell, double equal_within) {
  return map_winner(cell.graph_replay.median_ms, cell.stream_pool.median_ms, equal_within);
}

BoundRuns bound_runs(const MapCell& cell) {
  return {cell.alone, cell.sums, &cell.stream_issue, &cell.busiest_stream};
}

// ---- the declaration ------------------------------------------------------------

void options(StageCli& cli) {
  add_regime_map_options(cli);
  add_kernel_article_options(cli);
}

RegimeMapOptions read(const StageCli& cli, CommonOptions& common) {
  const RegimeMapConfig map = read_regime_map_options(cli);
  common.work.shape = GemmShape{map.sizes.back(), map.sizes.back(), map.sizes.back()};  // against the kernel's grid
  return {read_kernel_article_options(cli, common), map};
}

// Every cell planned from this GPU's rates at its size: which run, which are
// skipped and why, and the whole map's time; measure plans them again (a
// few milliseconds a size) rather than carry the plan across.
Estimate estimate(const RegimeMapOptions& options, int) {
  for (const std::string& warning : options.article.pool.warnings) std::cerr << warning << '\n';
  auto rates_at = [&options](GemmShape shape) { return measure_rates(Gemm(options.article.common.gemm), shape); };
  const RegimeMap map = plan_regime_map(options.map, options.article.common, options.article.pool, rates_at);
  return {map.estimated_seconds, plan_text(map)};
}

RegimeMap measure(const RegimeMapOptions& options) {
  const Gemm gemm(options.article.common.gemm);
  const StreamPool pool(options.article.pool.streams);
  prepare_pool(gemm, pool);
  return measure_regime_map(options.map, options.article.common, regime_map_steps(pool, options.article.pool, gemm));
}

// The map chooses its shapes (--map-sizes) and batch counts (--map-batches);
// pinned only: without it copies don't overlap, and the map would show the
// staging buffer, not streams against graphs.
CommonDefaults defaults() {
  CommonDefaults d = own_workload_defaults();
  d.host_memory_choice = false;
  return d;
}

const Experiment<RegimeMapOptions, RegimeMap> kExperiment{.about = kAbout, .runs = kRuns, .defaults = defaults(),
    .options = options, .read = read, .estimate = estimate, .measure = measure, .report = report_regime_map};

}  // namespace

// ---- the options ------------------------------------------------------------

void add_regime_map_options(StageCli& cli) {
  cli.add_text("map-sizes", "m = n = k of each row, comma-separated, in [" + std::to_string(kMinMapSize) + ", " +
                                std::to_string(kMaxMapSize) + "]",
               "32,64,128,256,512,1024", "LIST");
  cli.add_text("map-batches", "The batch counts, the columns, comma-separated, in [1, " +
                                  std::to_string(kMaxMapBatches) + "]",
               "10,100,1000,10000", "LIST");
  cli.add_int("map-cell-seconds",
              "Skip a cell whose timed rounds are estimated to take longer (GPU time at this GPU's measured rates)",
              kDefaultMapCellSeconds, 1, kMaxMapCellSeconds);
}

RegimeMapConfig read_regime_map_options(const StageCli& cli) {
  RegimeMapConfig config;
  config.sizes = sorted_list(cli, "map-sizes", kMinMapSize, kMaxMapSize);
  config.batches = sorted_list(cli, "map-batches", 1, kMaxMapBatches);
  config.cell_seconds = static_cast<int>(cli.get_int("map-cell-seconds"));
  return config;
}

// ---- the measured map ---------------------------------------------------------

MapWinner map_winner(double graph_ms, double stream_ms, double equal_within) {
  return by_comparison(compare_times(graph_ms, stream_ms, equal_within), MapWinner::graph, MapWinner::tie,
                       MapWinner::streams);
}

std::string_view to_string(MapWinner winner) { return name_of(winner, {"graph", "streams", "tie"}); }

PipelineBound pool_bound(const MapCell& cell, int streams) {
  return bound_of(bound_runs(cell), cell.batches, streams);
}

double pool_percent_of_bound(const MapCell& cell, int streams) {
  return percent_of_bound(pool_bound(cell, streams), cell.stream_pool.median_ms);
}

double pool_bound_tolerance(const MapCell& cell, int streams) {
  return tolerance_of(pool_bound(cell, streams), cell.stream_pool, bound_runs(cell));
}

bool noisy(const MapCell& cell) {
  return cell.measured() && std::max(spread_of(cell.graph_replay), spread_of(cell.stream_pool)) > kNoisySpread;
}

std::string cell_text(const MapCell& cell, double equal_within) {
  if (!cell.measured()) return cell.skipped->kind == SkipKind::memory ? "skipped (memory)" : "skipped (time)";
  const std::string mark = noisy(cell) ? " (noisy)" : "";
  const MapWinner winner = winner_of(cell, equal_within);
  if (winner == MapWinner::tie || cell.stream_pool.median_ms <= 0.0) return "tie" + mark;
  const double percent = std::round(100.0 * (cell.graph_replay.median_ms / cell.stream_pool.median_ms - 1.0));
  char text[32];
  std::snprintf(text, sizeof text, "%s %+.0f%%", std::string(to_string(winner)).c_str(), percent);
  return text + mark;
}

const MapCell* RegimeMap::find(int m, int batch_count) const {
  for (const MapCell& cell : cells) {
    if (cell.m == m && cell.batches == batch_count) return &cell;
  }
  return nullptr;
}

std::vector<RowCrossover> crossovers(const RegimeMap& map) {
  std::vector<RowCrossover> rows;
  for (const int m : map.config.sizes) {
    RowCrossover row;
    row.m = m;
    for (const int batch_count : map.config.batches) {
      const MapCell* cell = map.find(m, batch_count);
      if (cell == nullptr || !cell->measured()) continue;
      row.measured.push_back(batch_count);
      const MapWinner winner = winner_of(*cell, map.equal_within);
      if (!row.first_graph_win) {
        if (winner == MapWinner::graph) row.first_graph_win = batch_count;
      } else if (winner != MapWinner::graph) {
        row.not_won_above.emplace_back(batch_count, winner);
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// ---- the verdicts -------------------------------------------------------------

Verdict cell_verdict(const MapCell& cell, double equal_within) {
  return {.id = "regime_map.cell." + std::to_string(cell.m) + "x" + std::to_string(cell.batches),
          .outcome = std::string(to_string(winner_of(cell, equal_within))),
          .figures = {{"m", cell.m}, {"batches", cell.batches}, {"graph_ms", cell.graph_replay.median_ms},
                      {"stream_ms", cell.stream_pool.median_ms}, {"noisy", noisy(cell)}},
          .threshold = {{"equal_within", equal_within}, {"noisy_spread", kNoisySpread}},
          .sentence = cell_label(cell) + ": " + cell_text(cell, equal_within)};
}

Verdict cell_bound_verdict(const MapCell& cell, int streams) {
  const PipelineBound bound = pool_bound(cell, streams);
  const double percent = percent_of_bound(bound, cell.stream_pool.median_ms);
  const double tolerance = pool_bound_tolerance(cell, streams);
  const std::string path(to_string(bound.limited_by));
  Verdict verdict{.id = "regime_map.bound." + std::to_string(cell.m) + "x" + std::to_string(cell.batches),
                  .figures = {{"m", cell.m}, {"batches", cell.batches}, {"stream_ms", cell.stream_pool.median_ms},
                              {"bound_ms", bound.bound_ms}, {"percent_of_bound", percent}, {"limited_by", path}},
                  .threshold = {{"tolerance", tolerance}, {"loose_below", kLooseBound}}};
  const std::string label = cell_label(cell) + ": ";
  if (percent > 100.0 * (1.0 + tolerance)) {
    return decided(verdict, "faster_than_bound",
                   label + "the pool reached " + fixed(percent, 1) + "% of its bound (" + path + ", " +
                       fixed(bound.bound_ms, 3) + " ms): FASTER THAN ITS BOUND, the bound is wrong");
  }
  const std::string gap = bound_gap_text("the pool", cell.stream_pool.median_ms, bound);
  if (!gap.empty()) return decided(verdict, "well_below_bound", label + gap);
  return decided(verdict, "within_bound",
                 label + "the pool reached " + fixed(percent, 1) + "% of its bound, which " + path + " sets");
}

Verdict crossover_verdict(const RowCrossover& row, const RegimeMap& map) {
  const std::vector<int>& measured = row.measured;
  Verdict verdict{.id = "regime_map.crossover." + std::to_string(row.m),
                  .figures = {{"m", row.m},
                              {"measured_batches", measured},
                              {"first_graph_win_batches",
                               row.first_graph_win ? nlohmann::json(*row.first_graph_win) : nlohmann::json()}},
                  .threshold = map.equal_within};
  const std::string row_text = "  " + size_label(row.m) + ": ";
  if (measured.empty()) {
    return decided(verdict, "no_cell_measured", row_text + "no cell measured (every batch count skipped)");
  }
  if (!row.first_graph_win) {
    return decided(verdict, "never",
                   row_text + "graph never wins here (streams or a tie at " + join_counts(measured) + " batches)");
  }
  const int first = *row.first_graph_win;
  if (!row.wins_from_there_on()) {
    std::string exceptions;
    for (const auto& [batch_count, winner] : row.not_won_above) {
      exceptions += (exceptions.empty() ? "" : ", ") + std::to_string(batch_count) + ": " +
                    std::string(to_string(winner));
    }
    return decided(verdict, "not_every_larger",
                   row_text + "the graph wins first at " + plural(first, "batch") +
                       ", but not at every larger count (" + exceptions + ")");
  }
  if (first == measured.front() && measured.size() > 1) {
    return decided(verdict, "every_count",
                   row_text + "the graph wins at every batch count measured (" + join_counts(measured) + ")");
  }
  if (first == measured.back()) {
    return decided(verdict, "only_largest",
                   row_text + "the graph wins only at " + plural(first, "batch") + ", the largest count measured");
  }
  return decided(
      verdict, "from_there_on",
      row_text + "the graph wins from " + plural(first, "batch") + " on (at every larger count measured too)");
}

// ---- the report -------------------------------------------------------------

void report_regime_map(const RegimeMapOptions& options, const RegimeMap& map, Report& report) {
  StageResult& result = report.result;
  result.config = config_json(options.article.common);
  for (const char* key : {"batches", "m", "n", "k"}) result.config[key] = nullptr;  // the map's own: regime_map
  result.config.update({{"mode", "regime_map"}, {"streams", map.streams}, {"device_buffers", map.device_buffers},
                        {"map_sizes", map.config.sizes}, {"map_batches", map.config.batches},
                        {"map_cell_seconds", map.config.cell_seconds}});

  std::vector<const MapCell*> measured_cells;
  for (const MapCell& cell : map.cells) {
    if (cell.measured()) measured_cells.push_back(&cell);
  }
  // The verification: the first failed check, else every measured cell's batches.
  VerifyResult verification;
  verification.passed = true;
  int batches_checked = 0;
  for (const MapCell* cell : measured_cells) {
    batches_checked += cell->batches;
    for (const auto& [check, variant] : {std::pair{&cell->graph_check, "graph replay"},
                                         std::pair{&cell->stream_check, "stream pool"}}) {
      if (check->passed) {
        ++result.variants_verified;
      } else if (verification.passed) {
        verification = *check;
        verification.method = check->method + "; in cell " + cell_label(*cell) + ", " + variant;
      }
    }
    if (verification.passed) verification.method = cell->graph_check.method;
  }
  if (verification.passed) {
    verification.batches_checked = batches_checked;
    if (measured_cells.empty()) verification.method = "no cell measured: nothing to verify";
  }
  verification.digest.reset();  // one digest per workload; the map has many
  result.verification = verification;

  std::ostream& out = report.out();
  out << "the stream pool (" << plural(map.streams, "stream") << ", fork/join) against one graph replay of the same "
      << "work: H2D, " << result.config.value("kernel", std::string("naive"))
      << " GEMM (m = n = k), D2H per batch, pinned host memory, device buffers: " << map.device_buffers
      << "; GPU time, median of " << plural(map.plan.repeats, "run") << " after " << map.plan.warmup
      << " warm-up per cell.\neach cell: the winner and the replay's time against the pool's (graph -12%: 12% less); "
         "within "
      << percent_text(map.equal_within) << ": tie\n\n";
  std::vector<Column<int>> columns = {{"m=n=k \\ batches", [](int m) { return std::to_string(m); }}};
  for (const int batch_count : map.config.batches) {
    columns.push_back({std::to_string(batch_count), [&map, batch_count](int m) {
                         const MapCell* cell = map.find(m, batch_count);
                         return cell != nullptr ? cell_text(*cell, map.equal_within) : std::string("-");
                       }});
  }
  report.table(table_of(columns, map.config.sizes));
  for (const MapCell& cell : map.cells) {
    if (!cell.measured()) out << "skipped: " << cell_label(cell) << ": " << cell.skipped->reason << '\n';
  }
  for (const MapCell& cell : map.cells) {
    if (!noisy(cell)) continue;
    out << "noisy: " << cell_label(cell) << ": median / fastest run " << fixed(spread_of(cell.graph_replay), 2)
        << "x for the replay, " << fixed(spread_of(cell.stream_pool), 2) << "x for the pool (more than "
        << fixed(kNoisySpread, 1) << "x: most runs were slow); rerun it (--map-sizes " << cell.m << " --map-batches "
        << cell.batches << ") before reading its winner\n";
  }

  out << "\nwhere the graph starts to win (the smallest batch count where it does, row by row):\n";
  nlohmann::json rows = nlohmann::json::array();
  for (const RowCrossover& row : crossovers(map)) {
    const Verdict& verdict = report.verdict(crossover_verdict(row, map));
    rows.push_back({{"m", row.m},
                    {"first_graph_win_batches",
                     row.first_graph_win ? nlohmann::json(*row.first_graph_win) : nlohmann::json(nullptr)},
                    {"graph_wins_from_there_on", row.wins_from_there_on()},
                    {"measured_cells", row.measured.size()},
                    {"text", verdict.sentence.substr(2)}});  // without the printed indent
  }

  if (!measured_cells.empty()) {
    report.checked_runs("(every measured cell: " + plural(static_cast<long long>(measured_cells.size()), "cell") +
                        ", each checked after the replay's and after the pool's last run, the outputs poisoned "
                        "before every run)");
    out << "\nevery measured cell (GPU time; issue: the host's time to issue the pool's fork, "
           "3 x batches calls and join, or the one cudaGraphLaunch; bound: the pool's pipeline bound, each "
           "resource's\nwork alone issued on the pool as its run is, the host's issue and the busiest stream "
           "(as stage 03's lesson takes it), and the path that sets it):\n";
    const int streams = map.streams;
    using Cell = const MapCell*;
    report.table(table_of<Cell>(
        {{"m", [](Cell c) { return std::to_string(c->m); }},
         {"batches", [](Cell c) { return std::to_string(c->batches); }},
         {"pool ms", [](Cell c) { return fixed(c->stream_pool.median_ms, 3); }},
         {"graph ms", [](Cell c) { return fixed(c->graph_replay.median_ms, 3); }},
         {"graph/pool", [](Cell c) { return fixed(c->graph_replay.median_ms / c->stream_pool.median_ms, 3); }},
         {"pool issue ms", [](Cell c) { return fixed(c->stream_issue.median_ms, 3); }},
         {"graph issue ms", [](Cell c) { return fixed(c->graph_issue.median_ms, 3); }},
         {"pool % of bound", [streams](Cell c) { return fixed(pool_percent_of_bound(*c, streams), 1); }},
         {"bound set by",
          [streams](Cell c) { return std::string(to_string(pool_bound(*c, streams).limited_by)); }},
         {"verified", [](Cell c) { return std::string(c->verified() ? "yes" : "NO"); }}},
        measured_cells));
  }
  for (const MapCell* cell : measured_cells) {
    for (const auto& [check, variant] : {std::pair{&cell->graph_check, "graph replay"},
                                         std::pair{&cell->stream_check, "stream pool"}}) {
      if (!check->passed) out << "cell " << cell_label(*cell) << ", " << variant << ": " << check->message() << '\n';
    }
    // Each cell's winner is a verdict too, shown in the map above rather than line by line; so is its
    // bound, in the table, but for a cell far below its bound or above it, whose sentence is printed.
    result.verdicts.push_back(cell_verdict(*cell, map.equal_within));
    Verdict bound = cell_bound_verdict(*cell, map.streams);
    if (bound.outcome == "within_bound") {
      result.verdicts.push_back(std::move(bound));
    } else {
      report.verdict(std::move(bound));
    }
  }
  if (measured_cells.empty()) out << "no cell measured: every cell was skipped, nothing to verify\n";

  nlohmann::json cells = nlohmann::json::array();
  for (const MapCell& cell : map.cells) {
    nlohmann::json c = {{"m", cell.m},
                        {"n", cell.m},
                        {"k", cell.m},
                        {"batches", cell.batches},
                        {"text", cell_text(cell, map.equal_within)},
                        {"estimated_seconds", cell.estimate.timed_seconds},
                        {"estimated_host_seconds", cell.estimate.host_seconds}};
    if (!cell.measured()) {
      for (const char* figure : {"stream_ms", "graph_ms", "stream_issue_ms", "graph_issue_ms", "pool_percent_of_bound",
                                 "pool_bound_tolerance", "winner", "verified", "noisy"}) {
        c[figure] = nullptr;
      }
      c["skipped_reason"] = cell.skipped->reason;
      c["skipped_because"] = cell.skipped->kind == SkipKind::memory ? "memory" : "time";
    } else {
      const PipelineBound bound = pool_bound(cell, map.streams);
      c.update({{"stream_ms", cell.stream_pool.median_ms},
                {"graph_ms", cell.graph_replay.median_ms},
                {"stream_issue_ms", cell.stream_issue.median_ms},
                {"graph_issue_ms", cell.graph_issue.median_ms},
                {"pool_percent_of_bound", pool_percent_of_bound(cell, map.streams)},
                {"pool_bound_tolerance", pool_bound_tolerance(cell, map.streams)},
                {"winner", std::string(to_string(winner_of(cell, map.equal_within)))},
                {"skipped_reason", nullptr},
                {"verified", cell.verified()},
                {"noisy", noisy(cell)},
                {"graph_over_streams", cell.graph_replay.median_ms / cell.stream_pool.median_ms},
                {"stream_min_ms", cell.stream_pool.min_ms},
                {"graph_min_ms", cell.graph_replay.min_ms},
                {"stream_p95_ms", cell.stream_pool.p95_ms},
                {"graph_p95_ms", cell.graph_replay.p95_ms},
                {"samples", cell.stream_pool.samples},
                {"bound_ms", bound.bound_ms},
                {"limited_by", to_string(bound.limited_by)},
                {"h2d_sum_ms", cell.sums.h2d.median_ms},
                {"kernel_sum_ms", cell.sums.kernel.median_ms},
                {"d2h_sum_ms", cell.sums.d2h.median_ms},
                {"kernels_alone_ms", cell.alone.at(0).median_ms},
                {"h2d_alone_ms", cell.alone.at(1).median_ms},
                {"d2h_alone_ms", cell.alone.at(2).median_ms},
                {"both_ways_alone_ms", cell.alone.at(3).median_ms},
                {"busiest_stream_ms", cell.busiest_stream.median_ms},
                {"stream_order_ms", bound.stream_order_ms}});
      if (!cell.graph_check.passed) c["failure"] = "graph replay: " + cell.graph_check.message();
      if (!cell.stream_check.passed) c["failure"] = "stream pool: " + cell.stream_check.message();
    }
    cells.push_back(std::move(c));
  }
  report.sections["regime_map"] = {{"sizes", map.config.sizes},
                                   {"batches", map.config.batches},
                                   {"streams", map.streams},
                                   {"device_buffers", map.device_buffers},
                                   {"host_memory", "pinned"},
                                   {"warmup", map.plan.warmup},
                                   {"repeats", map.plan.repeats},
                                   {"cell_seconds", map.config.cell_seconds},
                                   {"equal_within", map.equal_within},
                                   {"bound", kPoolBound},
                                   {"estimated_seconds", map.estimated_seconds},
                                   {"cells", cells},
                                   {"crossover", rows}};
}

// ---- the measurement ------------------------------------------------------------

namespace {

// ---- napkin figures for what measure_rates does not cover --------------------
// From figures measured on one H200 box, rounded up, so the
// estimate errs long.
// A launch or a small copy on a stream costs the host about this much, and
// no operation of a stream takes less on the GPU: an empty kernel's launch is
// 3.4-4.1 us, 300 operations are issued in 0.75-1.1 ms. measure_rates times
// 32 MiB copies and one GEMM, so it can't see this floor of tiny work.
constexpr double kSecondsPerOperation = 4e-6;
// cudaMallocHost of 1 GiB: 0.38-0.48 s; freeing it again is cheaper.
constexpr double kPinnedSecondsPerGiB = 0.5;
// Filling, poisoning and verifying host memory, on the host's cores.
constexpr double kHostBytesPerSecond = 10e9;
// fill_inputs starts the host's threads once per batch (about 16 x 20 us).
constexpr double kFillSecondsPerBatch = 3e-4;
// Capture 0.6 ms + instantiate 1.5 ms for 300 nodes: 7 us a node.
constexpr double kSecondsPerGraphNode = 1e-5;
// Host C is poisoned before the replay's run, the pool's run and the D2H sum's pass of every round.
constexpr int kHostPoisonsPerRound = 3;
// The replay and the pool are verified once each, after their last run.
constexpr int kVerifications = 2;

std::string seconds_text(double seconds) { return fixed(seconds, seconds < 100.0 ? 1 : 0) + " s"; }

Workload cell_work(const MapCell& cell) { return Workload{cell.batches, GemmShape{cell.m, cell.m, cell.m}}; }

// What check_fits says about the cell's buffers (pinned host memory for every
// batch, the device slots), or nothing when they fit.
std::optional<std::string> memory_problem(const Workload& work, int slots) {
  try {
    check_fits(memory_needs(work, HostMemory::pinned, slots), "the cell is skipped");
  } catch (const ResourceError& error) {
    return std::string(error.what());
  }
  return std::nullopt;
}

// One cell: its own buffers and graph, the four variants in interleaved
// rounds, each GPU variant verified after its last run.
void measure_cell(MapCell& cell, const RepeatPlan& plan, std::uint64_t seed, const RegimeMapSteps& steps) {
  const cudaStream_t origin = (*steps.pool)[0];
  BatchBuffers buffers(cell_work(cell), HostMemory::pinned, device_slots_for(steps.pool_config, cell.batches));
  buffers.fill_inputs(seed);
  const BatchOps ops = steps.ops_for(buffers);
  const GraphExec exec = steps.instantiate(steps.capture(buffers, cell.batches));

  EventTimer timer;
  Millis issued{};  // the host's time to issue the last timed run
  // Poisoned before every run, timed on the GPU and the host, verified into `check` after the last.
  auto verified = [&](auto issue, VerifyResult* check) {
    return TimedVariant{.prepare = [&] { buffers.poison_outputs(origin); },
                        .run = [&, issue] { return gpu_and_issue_time(timer, origin, issued, issue); },
                        .after_last = [&, check] { *check = buffers.verify(seed); },
                        .side = [&] { return issued; }};
  };
  std::vector<TimedVariant> variants = {
      verified([&] { steps.launch(exec); }, &cell.graph_check),
      verified([&] { steps.issue_on_streams(ops, cell.batches); }, &cell.stream_check)};
  // The runs of the pool's bound: the one-stream sums and batch 0's ops (the
  // fill, the drain, the stream order), each resource's work alone issued as
  // the pool's run is, and the busiest stream's batches alone on one stream.
  EventTimer sums_timer;
  for (TimedVariant& sum : stage_sum_variants(ops, buffers, origin, sums_timer)) variants.push_back(std::move(sum));
  for (TimedVariant& first : first_op_variants(ops, origin, sums_timer)) variants.push_back(std::move(first));
  EventTimer alone_timer;
  auto issue_like_the_pool = [&](const BatchOps& only) {
    return gpu_time(alone_timer, origin, [&] { steps.issue_on_streams(only, cell.batches); });
  };
  for (TimedVariant& alone : resource_variants(ops, issue_like_the_pool)) variants.push_back(std::move(alone));
  variants.push_back(busiest_stream_variant(ops, cell.batches, steps.pool->size(), origin, alone_timer));

  const std::vector<Measured> results = measure_rounds(plan, variants);
  cell.graph_replay = results[0].primary;
  cell.graph_issue = results[0].side.value();
  cell.stream_pool = results[1].primary;
  cell.stream_issue = results[1].side.value();
  cell.sums = StageSums{results[2].primary, results[3].primary, results[4].primary};
  cell.sums.h2d_first = results[5].primary;
  cell.sums.kernel_first = results[6].primary;
  cell.sums.d2h_first = results[7].primary;
  cell.alone.clear();
  for (std::size_t r = 8; r < 8 + std::size_t(kResources); ++r) cell.alone.push_back(results[r].primary);
  cell.busiest_stream = results.back().primary;
}

}  // namespace

CellEstimate estimate_cell(const Workload& work, const Rates& rates, const RepeatPlan& plan, int streams) {
  const double batches = double(work.batches);
  const double rounds = double(plan.warmup + plan.repeats);
  const WorkSeconds t = work_seconds(work, rates, /*pageable=*/false);
  const double floor = batches * kSecondsPerOperation;
  const double kernels = std::max(t.kernels, floor);
  const double h2d = std::max(t.h2d, floor);
  const double d2h = std::max(t.d2h, floor);
  const double one_stream = kernels + h2d + d2h;  // the three sums, one after the other
  // Overlapped at best, and never before the host has issued the pool's
  // 3 x batches operations; the replay is given the same (it errs long).
  const double pipeline = std::max({kernels, h2d, d2h, 3.0 * floor});
  // The bound's runs: each resource alone on the pool (kernels, H2D, D2H,
  // both ways: at least one copy direction's time), and the busiest stream's
  // share of the one-stream sums.
  const double alone = kernels + h2d + d2h + std::max(h2d, d2h);
  const double busiest = one_stream * double(busiest_stream_batches(work.batches, streams)) / batches;

  CellEstimate estimate;
  estimate.timed_seconds = rounds * (2.0 * pipeline + one_stream + alone + busiest);
  const double a_bytes = batches * double(work.a_bytes());
  const double c_bytes = batches * double(work.c_bytes());
  const double pinned = (a_bytes + c_bytes + double(work.b_bytes())) / double(kGiB) * kPinnedSecondsPerGiB;
  const double fill = batches * kFillSecondsPerBatch + (a_bytes + double(work.b_bytes())) / kHostBytesPerSecond;
  const double poison = rounds * kHostPoisonsPerRound * c_bytes / kHostBytesPerSecond;
  const double verify = kVerifications * (a_bytes + 2.0 * c_bytes) / kHostBytesPerSecond;  // Freivalds, the digest
  const double graph = 3.0 * batches * kSecondsPerGraphNode;
  estimate.host_seconds = pinned + fill + poison + verify + graph;
  return estimate;
}

std::optional<CellSkip> skip_for(double timed_seconds, int budget_seconds,
                                 const std::optional<std::string>& memory_problem) {
  if (memory_problem) return CellSkip{SkipKind::memory, *memory_problem};
  if (timed_seconds > double(budget_seconds)) {
    return CellSkip{SkipKind::time, "estimated " + seconds_text(timed_seconds) + " of timed runs, over the " +
                                        std::to_string(budget_seconds) + " s per cell (--map-cell-seconds)"};
  }
  return std::nullopt;
}

RegimeMap plan_regime_map(const RegimeMapConfig& config, const CommonOptions& options, const PoolConfig& pool,
                          const std::function<Rates(GemmShape)>& rates_at) {
  RegimeMap map;
  map.config = config;
  map.plan = options.plan;
  map.streams = pool.streams;
  map.device_buffers = to_string(pool.device_buffers);
  progress("measuring this GPU's rates at each of the " + std::to_string(config.sizes.size()) + " map sizes");
  std::map<int, Rates> rates;
  for (const int m : config.sizes) rates[m] = rates_at(GemmShape{m, m, m});
  for (const int m : config.sizes) {
    for (const int batch_count : config.batches) {
      MapCell& cell = map.cells.emplace_back();
      cell.m = m;
      cell.batches = batch_count;
      const Workload work = cell_work(cell);
      cell.estimate = estimate_cell(work, rates.at(m), options.plan, pool.streams);
      cell.skipped = skip_for(cell.estimate.timed_seconds, config.cell_seconds,
                              memory_problem(work, device_slots_for(pool, batch_count)));
      if (!cell.skipped) map.estimated_seconds += cell.estimate.total();
    }
  }
  return map;
}

std::string plan_text(const RegimeMap& map) {
  const auto count = [&map](std::optional<SkipKind> kind) {
    return std::count_if(map.cells.begin(), map.cells.end(), [kind](const MapCell& cell) {
      return kind ? cell.skipped && cell.skipped->kind == *kind : !cell.skipped;
    });
  };
  double timed_seconds = 0.0;
  for (const MapCell& cell : map.cells) {
    if (cell.measured()) timed_seconds += cell.estimate.timed_seconds;
  }
  return "regime map: " + plural(static_cast<long long>(map.config.sizes.size()), "size") + " x " +
         plural(static_cast<long long>(map.config.batches.size()), "batch count") + " = " +
         plural(static_cast<long long>(map.cells.size()), "cell") + ", " + std::to_string(count(std::nullopt)) +
         " to measure, " + std::to_string(count(SkipKind::time)) + " skipped over the " +
         std::to_string(map.config.cell_seconds) + " s per cell, " + std::to_string(count(SkipKind::memory)) +
         " skipped for memory; estimated " + fixed(map.estimated_seconds, 0) + " s (" + fixed(timed_seconds, 0) +
         " s of timed rounds, " + fixed(map.estimated_seconds - timed_seconds, 0) +
         " s on the host: pinning, filling, poisoning, verifying, capturing)";
}

RegimeMap measure_regime_map(const RegimeMapConfig& config, const CommonOptions& options, const RegimeMapSteps& steps) {
  RegimeMap map = plan_regime_map(config, options, steps.pool_config, steps.rates);
  for (std::size_t i = 0; i < map.cells.size(); ++i) {
    MapCell& cell = map.cells[i];
    const std::string title = "cell " + std::to_string(i + 1) + " of " + std::to_string(map.cells.size()) + ": " +
                              std::to_string(cell.m) + "\u00b3 \u00d7 " + plural(cell.batches, "batch");
    throw_if_interrupted("the regime map (" + title + ")");
    if (cell.skipped) {
      progress(title + ": skipped (" + cell.skipped->reason + ")");
      continue;
    }
    progress(title + ", about " + fixed(cell.estimate.total(), 1) + " s");
    measure_cell(cell, map.plan, options.seed, steps);
  }
  return map;
}

RegimeMapSteps regime_map_steps(const StreamPool& pool, const PoolConfig& pool_config, const Gemm& gemm) {
  return {graph_calls(pool, gemm),
          &pool,
          pool_config,
          [&gemm](BatchBuffers& b) { return batch_ops(b, gemm); },
          [&pool](const BatchOps& ops, int batches) { issue_on_streams(ops, pool, batches); },
          [&gemm](GemmShape shape) { return measure_rates(gemm, shape); }};
}

extern const Subcommand kRegimeMap = make_subcommand<kExperiment>();

}  // namespace csg::graphs
