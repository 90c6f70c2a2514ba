// 04_graph_capture_gemm regime-map: where graphs win on the article's own
// work. For every GEMM size (m = n = k) and batch count, the pool's run and
// one replay of the same work captured as a graph, in interleaved rounds,
// each cell verified (regime_map_cells.cpp measures; this file declares the
// subcommand and reports the map, the crossover row by row and every cell).
#include "04_graph_capture_gemm/lab/regime-map/regime_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/enum_names.hpp"
#include "base/errors.hpp"
#include "base/text.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
regime-map: GEMM sizes x batch counts, the pool vs one replay: where the graph wins

The stream pool against one graph replay of the same work over GEMM sizes (m = n = k) x batch
counts, pinned memory, each cell verified: where the graph starts to win.
)";

constexpr const char* kRuns = R"(
# where the graph starts to win, 2 sizes x 3 batch counts: regime map section, regime_map_*.png
q  -     --map-sizes 64,512 --map-batches 10,100,1000 --warmup 1 --repeats 5
# ... the whole map, 6 sizes x 4 batch counts (--full)
c  -     --map-sizes 64,512 --map-batches 10,100,1000
f  -
t  tiny  --map-sizes 16,32 --map-batches 3,20 --warmup 0 --repeats 1
s  -     --map-sizes 16 --map-batches 3 --streams 2 --warmup 0 --repeats 1
)";

constexpr const char* kOneStreamBound =
    "one-stream bound: the largest of the H2D, kernel and D2H sums (every batch alone on one stream) plus one "
    "batch's fill and drain (pipeline_bound.hpp with only those three paths). It is the serial picture's "
    "yardstick, not a bound of the pool: the pool beats it where kernels of several streams run side by side";

std::vector<int> sorted_unique(const std::string& flag, const std::vector<long long>& values) {
  std::vector<int> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeat != sorted.end()) throw UsageError("--" + flag + " lists " + std::to_string(*repeat) + " twice");
  return sorted;
}

std::string size_label(int m) { return std::to_string(m) + "^3"; }

std::string cell_label(const MapCell& cell) { return size_label(cell.m) + " x " + plural(cell.batches, "batch"); }

std::string join_counts(const std::vector<int>& counts) {
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(counts[i]);
  return text;
}

nlohmann::json ms_or_null(const MapCell& cell, const Summary& summary) {
  return cell.measured() ? nlohmann::json(summary.median_ms) : nlohmann::json(nullptr);
}

double spread_of(const Summary& s) { return s.min_ms > 0.0 ? s.median_ms / s.min_ms : 1.0; }

// ---- the declaration ------------------------------------------------------------

void options(StageCli& cli) {
  add_regime_map_options(cli);
  add_kernel_option(cli, GemmKernel::naive);
  add_article_options(cli);
}

RegimeMapOptions read(const StageCli& cli, CommonOptions& common) {
  const RegimeMapConfig map = read_regime_map_options(cli);
  common.work.shape = GemmShape{map.sizes.back(), map.sizes.back(), map.sizes.back()};
  read_kernel_option(cli, common);  // the largest size against the kernel's grid
  return {read_article_options(cli, common), map};
}

Rates rates_at(const RegimeMapOptions& options, GemmShape shape) {
  return measure_rates(Gemm(options.article.common.gemm), shape);
}

// Every cell planned from this GPU's rates at its size: which run, which are
// skipped and why, and the whole map's time; measure plans them again (a
// few milliseconds a size) rather than carry the plan across.
Estimate estimate(const RegimeMapOptions& options, int) {
  for (const std::string& warning : options.article.pool.warnings) std::cerr << warning << '\n';
  const RegimeMap map = plan_regime_map(options.map, options.article.common, options.article.pool,
                                        [&options](GemmShape shape) { return rates_at(options, shape); });
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
  config.sizes = sorted_unique("map-sizes", parse_int_list("map-sizes", cli.get_string("map-sizes"), kMinMapSize,
                                                           kMaxMapSize));
  config.batches = sorted_unique(
      "map-batches", parse_int_list("map-batches", cli.get_string("map-batches"), 1, kMaxMapBatches));
  config.cell_seconds = static_cast<int>(cli.get_int("map-cell-seconds"));
  return config;
}

// ---- the measured map ---------------------------------------------------------

MapWinner map_winner(double graph_ms, double stream_ms, double equal_within) {
  switch (compare_times(graph_ms, stream_ms, equal_within)) {
    case Comparison::faster: return MapWinner::graph;
    case Comparison::slower: return MapWinner::streams;
    case Comparison::same: break;
  }
  return MapWinner::tie;
}

std::string_view to_string(MapWinner winner) { return name_of(winner, {"graph", "streams", "tie"}); }

MapWinner winner_of(const MapCell& cell, double equal_within) {
  return map_winner(cell.graph_replay.median_ms, cell.stream_pool.median_ms, equal_within);
}

PipelineBound one_stream_bound(const StageSums& sums, int batches) {
  const StageTimes one = sums.medians();
  return pipeline_bound(ResourceTimes{.kernels_ms = one.kernel_ms, .h2d_ms = one.h2d_ms, .d2h_ms = one.d2h_ms,
                                      .both_ways_ms = 0.0, .host_issue_ms = 0.0},
                        one, batches, 0);  // a yardstick of the serial picture: no stream order
}

double pool_percent_of_bound(const MapCell& cell) {
  return percent_of_bound(one_stream_bound(cell.sums, cell.batches), cell.stream_pool.median_ms);
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
      ++row.measured;
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

Verdict crossover_verdict(const RowCrossover& row, const RegimeMap& map) {
  std::vector<int> measured;
  for (const int batch_count : map.config.batches) {
    const MapCell* cell = map.find(row.m, batch_count);
    if (cell != nullptr && cell->measured()) measured.push_back(batch_count);
  }
  Verdict verdict{.id = "regime_map.crossover." + std::to_string(row.m),
                  .figures = {{"m", row.m},
                              {"measured_batches", measured},
                              {"first_graph_win_batches",
                               row.first_graph_win ? nlohmann::json(*row.first_graph_win) : nlohmann::json()}},
                  .threshold = map.equal_within};
  std::string& text = verdict.sentence;
  text = "  " + size_label(row.m) + ": ";
  if (row.measured == 0 || measured.empty()) {
    verdict.outcome = "no_cell_measured";
    text += "no cell measured (every batch count skipped)";
  } else if (!row.first_graph_win) {
    verdict.outcome = "never";
    text += "graph never wins here (streams or a tie at " + join_counts(measured) + " batches)";
  } else if (const int first = *row.first_graph_win; !row.wins_from_there_on()) {
    verdict.outcome = "not_every_larger";
    std::string exceptions;
    for (const auto& [batch_count, winner] : row.not_won_above) {
      exceptions += (exceptions.empty() ? "" : ", ") + std::to_string(batch_count) + ": " +
                    std::string(to_string(winner));
    }
    text += "the graph wins first at " + plural(first, "batch") + ", but not at every larger count (" + exceptions + ")";
  } else if (first == measured.front() && measured.size() > 1) {
    verdict.outcome = "every_count";
    text += "the graph wins at every batch count measured (" + join_counts(measured) + ")";
  } else if (first == measured.back()) {
    verdict.outcome = "only_largest";
    text += "the graph wins only at " + plural(first, "batch") + ", the largest count measured";
  } else {
    verdict.outcome = "from_there_on";
    text += "the graph wins from " + plural(first, "batch") + " on (at every larger count measured too)";
  }
  return verdict;
}

// ---- the report -------------------------------------------------------------

void report_regime_map(const RegimeMapOptions& options, const RegimeMap& map, Report& report) {
  StageResult& result = report.result;
  result.config = config_json(options.article.common);
  for (const char* key : {"batches", "m", "n", "k"}) result.config[key] = nullptr;  // the map's own: regime_map
  result.config["mode"] = "regime_map";
  result.config["streams"] = map.streams;
  result.config["device_buffers"] = map.device_buffers;
  result.config["map_sizes"] = map.config.sizes;
  result.config["map_batches"] = map.config.batches;
  result.config["map_cell_seconds"] = map.config.cell_seconds;

  // The verification: the first failed check, else every measured cell's batches.
  VerifyResult verification;
  verification.passed = true;
  int batches_checked = 0;
  int measured = 0;
  for (const MapCell& cell : map.cells) {
    if (!cell.measured()) continue;
    ++measured;
    batches_checked += cell.batches;
    for (const auto& [check, variant] : {std::pair{&cell.graph_check, "graph replay"},
                                         std::pair{&cell.stream_check, "stream pool"}}) {
      if (check->passed) {
        ++result.variants_verified;
      } else if (verification.passed) {
        verification = *check;
        verification.method = check->method + "; in cell " + cell_label(cell) + ", " + variant;
      }
    }
    if (verification.passed) verification.method = cell.graph_check.method;
  }
  if (verification.passed) {
    verification.batches_checked = batches_checked;
    if (measured == 0) verification.method = "no cell measured: nothing to verify";
  }
  verification.digest.reset();  // one digest per workload; the map has many
  result.verification = verification;
  if (measured > 0) {
    report.checked_runs("(every measured cell: " + plural(measured, "cell") +
                        ", each checked after the replay's and after the pool's last run, the outputs poisoned "
                        "before every run)");
  }

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
                    {"measured_cells", row.measured},
                    {"text", verdict.sentence.substr(2)}});  // without the printed indent
  }

  std::vector<const MapCell*> measured_cells;
  for (const MapCell& cell : map.cells) {
    if (cell.measured()) measured_cells.push_back(&cell);
  }
  if (!measured_cells.empty()) {
    out << "\nevery measured cell (GPU time; issue: the host's time to issue the pool's fork, "
           "3 x batches calls and join, or the one cudaGraphLaunch; vs 1-stream sums: the longest one-stream sum plus "
           "fill and drain, as % of the pool's time. Not a bound of the pool, which the map does not measure: "
           "above 100% where kernels of several streams ran side by side):\n";
    using Cell = const MapCell*;
    report.table(table_of<Cell>(
        {{"m", [](Cell c) { return std::to_string(c->m); }},
         {"batches", [](Cell c) { return std::to_string(c->batches); }},
         {"pool ms", [](Cell c) { return fixed(c->stream_pool.median_ms, 3); }},
         {"graph ms", [](Cell c) { return fixed(c->graph_replay.median_ms, 3); }},
         {"graph/pool", [](Cell c) { return fixed(c->graph_replay.median_ms / c->stream_pool.median_ms, 3); }},
         {"pool issue ms", [](Cell c) { return fixed(c->stream_issue.median_ms, 3); }},
         {"graph issue ms", [](Cell c) { return fixed(c->graph_issue.median_ms, 3); }},
         {"vs 1-stream sums %", [](Cell c) { return fixed(pool_percent_of_bound(*c), 1); }},
         {"longest sum",
          [](Cell c) { return std::string(to_string(one_stream_bound(c->sums, c->batches).limited_by)); }},
         {"verified", [](Cell c) { return std::string(c->verified() ? "yes" : "NO"); }}},
        measured_cells));
  }
  for (const MapCell* cell : measured_cells) {
    for (const auto& [check, variant] : {std::pair{&cell->graph_check, "graph replay"},
                                         std::pair{&cell->stream_check, "stream pool"}}) {
      if (!check->passed) out << "cell " << cell_label(*cell) << ", " << variant << ": " << check->message() << '\n';
    }
    // Each cell's winner is a verdict too, shown in the map above rather than line by line.
    result.verdicts.push_back(cell_verdict(*cell, map.equal_within));
  }
  if (measured_cells.empty()) out << "no cell measured: every cell was skipped, nothing to verify\n";

  nlohmann::json cells = nlohmann::json::array();
  for (const MapCell& cell : map.cells) {
    const bool is_measured = cell.measured();
    nlohmann::json c = {
        {"m", cell.m},
        {"n", cell.m},
        {"k", cell.m},
        {"batches", cell.batches},
        {"stream_ms", ms_or_null(cell, cell.stream_pool)},
        {"graph_ms", ms_or_null(cell, cell.graph_replay)},
        {"stream_issue_ms", ms_or_null(cell, cell.stream_issue)},
        {"graph_issue_ms", ms_or_null(cell, cell.graph_issue)},
        {"pool_percent_of_bound", is_measured ? nlohmann::json(pool_percent_of_bound(cell)) : nlohmann::json(nullptr)},
        {"winner", is_measured ? nlohmann::json(std::string(to_string(winner_of(cell, map.equal_within))))
                               : nlohmann::json(nullptr)},
        {"skipped_reason", is_measured ? nlohmann::json(nullptr) : nlohmann::json(cell.skipped->reason)},
        {"verified", is_measured ? nlohmann::json(cell.verified()) : nlohmann::json(nullptr)},
        {"text", cell_text(cell, map.equal_within)},
        {"noisy", is_measured ? nlohmann::json(noisy(cell)) : nlohmann::json(nullptr)},
        {"estimated_seconds", cell.estimate.timed_seconds},
        {"estimated_host_seconds", cell.estimate.host_seconds},
    };
    if (is_measured) {
      const PipelineBound bound = one_stream_bound(cell.sums, cell.batches);
      c["graph_over_streams"] = cell.graph_replay.median_ms / cell.stream_pool.median_ms;
      c["stream_min_ms"] = cell.stream_pool.min_ms;
      c["graph_min_ms"] = cell.graph_replay.min_ms;
      c["stream_p95_ms"] = cell.stream_pool.p95_ms;
      c["graph_p95_ms"] = cell.graph_replay.p95_ms;
      c["samples"] = cell.stream_pool.samples;
      c["bound_ms"] = bound.bound_ms;
      c["limited_by"] = to_string(bound.limited_by);
      c["h2d_sum_ms"] = cell.sums.h2d.median_ms;
      c["kernel_sum_ms"] = cell.sums.kernel.median_ms;
      c["d2h_sum_ms"] = cell.sums.d2h.median_ms;
      if (!cell.graph_check.passed) c["failure"] = "graph replay: " + cell.graph_check.message();
      if (!cell.stream_check.passed) c["failure"] = "stream pool: " + cell.stream_check.message();
    } else {
      c["skipped_because"] = cell.skipped->kind == SkipKind::memory ? "memory" : "time";
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
                                   {"bound", kOneStreamBound},
                                   {"estimated_seconds", map.estimated_seconds},
                                   {"cells", cells},
                                   {"crossover", rows}};
}

extern const Subcommand kRegimeMap = make_subcommand<kExperiment>();

}  // namespace csg::graphs
