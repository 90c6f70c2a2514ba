#include "04_graph_capture_gemm/lab/conditional/conditional.hpp"
#include "04_graph_capture_gemm/lab/conditional/conditional_kernels.hpp"

#include "04_graph_capture_gemm/lab/changing_shapes_plan.hpp"
#include "04_graph_capture_gemm/lab/options.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"

namespace csg::graphs {

// ---- plain facts of the study -----------------------------------------------------

const char* to_string(LoopBody body) { return body == LoopBody::gemm ? "gemm" : "empty"; }

int bucket_of(int size, const std::vector<int>& buckets) {
  const auto it = std::find_if(buckets.begin(), buckets.end(), [size](int bucket) { return size <= bucket; });
  return it == buckets.end() ? -1 : static_cast<int>(it - buckets.begin());
}

std::vector<int> request_sizes(int count, int largest, std::uint64_t seed) {
  return request_sequence(count, largest, seed, 0xC0D17105ull);
}

namespace {

constexpr const char* kAbout = R"(
conditional: conditional nodes: a WHILE loop and a SWITCH bucket choice decided on the GPU

Conditional graph nodes: a WHILE node running a loop body (a small GEMM and a counter step, or the
step alone) until a device-side condition ends it, against a host loop of kernel launches, a host
loop of graph launches, one unrolled graph, and the host deciding each iteration from a value it
copies back; total and per-iteration cost for each N. Then a SWITCH node choosing each request's
shape bucket on the device, against the host reading the size back and launching that bucket's
graph. Needs CUDA 12.3 (WHILE) and 12.8 (SWITCH) in driver and runtime; exits 77 without them.
)";

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr const char* kRuns = R"(
# WHILE and SWITCH nodes; N to 1,000 by default, to 10,000 with --full
q   -           --cond-iterations 10,100,1000 --warmup 1 --repeats 3
fc  -
t   tiny        --cond-iterations 1,3,20 --cond-size 17 --cond-unroll-max 3 --cond-buckets 8,24,33 --cond-requests 9 --warmup 1 --repeats 2
t   while_only  --cond-iterations 2,7 --cond-size 8 --cond-unroll-max 0 --cond-requests 0 --warmup 0 --repeats 1
m   -           --cond-iterations 1,4 --cond-size 8 --cond-buckets 4,8 --cond-requests 5 --warmup 0 --repeats 1
)";

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::vector<int> sorted_list(const StageCli& cli, const char* flag, long long largest) {
  const std::vector<long long> values = parse_distinct_int_list(flag, cli.get_string(flag), 1, largest);
  std::vector<int> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// ---- verdicts -----------------------------------------------------------------------

// How the WHILE node fares against one rival at one N: the rival's time
// over the node's; wins at kClearMargin and above, costs more at
// 1 / kClearMargin and below, even between.
enum class Outcome { wins, costs_more, even };

// Each outcome's id, its words in the WHILE node's verdicts, and the SWITCH verdict's opening (by Outcome).
struct Words {
  Outcome outcome;
  const char* id;
  const char* phrase;
  const char* switch_says;
};
constexpr Words kWords[] = {
    {Outcome::wins, "wins", "wins", "the SWITCH node wins, with no host round trip: "},
    {Outcome::costs_more, "costs_more", "costs more", "the SWITCH node costs more than the host's choice: "},
    {Outcome::even, "even", "within 10%", "within 10%: the SWITCH node does not pay off here: "}};
static_assert(kWords[int(Outcome::wins)].outcome == Outcome::wins &&
                  kWords[int(Outcome::costs_more)].outcome == Outcome::costs_more &&
                  kWords[int(Outcome::even)].outcome == Outcome::even,
              "kWords is indexed by Outcome");

Outcome outcome_of(double rival_ms, double while_ms) {
  if (rival_ms >= kClearMargin * while_ms) return Outcome::wins;
  if (rival_ms * kClearMargin <= while_ms) return Outcome::costs_more;
  return Outcome::even;
}

bool measured(const LoopPoint& point, int variant) { return variant != kUnrolled || point.unrolled_measured; }

struct Versus {
  std::vector<int> ns;
  std::vector<double> ratios;  // rival / WHILE node
  std::vector<Outcome> outcomes;
};

Versus versus(const LoopFigures& figures, LoopVariant rival) {
  Versus v;
  for (const LoopPoint& point : figures.points) {
    if (!measured(point, rival)) continue;
    const double node = point.variant[kWhileNode].median_ms;
    const double other = point.variant[rival].median_ms;
    v.ns.push_back(point.iterations);
    v.ratios.push_back(node > 0.0 ? other / node : 0.0);
    v.outcomes.push_back(outcome_of(other, node));
  }
  return v;
}

bool all_are(const Versus& v, Outcome outcome, std::size_t from = 0) {
  return std::all_of(v.outcomes.begin() + static_cast<std::ptrdiff_t>(from), v.outcomes.end(),
                     [outcome](Outcome o) { return o == outcome; });
}

// The first index from which every outcome is `outcome` and none before is;
// nothing when there is no such proper suffix.
std::optional<std::size_t> from_on(const Versus& v, Outcome outcome) {
  const auto first = static_cast<std::size_t>(std::find(v.outcomes.begin(), v.outcomes.end(), outcome) -
                                              v.outcomes.begin());
  if (first == 0 || first == v.outcomes.size() || !all_are(v, outcome, first)) return std::nullopt;
  return first;
}

std::string ratio_range(const Versus& v, std::size_t from = 0) {
  const auto [low, high] = std::minmax_element(v.ratios.begin() + static_cast<std::ptrdiff_t>(from), v.ratios.end());
  if (fixed(*low, 2) == fixed(*high, 2)) return fixed(*low, 2) + "x";
  return fixed(*low, 2) + "x to " + fixed(*high, 2) + "x";
}

std::string ns_with(const Versus& v, Outcome outcome) {
  std::string out;
  for (std::size_t i = 0; i < v.ns.size(); ++i) {
    if (v.outcomes[i] == outcome) out += (out.empty() ? "" : ", ") + std::to_string(v.ns[i]);
  }
  return out;
}

// The outcome's word, and the phrase that says it with the ratios.
std::pair<std::string, std::string> versus_words(const Versus& v) {
  if (v.ns.empty()) return {"not_measured", "not measured (every N above --cond-unroll-max)"};
  for (const Words& w : kWords) {
    if (all_are(v, w.outcome)) return {w.id, std::string(w.phrase) + " at every N (" + ratio_range(v) + ")"};
  }
  for (const Words& w : {kWords[0], kWords[1]}) {  // wins, costs more: from some N on
    if (const std::optional<std::size_t> i = from_on(v, w.outcome)) {
      return {std::string(w.id) + "_from",
              std::string(w.phrase) + " from N = " + std::to_string(v.ns[*i]) + " on (" + ratio_range(v, *i) + ")"};
    }
  }
  std::string text = "mixed:";
  for (const Words& w : kWords) {
    const std::string ns = ns_with(v, w.outcome);
    if (!ns.empty()) text += " " + std::string(w.phrase) + " at N = " + ns + ";";
  }
  text.pop_back();
  return {"mixed", text + " (" + ratio_range(v) + ")"};
}

constexpr const char* kRivals[kLoopVariants] = {"", "a host loop of kernel launches", "a host loop of graph launches",
                                                "one unrolled graph", "the host deciding each iteration"};

const nlohmann::json kMargin = {{"clear_margin", kClearMargin}};

// ---- result, JSON, screen -----------------------------------------------------------

// "gemm_while_node": the body and the variant, in measurement and bound names.
std::string variant_name(LoopBody body, int variant) {
  return std::string(to_string(body)) + "_" + kLoopVariantNames[variant];
}

// Each variant's fit through a body's points (loop_fit).
std::array<LineFit, kLoopVariants> fits_of(const LoopFigures& figures) {
  std::array<LineFit, kLoopVariants> fits;
  for (int v = 0; v < kLoopVariants; ++v) fits[v] = loop_fit(figures, static_cast<LoopVariant>(v));
  return fits;
}

void fill_result(const ConditionalConfig& config, const ConditionalCosts& costs, StageResult& result) {
  result.config = config_json(config.common);
  result.config.update({{"cond_iterations", config.iterations},
                        {"cond_size", config.size},
                        {"cond_unroll_max", config.unroll_max},
                        {"cond_buckets", config.buckets},
                        {"cond_requests", config.requests}});
  const bool passed = costs.checked && std::all_of(costs.gemm_checks.begin(), costs.gemm_checks.end(),
                                                   [](const VerifyResult& check) { return check.passed; });
  const double gemm_flops = 2.0 * config.size * config.size * double(config.size);
  for (const LoopFigures& figures : costs.loops) {
    for (const LoopPoint& point : figures.points) {
      const double flops = figures.body == LoopBody::gemm ? gemm_flops * point.iterations : 0.0;
      for (int v = 0; v < kLoopVariants; ++v) {
        if (!measured(point, v)) continue;
        result.measurements.push_back(checked_without_digest("cond_" + variant_name(figures.body, v),
                                                             {{"iterations", point.iterations}},
                                                             point.variant[v], Work{0.0, flops}, passed));
      }
    }
    const std::array<LineFit, kLoopVariants> fits = fits_of(figures);
    for (int v = 0; v < kLoopVariants; ++v) {
      if (fits[v].points > 0) result.bounds[variant_name(figures.body, v) + "_us_per_iteration"] = fits[v].per_op_us;
    }
  }
  const SwitchFigures& sw = costs.switch_node;
  if (sw.measured) {
    const nlohmann::json params = {{"requests", sw.requests}, {"buckets", config.buckets}};
    result.measurements.push_back(checked_without_digest("switch_device_chosen", params, sw.device_chosen, {}, passed));
    result.measurements.push_back(checked_without_digest("switch_host_chosen", params, sw.host_chosen, {}, passed));
    result.bounds["switch_device_us_per_request"] = per_op_us(sw.device_chosen, sw.requests);
    result.bounds["switch_host_us_per_request"] = per_op_us(sw.host_chosen, sw.requests);
  }
  VerifyResult whole;
  whole.passed = true;
  whole.method = costs.gemm_checks.empty() ? "device counters" : "freivalds+sampled and device counters";
  std::vector<const VerifyResult*> checks;
  for (const VerifyResult& check : costs.gemm_checks) {
    checks.push_back(&check);
    whole.batches_checked += check.batches_checked;
  }
  set_verdict(result, whole, checks);
  add_failure(result, costs.checked, "device counters: " + costs.failure);
}

nlohmann::json loop_json(const LoopFigures& figures, const std::vector<Verdict>& verdicts) {
  nlohmann::json body;
  for (const LoopPoint& point : figures.points) {
    nlohmann::json p = {{"iterations", point.iterations}};
    for (int v = 0; v < kLoopVariants; ++v) {
      if (!measured(point, v)) continue;
      p[std::string(kLoopVariantNames[v]) + "_ms"] = point.variant[v].median_ms;
      p[std::string(kLoopVariantNames[v]) + "_us_per_iteration"] = per_op_us(point.variant[v], point.iterations);
    }
    if (point.unrolled_measured) p["unrolled_instantiate_ms"] = point.unrolled_instantiate_ms;
    body["points"].push_back(p);
  }
  const std::array<LineFit, kLoopVariants> fits = fits_of(figures);
  for (int v = 0; v < kLoopVariants; ++v) {
    if (fits[v].points == 0) continue;
    body["fits"][kLoopVariantNames[v]] = {{"per_iteration_us", fits[v].per_op_us}, {"fixed_us", fits[v].fixed_us},
                                          {"r2", fits[v].r2}, {"points", fits[v].points}};
  }
  for (const Verdict& verdict : verdicts) {
    body["while_node_versus"][verdict.id.substr(verdict.id.rfind('.') + 1)] = verdict.outcome;
  }
  return body;
}

// A body's table: one row per variant, its time at every N and its fit.
Table loop_table(const LoopFigures& figures) {
  const std::array<LineFit, kLoopVariants> fits = fits_of(figures);
  std::vector<Column<int>> columns = {
      {std::string(to_string(figures.body)) + " body", [](int v) { return std::string(kLoopVariantNames[v]); }}};
  for (const LoopPoint& point : figures.points) {
    columns.push_back({"N=" + std::to_string(point.iterations) + " ms", [&point](int v) {
                         return measured(point, v) ? figure(point.variant[v].median_ms, 3) : std::string("-");
                       }});
  }
  columns.push_back({"us/iter (fit)", [fits](int v) {
                       return fits[v].points > 0 ? figure(fits[v].per_op_us, 2) : std::string("-");
                     }});
  columns.push_back({"fixed us", [fits](int v) {
                       return has_fixed_part(fits[v]) ? figure(fits[v].fixed_us, 1) : std::string("-");
                     }});
  return table_of(columns, std::array<int, kLoopVariants>{kWhileNode, kKernelLoop, kGraphLoop, kUnrolled, kHostDecided});
}

// A fit whose fixed part fell below zero.
bool below_zero(const ConditionalCosts& costs) {
  for (const LoopFigures& figures : costs.loops) {
    for (const LineFit& fit : fits_of(figures)) {
      if (fit.points > 0 && !has_fixed_part(fit)) return true;
    }
  }
  return false;
}

// ---- the declaration ----------------------------------------------------------------

CommonDefaults defaults() {
  CommonDefaults d = own_workload_defaults();
  // Its few small buffers are pinned, and so is the flag the host-decided loop reads back.
  d.host_memory_choice = false;
  return d;
}

Needs needs(const ConditionalConfig& config) {
  MemoryNeeds needs = memory_needs(config.common.work, HostMemory::pinned);
  for (const int size : config.buckets) {
    needs = combined(needs, memory_needs(Workload{1, GemmShape{size, size, size}}, HostMemory::pinned));
  }
  return {needs, "try smaller --cond-size or --cond-buckets"};
}

csg::Estimate estimate(const ConditionalConfig& config, int /*device*/) {
  int driver = 0;
  int runtime = 0;
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  if (const std::string missing = unsupported_reason(config, driver, runtime); !missing.empty()) {
    throw NoDeviceError(missing);
  }
  const Workload& work = config.common.work;
  const double gemm_seconds = work.flops_per_batch() / measure_rates(Gemm{}, work.shape).kernel_flops_per_s;
  return {conditional_seconds(config, gemm_seconds),
          "WHILE node against host loops: N = " + std::to_string(config.iterations.front()) + " to " +
              std::to_string(config.iterations.back()) +
              (config.requests > 0 ? "; then SWITCH over " + std::to_string(config.requests) + " requests" : "")};
}

const Experiment<ConditionalConfig, ConditionalCosts> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = defaults(), .options = conditional_options, .read = read_conditional, .needs = needs,
    .estimate = estimate, .measure = measure_conditional, .report = report_conditional};

}  // namespace

std::string unsupported_reason(const ConditionalConfig& config, int driver, int runtime) {
  auto missing = [&](const char* what, int needed) -> std::string {
    const bool driver_short = driver < needed;
    return std::string(what) + " need CUDA " + version_text(needed) + " or newer: the " +
           (driver_short ? "driver supports " + version_text(driver) : "runtime is " + version_text(runtime));
  };
  if (driver < kWhileNeedsVersion || runtime < kWhileNeedsVersion) return missing("WHILE nodes", kWhileNeedsVersion);
  if (config.requests > 0 && (driver < kSwitchNeedsVersion || runtime < kSwitchNeedsVersion)) {
    return missing("SWITCH nodes", kSwitchNeedsVersion) + " (--cond-requests 0 runs the WHILE part alone)";
  }
  return "";
}

double conditional_seconds(const ConditionalConfig& config, double gemm_seconds) {
  // A launch costs the host about 4 µs; a host round trip (copy, synchronise) 20 µs; both err long.
  constexpr double kLaunch = 4e-6;
  constexpr double kRoundTrip = 20e-6;
  const double rounds = config.common.plan.warmup + config.common.plan.repeats;
  double total = 0.0;
  for (const double gemm : {0.0, std::max(gemm_seconds, 3e-6)}) {
    const double body = gemm + 2.0 * kLaunch;
    for (const int n : config.iterations) {
      const bool unrolled = n <= config.unroll_max;
      total += rounds * n * ((unrolled ? 4.0 : 3.0) * body + (body + kRoundTrip));
      if (unrolled) total += n * 3.0 * kLaunch;  // capture and instantiate, once
    }
  }
  if (config.requests > 0) {
    const double largest = config.buckets.back() / double(std::max(config.size, 1));
    const double bucket_gemm = std::max(gemm_seconds * largest * largest * largest, 3e-6);
    total += rounds * config.requests * 2.0 * (bucket_gemm + 2.0 * kLaunch + kRoundTrip);
  }
  return total;
}

// ---- options ------------------------------------------------------------------------

void conditional_options(StageCli& cli) {
  cli.add_text("cond-iterations", "loop lengths N, each timed for every variant (at most 100000)",
               "10,100,1000,10000", "LIST");
  cli.add_int("cond-size", "m = n = k of the loop body's GEMM (the article's naive kernel)", 64, 1, 1024);
  cli.add_int("cond-unroll-max", "longest loop also timed as one unrolled graph (0: none)", 10000, 0, 100000);
  cli.add_text("cond-buckets", "the SWITCH part's shape buckets: square GEMM sizes, at most 16", "32,64,128,256",
               "LIST");
  cli.add_int("cond-requests", "requests per SWITCH run (0: no SWITCH part)", 200, 0, 100000);
}

ConditionalConfig read_conditional(const StageCli& cli, CommonOptions& common) {
  ConditionalConfig config;
  config.iterations = sorted_list(cli, "cond-iterations", 100000);
  config.size = static_cast<int>(cli.get_int("cond-size"));
  config.unroll_max = static_cast<int>(cli.get_int("cond-unroll-max"));
  config.buckets = sorted_list(cli, "cond-buckets", 1024);
  if (config.buckets.size() > static_cast<std::size_t>(kMaxBuckets)) {
    throw UsageError("--cond-buckets takes at most " + std::to_string(kMaxBuckets) + " sizes, got " +
                     std::to_string(config.buckets.size()));
  }
  config.requests = static_cast<int>(cli.get_int("cond-requests"));
  common.work = Workload{1, GemmShape{config.size, config.size, config.size}};
  config.common = common;
  return config;
}

LineFit loop_fit(const LoopFigures& figures, LoopVariant variant) {
  std::vector<double> ns;
  std::vector<double> us;
  for (const LoopPoint& point : figures.points) {
    if (!measured(point, variant)) continue;
    ns.push_back(point.iterations);
    us.push_back(1000.0 * point.variant[variant].median_ms);
  }
  return fit_line(ns, us);
}

Verdict versus_verdict(const LoopFigures& figures, LoopVariant rival) {
  const Versus v = versus(figures, rival);
  auto [outcome, phrase] = versus_words(v);
  // rival / WHILE node at each N, by name: "rival_over_while_node_at_100".
  nlohmann::json said = nlohmann::json::object();
  for (std::size_t i = 0; i < v.ns.size(); ++i) {
    said["rival_over_while_node_at_" + std::to_string(v.ns[i])] = v.ratios[i];
  }
  if (const LineFit node = loop_fit(figures, kWhileNode); node.points > 0) {
    said["while_node_us_per_iteration"] = node.per_op_us;
  }
  if (const LineFit other = loop_fit(figures, rival); other.points > 0) {
    said["rival_us_per_iteration"] = other.per_op_us;
  }
  return {.id = std::string("conditional.") + to_string(figures.body) + "." + kLoopVariantNames[rival],
          .outcome = std::move(outcome),
          .figures = std::move(said),
          .threshold = kMargin,
          .sentence = std::string(to_string(figures.body)) + " body, the WHILE node vs " + kRivals[rival] + ": " +
                      phrase};
}

Verdict switch_verdict(const SwitchFigures& figures) {
  if (!figures.measured) {
    return {.id = "conditional.switch", .outcome = "not_run",
            .sentence = "the SWITCH part was not run (--cond-requests 0)"};
  }
  const double device = per_op_us(figures.device_chosen, figures.requests);
  const double host = per_op_us(figures.host_chosen, figures.requests);
  const double ratio = device > 0.0 ? host / device : 0.0;
  const Words& w = kWords[static_cast<int>(outcome_of(figures.host_chosen.median_ms, figures.device_chosen.median_ms))];
  return {.id = "conditional.switch",
          .outcome = w.id,
          .figures = {{"device_us_per_request", device}, {"host_us_per_request", host}, {"host_over_device", ratio}},
          .threshold = kMargin,
          .sentence = w.switch_says + figure(device, 1) + " µs per request against " + figure(host, 1) +
                      " µs when the host reads the size back and launches the bucket's graph (" + fixed(ratio, 2) +
                      "x)"};
}

void report_conditional(const ConditionalConfig& config, const ConditionalCosts& costs, Report& report) {
  fill_result(config, costs, report.result);
  count_checked_runs(report);
  std::ostream& out = report.out();
  const RepeatPlan& plan = config.common.plan;
  out << "a loop of N bodies (a " << config.size << "^3 naive GEMM and a counter step, or the step alone) run 5 ways"
      << (config.unroll_max < config.iterations.back()
              ? " (unrolled up to N = " + std::to_string(config.unroll_max) + ")"
              : std::string())
      << "; median of " << plural(plan.repeats, "run") << " after " << plan.warmup << " warm-up, interleaved\n";
  for (const LoopFigures& figures : costs.loops) {
    out << '\n';
    report.table(loop_table(figures));
  }
  if (below_zero(costs)) {
    out << "fixed us -: the fitted line crosses zero above N = 0, so that loop's fixed part is smaller than the fit "
           "resolves; its slope stands\n";
  }
  const std::vector<LoopPoint>& gemm_points = costs.loops[static_cast<int>(LoopBody::gemm)].points;
  const auto unrolled = std::find_if(gemm_points.rbegin(), gemm_points.rend(),
                                     [](const LoopPoint& point) { return point.unrolled_measured; });
  if (unrolled != gemm_points.rend()) {
    out << "unrolled GEMM loop of N = " << unrolled->iterations << ": capture and instantiate "
        << figure(unrolled->unrolled_instantiate_ms, 2) << " ms, once, not in its times\n";
  }
  out << "\nthe WHILE node against each (time of the other / the WHILE node's; a clear difference is 10% either way):\n";
  nlohmann::json section = {{"iterations", config.iterations},
                            {"size", config.size},
                            {"unroll_max", config.unroll_max},
                            {"clear_margin", kClearMargin},
                            {"counter_checks", costs.counter_checks},
                            {"gemm_checks", costs.gemm_checks.size()}};
  for (const LoopFigures& figures : costs.loops) {
    std::vector<Verdict> verdicts;
    for (const LoopVariant rival : {kHostDecided, kKernelLoop, kGraphLoop, kUnrolled}) {
      out << "  ";
      verdicts.push_back(report.verdict(versus_verdict(figures, rival)));
    }
    section["loops"][to_string(figures.body)] = loop_json(figures, verdicts);
  }
  const SwitchFigures& sw = costs.switch_node;
  if (sw.measured) {
    std::string spread;
    for (std::size_t b = 0; b < sw.per_bucket.size(); ++b) {
      spread += (b == 0 ? "" : ", ") + std::to_string(config.buckets[b]) + ": " + std::to_string(sw.per_bucket[b]);
    }
    out << "\nshape buckets chosen per request (" << plural(sw.requests, "request") << "; requests per bucket "
        << spread << "):\n";
  } else {
    out << '\n';
  }
  const Verdict& chosen = report.verdict(switch_verdict(sw));
  section["switch"] = {{"verdict", chosen.outcome}, {"buckets", config.buckets}, {"requests", config.requests}};
  if (sw.measured) {
    section["switch"]["per_bucket"] = sw.per_bucket;
    section["switch"]["device_us_per_request"] = per_op_us(sw.device_chosen, sw.requests);
    section["switch"]["host_us_per_request"] = per_op_us(sw.host_chosen, sw.requests);
  }
  if (!costs.checked) {
    out << "counter WRONG: " << costs.failure << '\n';
    section["failure"] = costs.failure;
  }
  const auto wrong = std::find_if(costs.gemm_checks.begin(), costs.gemm_checks.end(),
                                  [](const VerifyResult& check) { return !check.passed; });
  if (wrong != costs.gemm_checks.end()) out << "output WRONG: " << wrong->method << '\n';
  report.sections["conditional"] = std::move(section);
}

extern const Subcommand kConditional = make_subcommand<kExperiment>();

}  // namespace csg::graphs
