#include "04_graph_capture_gemm/lab/regime-map/regime_map_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/enum_names.hpp"
#include "base/errors.hpp"
#include "base/text.hpp"
#include "base/units.hpp"
#include "report/table.hpp"

namespace csg::graphs {
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

std::string seconds_text(double seconds) { return fixed(seconds, seconds < 100.0 ? 1 : 0) + " s"; }

std::string size_label(int m) { return std::to_string(m) + "^3"; }

std::string cell_label(const MapCell& cell) {
  return size_label(cell.m) + " x " + plural(cell.batches, "batch");
}

std::string join_counts(const std::vector<int>& counts) {
  std::string text;
  for (std::size_t i = 0; i < counts.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(counts[i]);
  return text;
}

nlohmann::json ms_or_null(const MapCell& cell, const Summary& summary) {
  return cell.measured() ? nlohmann::json(summary.median_ms) : nlohmann::json(nullptr);
}

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

// ---- which cells run ----------------------------------------------------------

CellEstimate estimate_cell(const Workload& work, const Rates& rates, const RepeatPlan& plan) {
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

  CellEstimate estimate;
  estimate.timed_seconds = rounds * (2.0 * pipeline + one_stream);
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

namespace {

double spread_of(const Summary& s) { return s.min_ms > 0.0 ? s.median_ms / s.min_ms : 1.0; }

}  // namespace

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

std::string crossover_text(const RowCrossover& row, const RegimeMap& map) {
  std::vector<int> measured;
  for (const int batch_count : map.config.batches) {
    const MapCell* cell = map.find(row.m, batch_count);
    if (cell != nullptr && cell->measured()) measured.push_back(batch_count);
  }
  const std::string label = size_label(row.m) + ": ";
  if (row.measured == 0 || measured.empty()) return label + "no cell measured (every batch count skipped)";
  if (!row.first_graph_win) {
    return label + "graph never wins here (streams or a tie at " + join_counts(measured) + " batches)";
  }
  const int first = *row.first_graph_win;
  if (row.wins_from_there_on()) {
    if (first == measured.front() && measured.size() > 1) {
      return label + "the graph wins at every batch count measured (" + join_counts(measured) + ")";
    }
    if (first == measured.back()) {
      return label + "the graph wins only at " + plural(first, "batch") + ", the largest count measured";
    }
    return label + "the graph wins from " + plural(first, "batch") + " on (at every larger count measured too)";
  }
  std::string exceptions;
  for (const auto& [batch_count, winner] : row.not_won_above) {
    exceptions += (exceptions.empty() ? "" : ", ") + std::to_string(batch_count) + ": " +
                  std::string(to_string(winner));
  }
  return label + "the graph wins first at " + plural(first, "batch") + ", but not at every larger count (" +
         exceptions + ")";
}

// ---- the report -------------------------------------------------------------

StageResult regime_map_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                              const RegimeMap& map) {
  StageResult result;
  result.stage = stage;
  result.device = device;
  result.config = config_json(options);
  for (const char* key : {"batches", "m", "n", "k"}) result.config[key] = nullptr;  // the map's own: regime_map
  result.config["mode"] = "regime_map";
  result.config["streams"] = map.streams;
  result.config["device_buffers"] = map.device_buffers;
  result.config["map_sizes"] = map.config.sizes;
  result.config["map_batches"] = map.config.batches;
  result.config["map_cell_seconds"] = map.config.cell_seconds;

  // The verdict: the first failed check, else every measured cell's batches.
  VerifyResult verdict;
  verdict.passed = true;
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
      } else if (verdict.passed) {
        verdict = *check;
        verdict.method = check->method + "; in cell " + cell_label(cell) + ", " + variant;
      }
    }
    if (verdict.passed) verdict.method = cell.graph_check.method;
  }
  if (verdict.passed) {
    verdict.batches_checked = batches_checked;
    if (measured == 0) verdict.method = "no cell measured: nothing to verify";
  }
  verdict.digest.reset();  // one digest per workload; the map has many
  result.verification = verdict;
  return result;
}

nlohmann::json to_json(const RegimeMap& map) {
  nlohmann::json cells = nlohmann::json::array();
  for (const MapCell& cell : map.cells) {
    const bool measured = cell.measured();
    const PipelineBound bound = measured ? one_stream_bound(cell.sums, cell.batches) : PipelineBound{};
    nlohmann::json c = {
        {"m", cell.m},
        {"n", cell.m},
        {"k", cell.m},
        {"batches", cell.batches},
        {"stream_ms", ms_or_null(cell, cell.stream_pool)},
        {"graph_ms", ms_or_null(cell, cell.graph_replay)},
        {"stream_issue_ms", ms_or_null(cell, cell.stream_issue)},
        {"graph_issue_ms", ms_or_null(cell, cell.graph_issue)},
        {"pool_percent_of_bound", measured ? nlohmann::json(pool_percent_of_bound(cell)) : nlohmann::json(nullptr)},
        {"winner", measured ? nlohmann::json(std::string(to_string(winner_of(cell, map.equal_within))))
                            : nlohmann::json(nullptr)},
        {"skipped_reason", measured ? nlohmann::json(nullptr) : nlohmann::json(cell.skipped->reason)},
        {"verified", measured ? nlohmann::json(cell.verified()) : nlohmann::json(nullptr)},
        {"text", cell_text(cell, map.equal_within)},
        {"noisy", measured ? nlohmann::json(noisy(cell)) : nlohmann::json(nullptr)},
        {"estimated_seconds", cell.estimate.timed_seconds},
        {"estimated_host_seconds", cell.estimate.host_seconds},
    };
    if (measured) {
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
  nlohmann::json rows = nlohmann::json::array();
  for (const RowCrossover& row : crossovers(map)) {
    rows.push_back({{"m", row.m},
                    {"first_graph_win_batches",
                     row.first_graph_win ? nlohmann::json(*row.first_graph_win) : nlohmann::json(nullptr)},
                    {"graph_wins_from_there_on", row.wins_from_there_on()},
                    {"measured_cells", row.measured},
                    {"text", crossover_text(row, map)}});
  }
  return {{"sizes", map.config.sizes},
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

nlohmann::json regime_map_json(const StageResult& result, const RegimeMap& map) {
  nlohmann::json doc = to_json(result);
  doc["regime_map"] = to_json(map);
  return doc;
}

void print_regime_map(std::ostream& out, const StageResult& result, const RegimeMap& map) {
  const std::string kernel = result.config.value("kernel", std::string("naive"));
  out << result.stage << " regime-map on " << result.device.summary() << '\n'
      << "the stream pool (" << plural(map.streams, "stream")
      << ", fork/join) against one graph replay of the same work: "
      << "H2D, " << kernel << " GEMM (m = n = k), D2H per batch, pinned host memory, device buffers: "
      << map.device_buffers << "; GPU time, median of " << plural(map.plan.repeats, "run") << " after "
      << map.plan.warmup
      << " warm-up per cell.\neach cell: the winner and the replay's time against the pool's (graph -12%: 12% "
         "less); within "
      << percent_text(map.equal_within) << ": tie\n\n";

  std::vector<std::string> headers = {"m=n=k \\ batches"};
  for (const int batch_count : map.config.batches) headers.push_back(std::to_string(batch_count));
  Table table(headers);
  for (const int m : map.config.sizes) {
    std::vector<std::string> row = {std::to_string(m)};
    for (const int batch_count : map.config.batches) {
      const MapCell* cell = map.find(m, batch_count);
      row.push_back(cell != nullptr ? cell_text(*cell, map.equal_within) : "-");
    }
    table.add_row(std::move(row));
  }
  table.print(out);
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
  for (const RowCrossover& row : crossovers(map)) out << "  " << crossover_text(row, map) << '\n';

  const bool any_measured =
      std::any_of(map.cells.begin(), map.cells.end(), [](const MapCell& cell) { return cell.measured(); });
  if (any_measured) {
    out << "\nevery measured cell (GPU time; issue: the host's time to issue the pool's fork, "
           "3 x batches calls and join, or the one cudaGraphLaunch; vs 1-stream sums: the longest one-stream sum plus "
           "fill and drain, as % of the pool's time. Not a bound of the pool, which the map does not measure: "
           "above 100% where kernels of several streams ran side by side):\n";
    Table figures({"m", "batches", "pool ms", "graph ms", "graph/pool", "pool issue ms", "graph issue ms",
                   "vs 1-stream sums %", "longest sum", "verified"});
    for (const MapCell& cell : map.cells) {
      if (!cell.measured()) continue;
      const PipelineBound bound = one_stream_bound(cell.sums, cell.batches);
      figures.add_row({std::to_string(cell.m), std::to_string(cell.batches), fixed(cell.stream_pool.median_ms, 3),
                       fixed(cell.graph_replay.median_ms, 3),
                       fixed(cell.graph_replay.median_ms / cell.stream_pool.median_ms, 3),
                       fixed(cell.stream_issue.median_ms, 3), fixed(cell.graph_issue.median_ms, 3),
                       fixed(pool_percent_of_bound(cell), 1), std::string(to_string(bound.limited_by)), cell.verified() ? "yes" : "NO"});
    }
    figures.print(out);
  }

  out << '\n';
  for (const MapCell& cell : map.cells) {
    if (!cell.measured()) continue;
    for (const auto& [check, variant] : {std::pair{&cell.graph_check, "graph replay"},
                                         std::pair{&cell.stream_check, "stream pool"}}) {
      if (!check->passed) out << "cell " << cell_label(cell) << ", " << variant << ": " << check->message() << '\n';
    }
  }
  const int measured = static_cast<int>(
      std::count_if(map.cells.begin(), map.cells.end(), [](const MapCell& cell) { return cell.measured(); }));
  if (!result.verification.passed) {
    out << "VERIFICATION FAILED: " << result.verification.message() << '\n';
  } else if (measured == 0) {
    out << "no cell measured: every cell was skipped, nothing to verify\n";
  } else {
    out << "every batch of every measured cell verified: " << measured << " cells, "
        << result.verification.batches_checked << " batches, each checked after the replay's and after the pool's "
        << "last run, the outputs poisoned before every run (" << result.verification.method << ")\n";
  }
}

}  // namespace csg::graphs
