#include "04_graph_capture_gemm/lab/startup/startup_report.hpp"

#include <algorithm>
#include <cstdio>

#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

std::string num(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

std::string percent(double fraction) { return num(100.0 * fraction, 1) + "%"; }

double mib(std::int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

std::string mib_text(std::int64_t bytes) { return num(mib(bytes), 1) + " MiB"; }

double mean(const std::vector<int>& values) {
  if (values.empty()) return 0.0;
  double sum = 0.0;
  for (int v : values) sum += v;
  return sum / double(values.size());
}

double ms_per_graph(const StartupRow& row, BufferLayout layout) {
  return row.buckets > 0 ? row.cell(layout).total.median_ms / row.buckets : 0.0;
}

double us_per_batch(const StartupRow& row, BufferLayout layout) {
  return row.batches_captured > 0 ? 1000.0 * row.cell(layout).total.median_ms / double(row.batches_captured) : 0.0;
}

std::string waste_text(const StartupRow& row) {
  return percent(row.waste_uniform) + " (uniform) / " + percent(row.waste_skewed) + " (skewed)";
}

std::string buckets_text(const StartupRow& row) { return plural(row.buckets, "bucket"); }

// The separate layout's verdict in a few words, for the bracket.
std::string separate_clause(const StartupFigures& figures) {
  const BudgetVerdict separate = budget_verdict(figures, BufferLayout::separate);
  if (!separate.first_over) return "separate buffers per bucket: none over";
  const StartupRow& row = figures.rows[*separate.first_over];
  return "separate buffers per bucket: " + buckets_text(row) + " first, at " + num(row.separate.total.median_ms, 0) +
         " ms";
}

nlohmann::json cell_json(const StartupRow& row, BufferLayout layout) {
  const StartupCell& c = row.cell(layout);
  nlohmann::json out = {{"capture_ms", c.capture.median_ms},
                        {"instantiate_ms", c.instantiate.median_ms},
                        {"upload_ms", c.upload.median_ms},
                        {"total_ms", c.total.median_ms},
                        {"total_min_ms", c.total.min_ms},
                        {"total_max_ms", c.total.max_ms},
                        {"rounds", c.total.samples},
                        {"ms_per_graph", ms_per_graph(row, layout)},
                        {"us_per_batch", us_per_batch(row, layout)},
                        {"launches_ms", c.launches.median_ms},
                        {"buffer_bytes", c.buffer_bytes},
                        {"verified", c.check.passed},
                        {"batches_checked", c.check.batches_checked}};
  if (!c.check.passed) out["failure"] = c.check.message();
  return out;
}

nlohmann::json first_build_json(const FirstBuild& first) {
  nlohmann::json out = {{"buckets", first.buckets},
                        {"layout", "shared"},
                        {"batches_captured", first.batches_captured},
                        {"capture_ms", first.capture_ms},
                        {"instantiate_ms", first.instantiate_ms},
                        {"upload_ms", first.upload_ms},
                        {"total_ms", first.total_ms()},
                        {"graph_bytes", first.graph_bytes},
                        {"graph_bytes_per_graph", first.buckets > 0 ? double(first.graph_bytes) / first.buckets : 0.0},
                        {"verified", first.check.passed},
                        {"batches_checked", first.check.batches_checked}};
  if (!first.check.passed) out["failure"] = first.check.message();
  return out;
}

// The row built with as many buckets as the first build: the same graphs, built again.
const StartupRow* rebuilt(const StartupFigures& figures) {
  for (const StartupRow& row : figures.rows) {
    if (row.buckets == figures.first.buckets && figures.first.batches_captured > 0) return &row;
  }
  return nullptr;
}

nlohmann::json bucket_count_or_null(const StartupFigures& figures, std::optional<std::size_t> index) {
  if (!index) return nullptr;
  return figures.rows[*index].buckets;
}

}  // namespace

const char* to_string(BufferLayout layout) { return layout == BufferLayout::shared ? "shared" : "separate"; }

void fill_padding(StartupFigures& figures) {
  const StartupConfig& c = figures.config;
  const std::vector<int> uniform = request_sizes(RequestMix::uniform, c.requests, c.max_batches, c.seed);
  const std::vector<int> skewed = request_sizes(RequestMix::skewed, c.requests, c.max_batches, c.seed);
  figures.mean_uniform = mean(uniform);
  figures.mean_skewed = mean(skewed);
  for (StartupRow& row : figures.rows) {
    row.waste_uniform = padding_waste(uniform, row.sizes);
    row.waste_skewed = padding_waste(skewed, row.sizes);
  }
}

BudgetVerdict budget_verdict(const StartupFigures& figures, BufferLayout layout) {
  BudgetVerdict verdict;
  for (std::size_t i = 0; i < figures.rows.size(); ++i) {
    if (figures.rows[i].cell(layout).total.median_ms > figures.config.budget_ms) {
      verdict.first_over = i;
      break;
    }
  }
  if (!verdict.first_over) {
    if (!figures.rows.empty()) verdict.most_within = figures.rows.size() - 1;
  } else if (*verdict.first_over > 0) {
    verdict.most_within = *verdict.first_over - 1;
  }
  return verdict;
}

std::string budget_text(const StartupFigures& figures) {
  if (figures.rows.empty()) return "no bucket count was built";
  const std::string budget = num(figures.config.budget_ms, 0) + " ms budget";
  const BudgetVerdict v = budget_verdict(figures, kBudgetLayout);
  const std::string clause = separate_clause(figures);
  const StartupRow& fewest = figures.rows.front();
  if (!v.first_over) {
    const StartupRow& most = figures.rows[*v.most_within];
    return "no bucket count exceeded the " + budget + " on the shared pool (" + clause + "): all " +
           buckets_text(most) + " start in " + num(most.shared.total.median_ms, 0) + " ms and waste " +
           waste_text(most) + " padding; more buckets than this could still fit.";
  }
  const StartupRow& over = figures.rows[*v.first_over];
  if (!v.most_within) {
    return "even " + buckets_text(over) + " exceed the " + budget + " on the shared pool (" +
           num(over.shared.total.median_ms, 0) + " ms; " + clause + ")" +
           ": fewer buckets, a smaller top bucket or a larger budget; they waste " + waste_text(over) + " padding.";
  }
  const StartupRow& within = figures.rows[*v.most_within];
  return std::to_string(over.buckets) + " buckets are the first over the " + budget + " on the shared pool (" +
         num(over.shared.total.median_ms, 0) + " ms; " + clause + "); the most buckets within it, " +
         std::to_string(within.buckets) + ", start in " + num(within.shared.total.median_ms, 0) + " ms and waste " +
         waste_text(within) + " padding" +
         (*v.most_within == 0 ? std::string(".") :
                                ", against " + waste_text(fewest) + " with " + buckets_text(fewest) + ".");
}

std::string parts_text(const StartupFigures& figures) {
  if (figures.rows.empty()) return "";
  const StartupRow& row = figures.rows.back();
  const StartupCell& c = row.shared;
  const double parts[3] = {c.capture.median_ms, c.instantiate.median_ms, c.upload.median_ms};
  const char* names[3] = {"capture", "instantiate", "upload"};
  const double sum = parts[0] + parts[1] + parts[2];
  if (sum <= 0.0) return "nothing was timed";
  const std::size_t largest = std::size_t(std::max_element(parts, parts + 3) - parts);
  std::string shares;
  for (std::size_t i = 0; i < 3; ++i) {
    shares += std::string(i == 0 ? "" : ", ") + names[i] + " " + percent(parts[i] / sum);
  }
  return std::string(names[largest]) + " is the largest part of starting " + buckets_text(row) + " (" + shares +
         "): " + num(ms_per_graph(row, BufferLayout::shared), 2) + " ms per graph, " +
         num(us_per_batch(row, BufferLayout::shared), 1) + " us per batch captured.";
}

std::string first_build_text(const StartupFigures& figures) {
  const StartupRow* again = rebuilt(figures);
  if (again == nullptr) return "";
  const FirstBuild& first = figures.first;
  const StartupCell& cell = again->shared;
  const double first_ms = first.total_ms();
  const double again_ms = cell.total.median_ms;
  std::string text = "the process's first build of " + plural(first.buckets, "graph") + " took " + num(first_ms, 0) +
                     " ms against " + num(again_ms, 0) + " ms for the same graphs built again";
  if (first_ms <= 0.0 || again_ms <= 0.0) return text + ".";
  const double ratio = first_ms / again_ms;
  const bool dearer = ratio > kFirstBuildRatioThreshold;
  if (!dearer && ratio >= 1.0 / kFirstBuildRatioThreshold) {
    return text + " (within " + percent(kFirstBuildRatioThreshold - 1.0) +
           "): the table's figures hold for a fresh process too.";
  }
  // The part that moved the most the way the total did.
  const double firsts[3] = {first.capture_ms, first.instantiate_ms, first.upload_ms};
  const double agains[3] = {cell.capture.median_ms, cell.instantiate.median_ms, cell.upload.median_ms};
  const char* names[3] = {"capture", "instantiate", "upload"};
  std::size_t part = 0;
  for (std::size_t i = 1; i < 3; ++i) {
    const double moved = dearer ? firsts[i] - agains[i] : agains[i] - firsts[i];
    const double most = dearer ? firsts[part] - agains[part] : agains[part] - firsts[part];
    if (moved > most) part = i;
  }
  const std::string bracket = std::string(names[part]) + " " + num(firsts[part], 0) + " against " +
                              num(agains[part], 0) + " ms";
  if (dearer) {
    return text + " (" + num(ratio, 1) + "x; " + bracket + "): a fresh process's startup costs more than the " +
           "table's figures, which are of graphs built after it.";
  }
  return text + " (" + num(1.0 / ratio, 1) + "x less; " + bracket + "): here the first build was the cheaper one.";
}

std::string memory_text(const StartupFigures& figures) {
  if (figures.rows.empty()) return "";
  const StartupRow& row = figures.rows.back();
  const FirstBuild& first = figures.first;
  std::string text;
  std::int64_t graphs = 0;
  if (rebuilt(figures) != &row) {
    text = "the execs' device memory was not measured";
  } else if (first.graph_bytes <= 0) {
    text = "the first build's " + plural(first.buckets, "exec") +
           " took less device memory than cudaMemGetInfo resolves";
  } else {
    graphs = first.graph_bytes;
    text = "the first build's " + plural(first.buckets, "exec") + " took " + mib_text(graphs) +
           " of device memory (about " + num(double(graphs) / first.buckets / 1024.0, 0) + " KiB each, " +
           num(double(graphs) / double(first.batches_captured) / 1024.0, 1) + " KiB per batch captured)";
  }
  const std::int64_t shared_bytes = row.shared.buffer_bytes + graphs;
  const std::int64_t separate_bytes = row.separate.buffer_bytes + graphs;
  const double shared = double(shared_bytes);
  const double separate = double(separate_bytes);
  const std::string what = graphs > 0 ? " (buffers + the same graphs)" : " (buffers)";
  if (shared > 0.0 && separate > kMemoryRatioThreshold * shared) {
    return text + "; separate buffers per bucket take " + mib_text(separate_bytes) + " of device memory" + what +
           " against " + mib_text(shared_bytes) + " for one shared pool, " + num(separate / shared, 1) +
           "x: share one pool, the graphs run one at a time.";
  }
  return text + "; separate buffers per bucket take about as much device memory as one shared pool (" +
         mib_text(separate_bytes) + " against " + mib_text(shared_bytes) + what + ", within " +
         num(kMemoryRatioThreshold, 1) + "x).";
}

void print_startup(std::ostream& out, const StartupFigures& figures) {
  const StartupConfig& c = figures.config;
  out << "K buckets over 1.." << plural(c.max_batches, "batch") << " (bucket i holds ceil(i * " << c.max_batches
      << " / K)), one graph of naive " << c.size << "^3 GEMMs each; host ms summed over the K graphs";
  if (c.rounds > 1) out << ", median of " << c.rounds << " rounds";
  out << ":\n";
  Table table({"K", "buffers", "batches", "capture", "instantiate", "upload", "total", "per graph", "buffers MiB"});
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) {
      const StartupCell& cell = row.cell(layout);
      table.add_row({std::to_string(row.buckets), to_string(layout), std::to_string(row.batches_captured),
                     figure(cell.capture.median_ms, 1), figure(cell.instantiate.median_ms, 1),
                     figure(cell.upload.median_ms, 1), figure(cell.total.median_ms, 1),
                     figure(ms_per_graph(row, layout), 2), num(mib(cell.buffer_bytes), 1)});
    }
  }
  table.print(out);
  const FirstBuild& first = figures.first;
  if (first.batches_captured > 0) {
    out << "the first build, before the rows: " << first.buckets << " shared, " << first.batches_captured
        << " batches, capture " << figure(first.capture_ms, 1) << ", instantiate " << figure(first.instantiate_ms, 1)
        << ", upload " << figure(first.upload_ms, 1) << ", total " << figure(first.total_ms(), 1) << " ms; its execs "
        << num(mib(first.graph_bytes), 1) << " MiB of device memory, which the driver keeps for the rows' graphs\n";
  }
  out << "padding waste, uniform / skewed:";
  for (const StartupRow& row : figures.rows) {
    out << (&row == &figures.rows.front() ? " " : ", ") << "K=" << row.buckets << " " << percent(row.waste_uniform)
        << " / " << percent(row.waste_skewed);
  }
  out << "\n  " << plural(c.requests, "request") << " per mix, each in the smallest bucket >= it: uniform "
      << mix_text(RequestMix::uniform, c.max_batches) << " (mean " << num(figures.mean_uniform, 1) << "); skewed "
      << mix_text(RequestMix::skewed, c.max_batches) << " (mean " << num(figures.mean_skewed, 1) << ")\n";
  out << '\n' << budget_text(figures) << '\n' << parts_text(figures) << '\n';
  const std::string first_text = first_build_text(figures);
  if (!first_text.empty()) out << first_text << '\n';
  out << memory_text(figures) << '\n';
}

std::vector<Measurement> startup_measurements(const StartupFigures& figures) {
  std::vector<Measurement> out;
  const FirstBuild& first = figures.first;
  if (first.batches_captured > 0) {
    out.push_back(cost("startup_first_build",
                       {{"buckets", first.buckets}, {"layout", "shared"}, {"batches_captured", first.batches_captured}},
                       summarize({Millis{first.total_ms()}})));
  }
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) {
      const StartupCell& c = row.cell(layout);
      const nlohmann::json params = {
          {"buckets", row.buckets}, {"layout", to_string(layout)}, {"batches_captured", row.batches_captured}};
      out.push_back(cost("startup_capture", params, c.capture));
      out.push_back(cost("startup_instantiate", params, c.instantiate));
      out.push_back(cost("startup_upload", params, c.upload));
      out.push_back(cost("startup_total", params, c.total));
      out.push_back(checked("startup_launches", params, c.launches, Work{}, c.check));
    }
  }
  return out;
}

std::vector<const VerifyResult*> startup_checks(const StartupFigures& figures) {
  std::vector<const VerifyResult*> checks;
  if (figures.first.batches_captured > 0) checks.push_back(&figures.first.check);
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) checks.push_back(&row.cell(layout).check);
  }
  return checks;
}

nlohmann::json startup_bounds(const StartupFigures& figures) {
  nlohmann::json bounds = nlohmann::json::object();
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) {
      const std::string key = std::string("startup_") + to_string(layout);
      const std::string k = "_k" + std::to_string(row.buckets);
      bounds[key + "_ms_per_graph" + k] = ms_per_graph(row, layout);
      bounds[key + "_us_per_batch" + k] = us_per_batch(row, layout);
    }
  }
  return bounds;
}

nlohmann::json startup_json(const StartupFigures& figures) {
  const StartupConfig& c = figures.config;
  nlohmann::json rows = nlohmann::json::array();
  for (const StartupRow& row : figures.rows) {
    rows.push_back({{"buckets", row.buckets},
                    {"sizes", row.sizes},
                    {"batches_captured", row.batches_captured},
                    {"padding_waste", {{"uniform", row.waste_uniform}, {"skewed", row.waste_skewed}}},
                    {"shared", cell_json(row, BufferLayout::shared)},
                    {"separate", cell_json(row, BufferLayout::separate)}});
  }
  nlohmann::json first_over = nlohmann::json::object();
  nlohmann::json most_within = nlohmann::json::object();
  for (BufferLayout layout : kAllBufferLayouts) {
    const BudgetVerdict v = budget_verdict(figures, layout);
    first_over[to_string(layout)] = bucket_count_or_null(figures, v.first_over);
    most_within[to_string(layout)] = bucket_count_or_null(figures, v.most_within);
  }
  nlohmann::json conclusion = nlohmann::json::array();
  for (const std::string& sentence : {budget_text(figures), parts_text(figures), first_build_text(figures),
                                      memory_text(figures)}) {
    if (!sentence.empty()) conclusion.push_back(sentence);
  }
  return {{"bucket_layout", "even"},
          {"bucket_counts", c.bucket_counts},
          {"max_batches", c.max_batches},
          {"size", c.size},
          {"rounds", c.rounds},
          {"budget_ms", c.budget_ms},
          {"budget_layout", to_string(kBudgetLayout)},
          {"requests", c.requests},
          {"mixes",
           {{"uniform", {{"text", mix_text(RequestMix::uniform, c.max_batches)}, {"mean_batches", figures.mean_uniform}}},
            {"skewed", {{"text", mix_text(RequestMix::skewed, c.max_batches)}, {"mean_batches", figures.mean_skewed}}}}},
          {"first_build", first_build_json(figures.first)},
          {"rows", rows},
          {"first_over_budget", first_over},
          {"most_within_budget", most_within},
          {"conclusion", conclusion}};
}

}  // namespace csg::graphs
