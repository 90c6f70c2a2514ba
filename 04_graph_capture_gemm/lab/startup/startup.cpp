#include "04_graph_capture_gemm/lab/startup/startup.hpp"

#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
startup: K bucket graphs before the first request: capture, instantiate, upload, memory

What a serving engine pays before its first request: for K buckets of batch counts (8 to 256 by
default, spaced evenly over 1..max), K graphs of the article's fork/join GEMMs captured,
instantiated and uploaded, in total and per graph, with their device memory, with one shared pool of
buffers and with separate buffers per bucket; the padding each layout wastes on uniform and skewed
request sizes; and the first K whose startup exceeds a budget.
)";

constexpr const char* kRuns = R"(
# a serving engine's startup, 8 to 256 bucket graphs   after-the-article table, after_article.png
fc   -
q    -                     --startup-buckets 8,64
t    tiny                  --startup-buckets 2,9 --startup-max-batches 9 --startup-size 16 --startup-requests 500 --streams 3
t    tiny_budget_pageable  --startup-buckets 1,3 --startup-max-batches 3 --startup-size 33 --startup-budget-ms 1 --startup-rounds 2 --host-memory pageable --streams 2
m    -                     --startup-buckets 2,4 --startup-max-batches 4 --startup-size 8 --startup-requests 100 --streams 2
)";

constexpr int kMaxBucketCount = 1024;
constexpr int kDefaultMaxBatches = 256;  // K = 256: one graph per batch count
constexpr int kMaxMaxBatches = 1024;     // 1024 buckets of up to 1024 batches: ~1.6 M nodes
constexpr int kDefaultSize = 64;         // 64³: a few µs per GEMM, so 256 graphs capture and verify in seconds
constexpr int kMaxSize = 1024;
constexpr int kDefaultBudgetMs = 250;  // between 128 and 256 buckets' startup on the H200 (0.2 and 0.35 s)
constexpr int kMaxBudgetMs = 10000000;
constexpr int kDefaultRequests = 10000;
constexpr int kMaxRequests = 10000000;
constexpr int kMaxRounds = 100;

// Per batch captured, per layout, everything a bucket costs the run: its
// buffers' allocation and fill, capture, instantiate, upload, one launch and
// the check of its outputs (the H200: 8.4 s for the defaults' 117,632
// batches built, both ways and the first build, about 71 µs each).
constexpr double kBuildSecondsPerBatch = 80e-6;
// Filling one batch's A on the host (hashing 4096 entries) for 64³, and its allocation.
constexpr double kFillSecondsPerElement = 2e-6 / (64.0 * 64.0);

// "b uniform in 1..256", "b = ceil(256 * u^3), u uniform in (0, 1]"
std::string mix_text(RequestMix mix, int max_batches) {
  const std::string max = std::to_string(max_batches);
  return mix == RequestMix::uniform ? "b uniform in 1.." + max : "b = ceil(" + max + " * u^3), u uniform in (0, 1]";
}

// `batches` batches of size³.
Workload startup_workload(const StartupConfig& config, int batches) {
  return Workload{batches, GemmShape{config.size, config.size, config.size}};
}

std::string percent(double fraction) { return fixed(100.0 * fraction, 1) + "%"; }

double mib(std::int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

std::string mib_text(std::int64_t bytes) { return fixed(mib(bytes), 1) + " MiB"; }

double mean(const std::vector<int>& values) {
  return values.empty() ? 0.0 : double(requested_batches(values)) / double(values.size());
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

// The row built with as many buckets as the first build: the same graphs, built again.
const StartupRow* rebuilt(const StartupFigures& figures) {
  for (const StartupRow& row : figures.rows) {
    if (row.buckets == figures.first.buckets && figures.first.batches_captured > 0) return &row;
  }
  return nullptr;
}

// The three parts of a build, in this order in every array of them.
constexpr const char* kParts[3] = {"capture", "instantiate", "upload"};
using Parts = std::array<double, 3>;

Parts parts_of(const StartupCell& c) { return {c.capture.median_ms, c.instantiate.median_ms, c.upload.median_ms}; }

Parts parts_of(const FirstBuild& first) { return {first.capture_ms, first.instantiate_ms, first.upload_ms}; }

// Each part under its name: `prefix` + "capture_ms", ...
void add_parts(nlohmann::json& json, const Parts& parts, const std::string& prefix = "") {
  for (std::size_t i = 0; i < parts.size(); ++i) json[prefix + kParts[i] + "_ms"] = parts[i];
}

}  // namespace

void startup_options(StageCli& cli) {
  cli.add_text("startup-buckets",
               "Bucket counts to build, comma-separated, each at most --startup-max-batches; the buckets of each are "
               "spaced evenly over 1..max",
               "8,64,256", "LIST");
  cli.add_int("startup-max-batches", "Largest batch count of a request: the top bucket", kDefaultMaxBatches, 1,
              kMaxMaxBatches);
  cli.add_int("startup-size", "m = n = k of the GEMMs the graphs capture", kDefaultSize, 1, kMaxSize);
  cli.add_int("startup-budget-ms",
              "Startup budget: the conclusion names the first bucket count whose capture + instantiate + upload "
              "of all its graphs exceeds it",
              kDefaultBudgetMs, 1, kMaxBudgetMs);
  cli.add_int("startup-requests", "Request sizes drawn per mix (uniform, skewed) for the padding waste",
              kDefaultRequests, 1, kMaxRequests);
  cli.add_int("startup-rounds", "Times every layout is built; the median is reported", 1, 1, kMaxRounds);
  add_pool_options(cli, PoolFlags{.device_buffers = false});
}

StartupConfig read_startup(const StageCli& cli, CommonOptions& common) {
  StartupConfig config;
  config.max_batches = static_cast<int>(cli.get_int("startup-max-batches"));
  config.bucket_counts.clear();
  for (const long long k :
       parse_distinct_int_list("startup-buckets", cli.get_string("startup-buckets"), 1, kMaxBucketCount)) {
    if (k > config.max_batches) {
      throw UsageError("--startup-buckets: " + std::to_string(k) + " buckets over 1.." +
                       std::to_string(config.max_batches) +
                       " batches would leave some empty; give counts up to --startup-max-batches");
    }
    config.bucket_counts.push_back(static_cast<int>(k));
  }
  std::sort(config.bucket_counts.begin(), config.bucket_counts.end());
  config.size = static_cast<int>(cli.get_int("startup-size"));
  config.budget_ms = double(cli.get_int("startup-budget-ms"));
  config.requests = static_cast<int>(cli.get_int("startup-requests"));
  config.rounds = static_cast<int>(cli.get_int("startup-rounds"));
  common.work = startup_workload(config, config.max_batches);
  config.pool = read_pool_options(cli, common, PoolFlags{.device_buffers = false});
  config.common = common;
  return config;
}

std::vector<int> even_buckets(int buckets, int max_batches) {
  if (buckets < 1 || buckets > max_batches) {
    throw std::invalid_argument("even_buckets: need 1 <= buckets <= max_batches");
  }
  std::vector<int> sizes;
  sizes.reserve(std::size_t(buckets));
  for (long long i = 1; i <= buckets; ++i) {
    // ceil(i * max / K) in integers; distinct because max / K >= 1.
    sizes.push_back(static_cast<int>((i * max_batches + buckets - 1) / buckets));
  }
  return sizes;
}

long long captured_batches(int buckets, int max_batches) {
  return requested_batches(even_buckets(buckets, max_batches));
}

std::vector<int> request_sizes(RequestMix mix, int requests, int max_batches, std::uint64_t seed) {
  if (mix == RequestMix::uniform) return request_sequence(requests, max_batches, seed);
  if (requests < 0) throw std::invalid_argument("request_sizes: requests must be >= 0");
  if (max_batches < 1) throw std::invalid_argument("request_sizes: max_batches must be >= 1");
  // A stream of its own, apart from the uniform mix's and the data's.
  const std::uint64_t key = splitmix64(seed ^ 0x5ca1ab1e5ca1ab1eull);
  std::vector<int> sizes;
  sizes.reserve(std::size_t(requests));
  for (int i = 0; i < requests; ++i) {
    // u in (0, 1] from the top 53 bits.
    const double u = double((splitmix64(key + std::uint64_t(i)) >> 11) + 1) / 9007199254740992.0;
    const int b = static_cast<int>(std::ceil(double(max_batches) * u * u * u));
    sizes.push_back(std::clamp(b, 1, max_batches));
  }
  return sizes;
}

double padding_waste(const std::vector<int>& requests, const std::vector<int>& sizes) {
  return padding_fraction(requested_batches(requests), padded_batches(requests, sizes));
}

double startup_seconds(const StartupConfig& config, double per_batch_seconds) {
  double batches = 0.0;
  for (int k : config.bucket_counts) batches += double(captured_batches(k, config.max_batches));
  const double elements = double(config.size) * double(config.size);
  const double fill = batches * elements * kFillSecondsPerElement;  // the separate buffers only
  const double per_batch = kBuildSecondsPerBatch + per_batch_seconds;
  // The first build: the most buckets once more, on the shared pool.
  const double first =
      config.bucket_counts.empty() ? 0.0 : double(captured_batches(config.bucket_counts.back(), config.max_batches));
  return config.rounds * (2.0 * batches * per_batch + fill) + first * per_batch;
}

// ---- verdicts -------------------------------------------------------------------

const char* to_string(BufferLayout layout) { return layout == BufferLayout::shared ? "shared" : "separate"; }

void fill_padding(StartupFigures& figures) {
  const StartupConfig& c = figures.config;
  const std::vector<int> uniform = request_sizes(RequestMix::uniform, c.requests, c.max_batches, c.common.seed);
  const std::vector<int> skewed = request_sizes(RequestMix::skewed, c.requests, c.max_batches, c.common.seed);
  figures.mean_uniform = mean(uniform);
  figures.mean_skewed = mean(skewed);
  for (StartupRow& row : figures.rows) {
    row.waste_uniform = padding_waste(uniform, row.sizes);
    row.waste_skewed = padding_waste(skewed, row.sizes);
  }
}

BudgetPlace budget_place(const StartupFigures& figures, BufferLayout layout) {
  const auto over = std::find_if(figures.rows.begin(), figures.rows.end(), [&](const StartupRow& row) {
    return row.cell(layout).total.median_ms > figures.config.budget_ms;
  });
  const auto within = static_cast<std::size_t>(over - figures.rows.begin());  // the rows within the budget
  BudgetPlace place;
  if (over != figures.rows.end()) place.first_over = within;
  if (within > 0) place.most_within = within - 1;
  return place;
}

Verdict budget_verdict(const StartupFigures& figures) {
  const BudgetPlace v = budget_place(figures, kBudgetLayout);
  const BudgetPlace separate = budget_place(figures, BufferLayout::separate);
  // Each bucket count's total on both layouts ("shared_total_ms_k256"), and
  // the bucket counts the sentence names, where there are such.
  nlohmann::json shown = nlohmann::json::object();
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) {
      shown[std::string(to_string(layout)) + "_total_ms_k" + std::to_string(row.buckets)] =
          row.cell(layout).total.median_ms;
    }
  }
  const std::pair<const char*, std::optional<std::size_t>> named[] = {
      {"first_over_buckets", v.first_over},
      {"most_within_buckets", v.most_within},
      {"separate_first_over_buckets", separate.first_over}};
  for (const auto& [name, index] : named) {
    if (index) shown[name] = figures.rows[*index].buckets;
  }
  const Verdict verdict{
      .id = "startup.budget", .figures = shown, .threshold = {{"budget_ms", figures.config.budget_ms}}};
  if (figures.rows.empty()) return decided(verdict, "none_built", "no bucket count was built");
  const std::string budget = fixed(figures.config.budget_ms, 0) + " ms budget";
  // The separate layout's place in a few words, for the bracket.
  std::string clause = "separate buffers per bucket: none over";
  if (separate.first_over) {
    const StartupRow& row = figures.rows[*separate.first_over];
    clause = "separate buffers per bucket: " + buckets_text(row) + " first, at " +
             fixed(row.separate.total.median_ms, 0) + " ms";
  }
  const StartupRow& fewest = figures.rows.front();
  if (!v.first_over) {
    const StartupRow& most = figures.rows[*v.most_within];
    return decided(verdict, "none_over",
                   "no bucket count exceeded the " + budget + " on the shared pool (" + clause + "): all " +
                       buckets_text(most) + " start in " + fixed(most.shared.total.median_ms, 0) + " ms and waste " +
                       waste_text(most) + " padding; more buckets than this could still fit.");
  }
  const StartupRow& over = figures.rows[*v.first_over];
  if (!v.most_within) {
    return decided(verdict, "all_over",
                   "even " + buckets_text(over) + " exceed the " + budget + " on the shared pool (" +
                       fixed(over.shared.total.median_ms, 0) + " ms; " + clause + ")" +
                       ": fewer buckets, a smaller top bucket or a larger budget; they waste " + waste_text(over) +
                       " padding.");
  }
  const StartupRow& within = figures.rows[*v.most_within];
  return decided(verdict, "first_over",
                 std::to_string(over.buckets) + " buckets are the first over the " + budget + " on the shared pool (" +
                     fixed(over.shared.total.median_ms, 0) + " ms; " + clause + "); the most buckets within it, " +
                     std::to_string(within.buckets) + ", start in " + fixed(within.shared.total.median_ms, 0) +
                     " ms and waste " + waste_text(within) + " padding" +
                     (*v.most_within == 0 ? std::string(".")
                                          : ", against " + waste_text(fewest) + " with " + buckets_text(fewest) + "."));
}

Verdict parts_verdict(const StartupFigures& figures) {
  Verdict verdict{.id = "startup.parts", .outcome = "nothing_timed", .sentence = "nothing was timed"};
  if (figures.rows.empty()) return verdict;
  const StartupRow& row = figures.rows.back();
  const Parts parts = parts_of(row.shared);
  const double per_graph = ms_per_graph(row, BufferLayout::shared);
  const double per_batch = us_per_batch(row, BufferLayout::shared);
  verdict.figures = {{"buckets", row.buckets}, {"ms_per_graph", per_graph}, {"us_per_batch", per_batch}};
  add_parts(verdict.figures, parts);
  const double sum = parts[0] + parts[1] + parts[2];
  if (sum <= 0.0) return verdict;
  const auto largest = std::size_t(std::max_element(parts.begin(), parts.end()) - parts.begin());
  std::string shares;
  for (std::size_t i = 0; i < 3; ++i) {
    shares += std::string(i == 0 ? "" : ", ") + kParts[i] + " " + percent(parts[i] / sum);
  }
  return decided(verdict, kParts[largest],
                 std::string(kParts[largest]) + " is the largest part of starting " + buckets_text(row) + " (" +
                     shares + "): " + fixed(per_graph, 2) + " ms per graph, " + fixed(per_batch, 1) +
                     " us per batch captured.");
}

std::optional<Verdict> first_build_verdict(const StartupFigures& figures) {
  const StartupRow* again = rebuilt(figures);
  if (again == nullptr) return std::nullopt;
  const FirstBuild& first = figures.first;
  const Parts firsts = parts_of(first);
  const Parts agains = parts_of(again->shared);
  const double first_ms = first.total_ms();
  const double again_ms = again->shared.total.median_ms;
  Verdict verdict{.id = "startup.first_build",
                  .figures = {{"buckets", first.buckets},
                              {"first_ms", first_ms},
                              {"again_ms", again_ms},
                              {"first_over_again", again_ms > 0.0 ? first_ms / again_ms : 0.0}},
                  .threshold = {{"ratio", kFirstBuildRatioThreshold}}};
  add_parts(verdict.figures, firsts, "first_");
  add_parts(verdict.figures, agains, "again_");
  const std::string text = "the process's first build of " + plural(first.buckets, "graph") + " took " +
                           fixed(first_ms, 0) + " ms against " + fixed(again_ms, 0) +
                           " ms for the same graphs built again";
  if (first_ms <= 0.0 || again_ms <= 0.0) return decided(verdict, "not_timed", text + ".");
  const double ratio = first_ms / again_ms;
  const bool dearer = ratio > kFirstBuildRatioThreshold;
  if (!dearer && ratio >= 1.0 / kFirstBuildRatioThreshold) {
    return decided(verdict, "same",
                   text + " (within " + percent(kFirstBuildRatioThreshold - 1.0) +
                       "): the table's figures hold for a fresh process too.");
  }
  // The part that moved the most the way the total did.
  Parts moved{};
  for (std::size_t i = 0; i < 3; ++i) moved[i] = dearer ? firsts[i] - agains[i] : agains[i] - firsts[i];
  const auto part = std::size_t(std::max_element(moved.begin(), moved.end()) - moved.begin());
  const std::string bracket =
      std::string(kParts[part]) + " " + fixed(firsts[part], 0) + " against " + fixed(agains[part], 0) + " ms";
  if (dearer) {
    return decided(verdict, "dearer",
                   text + " (" + fixed(ratio, 1) + "x; " + bracket +
                       "): a fresh process's startup costs more than the table's figures, which are "
                       "of graphs built after it.");
  }
  return decided(
      verdict, "cheaper",
      text + " (" + fixed(1.0 / ratio, 1) + "x less; " + bracket + "): here the first build was the cheaper one.");
}

Verdict memory_verdict(const StartupFigures& figures) {
  Verdict verdict{.id = "startup.memory", .threshold = {{"ratio", kMemoryRatioThreshold}}};
  if (figures.rows.empty()) return decided(verdict, "none_built", "no bucket count was built");
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
           " of device memory (about " + fixed(double(graphs) / first.buckets / 1024.0, 0) + " KiB each, " +
           fixed(double(graphs) / double(first.batches_captured) / 1024.0, 1) + " KiB per batch captured)";
  }
  const std::int64_t shared_bytes = row.shared.buffer_bytes + graphs;
  const std::int64_t separate_bytes = row.separate.buffer_bytes + graphs;
  const double shared = double(shared_bytes);
  const double separate = double(separate_bytes);
  verdict.figures = {{"buckets", row.buckets},
                     {"exec_bytes", graphs},
                     {"shared_bytes", shared_bytes},
                     {"separate_bytes", separate_bytes},
                     {"separate_over_shared", shared > 0.0 ? separate / shared : 0.0}};
  const std::string what = graphs > 0 ? " (buffers + the same graphs)" : " (buffers)";
  if (shared > 0.0 && separate > kMemoryRatioThreshold * shared) {
    return decided(verdict, "separate_dearer",
                   text + "; separate buffers per bucket take " + mib_text(separate_bytes) + " of device memory" +
                       what + " against " + mib_text(shared_bytes) + " for one shared pool, " +
                       fixed(separate / shared, 1) + "x: share one pool, the graphs run one at a time.");
  }
  return decided(verdict, "same",
                 text + "; separate buffers per bucket take about as much device memory as one shared pool (" +
                     mib_text(separate_bytes) + " against " + mib_text(shared_bytes) + what + ", within " +
                     fixed(kMemoryRatioThreshold, 1) + "x).");
}

// ---- the report -------------------------------------------------------------------

namespace {

// A build's parts and total in ms ("capture_ms", ...) and its check.
nlohmann::json build_json(const Parts& parts, double total_ms, const VerifyResult& check) {
  nlohmann::json out = {{"total_ms", total_ms}, {"verified", check.passed}, {"batches_checked", check.batches_checked}};
  add_parts(out, parts);
  if (!check.passed) out["failure"] = check.message();
  return out;
}

nlohmann::json cell_json(const StartupRow& row, BufferLayout layout) {
  const StartupCell& c = row.cell(layout);
  nlohmann::json out = build_json(parts_of(c), c.total.median_ms, c.check);
  out.update({{"total_min_ms", c.total.min_ms},
              {"total_max_ms", c.total.max_ms},
              {"rounds", c.total.samples},
              {"ms_per_graph", ms_per_graph(row, layout)},
              {"us_per_batch", us_per_batch(row, layout)},
              {"launches_ms", c.launches.median_ms},
              {"buffer_bytes", c.buffer_bytes}});
  return out;
}

void fill_result(const StartupConfig& config, const StartupFigures& figures, StageResult& result) {
  result.config = pool_result(result.device, config.common, config.pool).config;
  result.config["device_buffers"] = "per-batch";
  std::vector<const VerifyResult*> checks;
  const FirstBuild& first = figures.first;
  if (first.batches_captured > 0) {
    result.measurements.push_back(
        cost("startup_first_build",
             {{"buckets", first.buckets}, {"layout", "shared"}, {"batches_captured", first.batches_captured}},
             summarize({Millis{first.total_ms()}})));
    checks.push_back(&first.check);
  }
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) {
      const StartupCell& c = row.cell(layout);
      const nlohmann::json params = {
          {"buckets", row.buckets}, {"layout", to_string(layout)}, {"batches_captured", row.batches_captured}};
      result.measurements.push_back(cost("startup_capture", params, c.capture));
      result.measurements.push_back(cost("startup_instantiate", params, c.instantiate));
      result.measurements.push_back(cost("startup_upload", params, c.upload));
      result.measurements.push_back(cost("startup_total", params, c.total));
      result.measurements.push_back(checked("startup_launches", params, c.launches, Work{}, c.check));
      checks.push_back(&c.check);
      const std::string key = std::string("startup_") + to_string(layout);
      const std::string k = "_k" + std::to_string(row.buckets);
      result.bounds[key + "_ms_per_graph" + k] = ms_per_graph(row, layout);
      result.bounds[key + "_us_per_batch" + k] = us_per_batch(row, layout);
    }
  }
  if (!checks.empty()) set_verdict(result, *checks.front(), checks);
}

// One line of the table: a bucket count (its row) and a layout.
struct Line {
  const StartupRow* row;
  BufferLayout layout;
  const StartupCell& cell() const { return row->cell(layout); }
};

Table startup_table(const StartupFigures& figures) {
  const std::vector<Column<Line>> columns = {
      {"K", [](const Line& l) { return std::to_string(l.row->buckets); }},
      {"buffers", [](const Line& l) { return std::string(to_string(l.layout)); }},
      {"batches", [](const Line& l) { return std::to_string(l.row->batches_captured); }},
      {"capture", [](const Line& l) { return figure(l.cell().capture.median_ms, 1); }},
      {"instantiate", [](const Line& l) { return figure(l.cell().instantiate.median_ms, 1); }},
      {"upload", [](const Line& l) { return figure(l.cell().upload.median_ms, 1); }},
      {"total", [](const Line& l) { return figure(l.cell().total.median_ms, 1); }},
      {"per graph", [](const Line& l) { return figure(ms_per_graph(*l.row, l.layout), 2); }},
      {"buffers MiB", [](const Line& l) { return fixed(mib(l.cell().buffer_bytes), 1); }},
  };
  std::vector<Line> lines;
  for (const StartupRow& row : figures.rows) {
    for (BufferLayout layout : kAllBufferLayouts) lines.push_back({&row, layout});
  }
  return table_of(columns, lines);
}

}  // namespace

void report_startup(const StartupConfig& config, const StartupFigures& figures, Report& report) {
  fill_result(config, figures, report.result);
  count_checked_runs(report);
  const StartupConfig& c = figures.config;
  std::ostream& out = report.out();
  out << "naive GEMMs, " << to_string(config.common.host_memory) << " host memory, a pool of "
      << plural(config.pool.streams, "stream") << ", one device A and C per batch; every graph launched once "
      << "and verified\n";
  out << "K buckets over 1.." << plural(c.max_batches, "batch") << " (bucket i holds ceil(i * " << c.max_batches
      << " / K)), one graph of naive " << c.size << "^3 GEMMs each; host ms summed over the K graphs";
  if (c.rounds > 1) out << ", median of " << c.rounds << " rounds";
  out << ":\n";
  report.table(startup_table(figures));
  const FirstBuild& first = figures.first;
  if (first.batches_captured > 0) {
    out << "the first build, before the rows: " << first.buckets << " shared, " << first.batches_captured
        << " batches, capture " << figure(first.capture_ms, 1) << ", instantiate " << figure(first.instantiate_ms, 1)
        << ", upload " << figure(first.upload_ms, 1) << ", total " << figure(first.total_ms(), 1) << " ms; its execs "
        << fixed(mib(first.graph_bytes), 1) << " MiB of device memory, which the driver keeps for the rows' graphs\n";
  }
  out << "padding waste, uniform / skewed:";
  for (const StartupRow& row : figures.rows) {
    out << (&row == &figures.rows.front() ? " " : ", ") << "K=" << row.buckets << " " << percent(row.waste_uniform)
        << " / " << percent(row.waste_skewed);
  }
  out << "\n  " << plural(c.requests, "request") << " per mix, each in the smallest bucket >= it: uniform "
      << mix_text(RequestMix::uniform, c.max_batches) << " (mean " << fixed(figures.mean_uniform, 1) << "); skewed "
      << mix_text(RequestMix::skewed, c.max_batches) << " (mean " << fixed(figures.mean_skewed, 1) << ")\n\n";
  std::vector<Verdict> verdicts = {budget_verdict(figures)};
  if (!figures.rows.empty()) {
    verdicts.push_back(parts_verdict(figures));
    if (std::optional<Verdict> again = first_build_verdict(figures)) verdicts.push_back(std::move(*again));
    verdicts.push_back(memory_verdict(figures));
  }
  nlohmann::json conclusion = nlohmann::json::array();
  for (Verdict& verdict : verdicts) conclusion.push_back(report.verdict(std::move(verdict)).sentence);

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
  auto buckets_or_null = [&](std::optional<std::size_t> index) {
    return index ? nlohmann::json(figures.rows[*index].buckets) : nlohmann::json(nullptr);
  };
  for (BufferLayout layout : kAllBufferLayouts) {
    const BudgetPlace v = budget_place(figures, layout);
    first_over[to_string(layout)] = buckets_or_null(v.first_over);
    most_within[to_string(layout)] = buckets_or_null(v.most_within);
  }
  nlohmann::json first_json = build_json(parts_of(first), first.total_ms(), first.check);
  first_json.update({{"buckets", first.buckets},
                     {"layout", "shared"},
                     {"batches_captured", first.batches_captured},
                     {"graph_bytes", first.graph_bytes},
                     {"graph_bytes_per_graph", first.buckets > 0 ? double(first.graph_bytes) / first.buckets : 0.0}});
  report.sections["startup"] = {
      {"bucket_layout", "even"},
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
      {"first_build", first_json},
      {"rows", rows},
      {"first_over_budget", first_over},
      {"most_within_budget", most_within},
      {"conclusion", conclusion}};
}

// ---- the measurement ------------------------------------------------------------

namespace {

// Free device memory (cudaMemGetInfo) after a device synchronise.
std::int64_t free_device_bytes() {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

// One round of one layout at one bucket count.
struct BuildFigures {
  Millis capture{0};
  Millis instantiate{0};
  Millis upload{0};
  Millis launches{0};
  std::int64_t graph_bytes = 0;
  std::int64_t buffer_bytes = 0;
  VerifyResult check;
  Millis total() const { return capture + instantiate + upload; }
};

// Builds the graphs of `sizes` on `layout`'s buffers, then launches and verifies each once.
BuildFigures build(const std::vector<int>& sizes, BufferLayout layout, const StartupConfig& config,
                   const StreamPool& pool, const Gemm& gemm, BatchBuffers& shared) {
  BuildFigures out;
  const cudaStream_t stream = pool[0];
  std::vector<std::unique_ptr<BatchBuffers>> own;  // separate: one set per bucket
  if (layout == BufferLayout::separate) {
    for (int size : sizes) {
      const Workload work = startup_workload(config, size);
      own.push_back(std::make_unique<BatchBuffers>(work, shared.host_kind(), 0));
      own.back()->fill_inputs(config.common.seed);
      // Counted, not read from cudaMemGetInfo, which sees every process on the GPU.
      out.buffer_bytes += static_cast<std::int64_t>(memory_needs(work, shared.host_kind(), 0).device_bytes);
    }
  }
  auto buffers_of = [&](std::size_t i) -> BatchBuffers& {
    return layout == BufferLayout::separate ? *own[i] : shared;
  };
  const std::int64_t before_graphs = free_device_bytes();
  std::vector<GraphExec> execs;
  execs.reserve(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const BatchOps ops = batch_ops(buffers_of(i), gemm);
    const HostTimer capture_timer;
    const Graph graph = capture_batches(ops, pool, sizes[i]);
    out.capture += capture_timer.elapsed();
    const HostTimer instantiate_timer;
    execs.push_back(instantiate(graph));
    out.instantiate += instantiate_timer.elapsed();
    out.upload += host_synchronised(stream, [&] { CUDA_CHECK(cudaGraphUpload(execs.back().get(), stream)); });
  }
  out.graph_bytes = before_graphs - free_device_bytes();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    buffers_of(i).poison_first(sizes[i], stream);
    out.launches += host_synchronised(stream, [&] { launch(execs[i], pool); });
    fold_check(out.check, buffers_of(i).verify_first(config.common.seed, sizes[i]));
  }
  return out;
}

void summarise(StartupCell& cell, const std::vector<BuildFigures>& rounds) {
  auto over_rounds = [&rounds](auto part) {  // a member or a member function of BuildFigures
    std::vector<Millis> samples;
    for (const BuildFigures& r : rounds) samples.push_back(std::invoke(part, r));
    return summarize(samples);
  };
  cell.capture = over_rounds(&BuildFigures::capture);
  cell.instantiate = over_rounds(&BuildFigures::instantiate);
  cell.upload = over_rounds(&BuildFigures::upload);
  cell.total = over_rounds(&BuildFigures::total);
  cell.launches = over_rounds(&BuildFigures::launches);
  for (const BuildFigures& r : rounds) fold_check(cell.check, r.check);
  cell.buffer_bytes = rounds.back().buffer_bytes;
}

// One untimed graph of 1 batch (module loading stays out of the figures),
// the first build, then per round and bucket count the shared pool's K graphs
// and the separate buffers' (interleaved, so a slow moment hits both alike);
// docs/startup.md says what each step times.
StartupFigures measure_startup(const StartupConfig& config) {
  const Gemm gemm;  // the article's kernel: the graphs' node count is what startup pays for
  const StreamPool pool(config.pool.streams);
  prepare_pool(gemm, pool);
  const CommonOptions& common = config.common;
  BatchBuffers shared(common.work, common.host_memory, 0);  // the top bucket's batches, one device slot each
  // What the pool allocated, counted (cudaMemGetInfo sees every process on the GPU).
  const auto shared_bytes = static_cast<std::int64_t>(memory_needs(common.work, common.host_memory, 0).device_bytes);
  progress("filling " + plural(config.max_batches, "batch"));
  shared.fill_inputs(common.seed);
  auto builder = [&](const std::vector<int>& sizes, BufferLayout layout) {
    return build(sizes, layout, config, pool, gemm, shared);
  };
  StartupFigures figures;
  figures.config = config;

  // The process's first capture, instantiate, upload and launch, untimed (and verified).
  const BuildFigures one = builder({1}, BufferLayout::shared);
  if (!one.check.passed) throw std::runtime_error("the first graph of 1 batch: " + one.check.message());

  // The process's first build of the most buckets: what a fresh engine pays,
  // and the device memory its execs take, which the driver keeps for the
  // graphs built after them (so the rows below all start from the same state).
  const int most = config.bucket_counts.back();
  progress("startup: the first build, " + plural(most, "bucket") + " on the shared pool");
  const BuildFigures cold = builder(even_buckets(most, config.max_batches), BufferLayout::shared);
  figures.first = {.buckets = most, .batches_captured = captured_batches(most, config.max_batches),
                   .capture_ms = cold.capture.count(), .instantiate_ms = cold.instantiate.count(),
                   .upload_ms = cold.upload.count(), .graph_bytes = cold.graph_bytes, .check = cold.check};

  std::vector<StartupRow>& rows = figures.rows;
  for (int k : config.bucket_counts) {
    StartupRow& row = rows.emplace_back();
    row.buckets = k;
    row.sizes = even_buckets(k, config.max_batches);
    row.batches_captured = requested_batches(row.sizes);
  }
  // rounds[i][layout]: row i's builds on that layout, one per round.
  std::vector<std::array<std::vector<BuildFigures>, 2>> rounds(rows.size());
  for (int round = 0; round < config.rounds; ++round) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      throw_if_interrupted("the startup experiment");
      progress("startup: " + plural(rows[i].buckets, "bucket") + ", " + plural(rows[i].batches_captured, "batch") +
               " captured per layout" + (config.rounds > 1 ? ", round " + std::to_string(round + 1) : ""));
      for (BufferLayout layout : kAllBufferLayouts) {
        rounds[i][std::size_t(layout)].push_back(builder(rows[i].sizes, layout));
      }
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (BufferLayout layout : kAllBufferLayouts) summarise(rows[i].cell(layout), rounds[i][std::size_t(layout)]);
    rows[i].shared.buffer_bytes = shared_bytes;  // allocated once, before everything
  }
  fill_padding(figures);
  return figures;
}

// ---- the declaration -------------------------------------------------------------

// The shared pool, and the largest bucket count's separate buffers beside it.
Needs needs(const StartupConfig& config) {
  const HostMemory host = config.common.host_memory;
  long long most = 0;
  for (int k : config.bucket_counts) most = std::max(most, captured_batches(k, config.max_batches));
  const MemoryNeeds shared = memory_needs(startup_workload(config, config.max_batches), host, 0);
  MemoryNeeds separate = memory_needs(startup_workload(config, int(std::min<long long>(most, 1 << 30))), host, 0);
  // Each bucket's buffers hold their own B.
  separate.device_bytes += std::uint64_t(config.bucket_counts.back()) * startup_workload(config, 1).b_bytes();
  return {combined(shared, separate), "try a smaller --startup-max-batches, --startup-size or fewer --startup-buckets"};
}

// The run at this GPU's rates: one batch's GPU time in a pipeline and about
// as long again for the host's poison and check, with a floor of a few µs
// per batch for the check of a tiny GEMM.
csg::Estimate estimate(const StartupConfig& config, int /*device*/) {
  const bool pageable = config.common.host_memory == HostMemory::pageable;
  const GemmShape shape{config.size, config.size, config.size};
  const WorkSeconds batch = work_seconds(Workload{1, shape}, measure_rates(Gemm{}, shape), pageable);
  return {startup_seconds(config, 2.0 * batch.overlapped() + 5e-6),
          "graphs of " + plural(static_cast<long long>(config.bucket_counts.size()), "bucket count") + " over 1.." +
              plural(config.max_batches, "batch") + ", two ways"};
}

// .defaults: --startup-size sets the shape, the buckets the batch counts; --startup-rounds its rounds.
const Experiment<StartupConfig, StartupFigures> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = own_workload_defaults(/*rounds=*/false), .options = startup_options, .read = read_startup,
    .needs = needs, .estimate = estimate, .measure = measure_startup, .report = report_startup};

}  // namespace

extern const Subcommand kStartup = make_subcommand<kExperiment>();

}  // namespace csg::graphs
