#include "04_graph_capture_gemm/lab/conditional/conditional_report.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/errors.hpp"
#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/table.hpp"

namespace csg::graphs {

// ---- plain facts of the study -----------------------------------------------------

const char* to_string(LoopBody body) { return body == LoopBody::gemm ? "gemm" : "empty"; }

int bucket_of(int size, const std::vector<int>& buckets) {
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (size <= buckets[b]) return static_cast<int>(b);
  }
  return -1;
}

std::vector<int> request_sizes(int count, int largest, std::uint64_t seed) {
  std::vector<int> sizes;
  sizes.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const std::uint64_t draw = splitmix64(splitmix64(seed ^ 0xC0D17105ull) + static_cast<std::uint64_t>(i));
    sizes.push_back(1 + static_cast<int>(draw % static_cast<std::uint64_t>(largest)));
  }
  return sizes;
}

namespace {

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

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

double conditional_seconds(const ConditionalConfig& config, const RepeatPlan& plan, double gemm_seconds) {
  // A launch costs the host about 4 µs; a host round trip (copy, synchronise) 20 µs; both err long.
  constexpr double kLaunch = 4e-6;
  constexpr double kRoundTrip = 20e-6;
  const double rounds = plan.warmup + plan.repeats;
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

// ---- options --------------------------------------------------------------------

void add_conditional_options(StageCli& cli) {
  cli.add_text("cond-iterations", "loop lengths N, each timed for every variant (at most 100000)",
               "10,100,1000,10000", "LIST");
  cli.add_int("cond-size", "m = n = k of the loop body's GEMM (the article's naive kernel)", 64, 1, 1024);
  cli.add_int("cond-unroll-max", "longest loop also timed as one unrolled graph (0: none)", 10000, 0, 100000);
  cli.add_text("cond-buckets", "the SWITCH part's shape buckets: square GEMM sizes, at most 16", "32,64,128,256",
               "LIST");
  cli.add_int("cond-requests", "requests per SWITCH run (0: no SWITCH part)", 200, 0, 100000);
}

ConditionalConfig read_conditional_options(const StageCli& cli) {
  ConditionalConfig config;
  config.iterations.clear();
  for (const long long n : parse_distinct_int_list("cond-iterations", cli.get_string("cond-iterations"), 1, 100000)) {
    config.iterations.push_back(static_cast<int>(n));
  }
  std::sort(config.iterations.begin(), config.iterations.end());
  config.size = static_cast<int>(cli.get_int("cond-size"));
  config.unroll_max = static_cast<int>(cli.get_int("cond-unroll-max"));
  config.buckets.clear();
  for (const long long b : parse_distinct_int_list("cond-buckets", cli.get_string("cond-buckets"), 1, 1024)) {
    config.buckets.push_back(static_cast<int>(b));
  }
  if (config.buckets.size() > static_cast<std::size_t>(kMaxSwitchBuckets)) {
    throw UsageError("--cond-buckets takes at most " + std::to_string(kMaxSwitchBuckets) + " sizes, got " +
                     std::to_string(config.buckets.size()));
  }
  std::sort(config.buckets.begin(), config.buckets.end());
  config.requests = static_cast<int>(cli.get_int("cond-requests"));
  return config;
}

// ---- conclusions ------------------------------------------------------------------

Outcome outcome_of(double rival_ms, double while_ms) {
  if (rival_ms >= kClearMargin * while_ms) return Outcome::wins;
  if (rival_ms * kClearMargin <= while_ms) return Outcome::costs_more;
  return Outcome::even;
}

double per_iteration_us(const Summary& summary, int iterations) {
  return iterations > 0 ? 1000.0 * summary.median_ms / iterations : 0.0;
}

LineFit loop_fit(const LoopFigures& figures, LoopVariant variant) {
  std::vector<double> ns;
  std::vector<double> us;
  for (const LoopPoint& point : figures.points) {
    if (variant == kUnrolled && !point.unrolled_measured) continue;
    ns.push_back(point.iterations);
    us.push_back(1000.0 * point.variant[variant].median_ms);
  }
  return fit_line(ns, us);
}

namespace {

struct Versus {
  std::vector<int> ns;
  std::vector<double> ratios;  // rival / WHILE node
  std::vector<Outcome> outcomes;
};

Versus versus(const LoopFigures& figures, LoopVariant rival) {
  Versus v;
  for (const LoopPoint& point : figures.points) {
    if (rival == kUnrolled && !point.unrolled_measured) continue;
    const double node = point.variant[kWhileNode].median_ms;
    const double other = point.variant[rival].median_ms;
    v.ns.push_back(point.iterations);
    v.ratios.push_back(node > 0.0 ? other / node : 0.0);
    v.outcomes.push_back(outcome_of(other, node));
  }
  return v;
}

bool all_are(const Versus& v, Outcome outcome, std::size_t from = 0) {
  for (std::size_t i = from; i < v.outcomes.size(); ++i) {
    if (v.outcomes[i] != outcome) return false;
  }
  return true;
}

// The first index from which every outcome is `outcome` and none before is;
// nothing when there is no such proper suffix.
std::optional<std::size_t> from_on(const Versus& v, Outcome outcome) {
  for (std::size_t i = 1; i < v.outcomes.size(); ++i) {
    bool before = false;
    for (std::size_t j = 0; j < i; ++j) before = before || v.outcomes[j] == outcome;
    if (!before && all_are(v, outcome, i)) return i;
  }
  return std::nullopt;
}

std::string ratio_range(const Versus& v, std::size_t from = 0) {
  const auto [low, high] = std::minmax_element(v.ratios.begin() + static_cast<std::ptrdiff_t>(from), v.ratios.end());
  if (fixed(*low, 2) == fixed(*high, 2)) return fixed(*low, 2) + "x";
  return fixed(*low, 2) + "x to " + fixed(*high, 2) + "x";
}

std::string ns_with(const Versus& v, Outcome outcome) {
  std::string out;
  for (std::size_t i = 0; i < v.ns.size(); ++i) {
    if (v.outcomes[i] != outcome) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(v.ns[i]);
  }
  return out;
}

}  // namespace

std::string versus_word(const LoopFigures& figures, LoopVariant rival) {
  const Versus v = versus(figures, rival);
  if (v.ns.empty()) return "not_measured";
  if (all_are(v, Outcome::wins)) return "wins";
  if (all_are(v, Outcome::costs_more)) return "costs_more";
  if (all_are(v, Outcome::even)) return "even";
  if (from_on(v, Outcome::wins)) return "wins_from";
  if (from_on(v, Outcome::costs_more)) return "costs_more_from";
  return "mixed";
}

std::string versus_text(const LoopFigures& figures, LoopVariant rival) {
  const Versus v = versus(figures, rival);
  const std::string word = versus_word(figures, rival);
  if (word == "not_measured") return "not measured (every N above --cond-unroll-max)";
  if (word == "wins") return "wins at every N (" + ratio_range(v) + ")";
  if (word == "costs_more") return "costs more at every N (" + ratio_range(v) + ")";
  if (word == "even") return "within 10% at every N (" + ratio_range(v) + ")";
  if (word == "wins_from") {
    const std::size_t i = *from_on(v, Outcome::wins);
    return "wins from N = " + std::to_string(v.ns[i]) + " on (" + ratio_range(v, i) + ")";
  }
  if (word == "costs_more_from") {
    const std::size_t i = *from_on(v, Outcome::costs_more);
    return "costs more from N = " + std::to_string(v.ns[i]) + " on (" + ratio_range(v, i) + ")";
  }
  std::string text = "mixed:";
  if (const std::string wins = ns_with(v, Outcome::wins); !wins.empty()) text += " wins at N = " + wins + ";";
  if (const std::string more = ns_with(v, Outcome::costs_more); !more.empty()) {
    text += " costs more at N = " + more + ";";
  }
  if (const std::string even = ns_with(v, Outcome::even); !even.empty()) text += " within 10% at N = " + even + ";";
  text.pop_back();
  return text + " (" + ratio_range(v) + ")";
}

std::string switch_word(const SwitchFigures& figures) {
  if (!figures.measured) return "not_run";
  switch (outcome_of(figures.host_chosen.median_ms, figures.device_chosen.median_ms)) {
    case Outcome::wins:
      return "wins";
    case Outcome::costs_more:
      return "costs_more";
    case Outcome::even:
      break;
  }
  return "even";
}

std::string switch_text(const SwitchFigures& figures) {
  const std::string word = switch_word(figures);
  if (word == "not_run") return "the SWITCH part was not run (--cond-requests 0)";
  const double device = per_iteration_us(figures.device_chosen, figures.requests);
  const double host = per_iteration_us(figures.host_chosen, figures.requests);
  const std::string both = figure(device, 1) + " µs per request against " + figure(host, 1) +
                           " µs when the host reads the size back and launches the bucket's graph (" +
                           fixed(device > 0.0 ? host / device : 0.0, 2) + "x)";
  if (word == "wins") return "the SWITCH node wins, with no host round trip: " + both;
  if (word == "costs_more") return "the SWITCH node costs more than the host's choice: " + both;
  return "within 10%: the SWITCH node does not pay off here: " + both;
}

// ---- result, JSON, screen -----------------------------------------------------------

namespace {

bool gemm_checks_passed(const ConditionalCosts& costs) {
  return std::all_of(costs.gemm_checks.begin(), costs.gemm_checks.end(),
                     [](const VerifyResult& check) { return check.passed; });
}

std::string measurement_name(LoopBody body, int variant) {
  return std::string("cond_") + to_string(body) + "_" + kLoopVariantNames[variant];
}

bool measured(const LoopPoint& point, int variant) { return variant != kUnrolled || point.unrolled_measured; }

}  // namespace

StageResult conditional_result(const DeviceInfo& device, const CommonOptions& options,
                               const ConditionalConfig& config, const ConditionalCosts& costs) {
  StageResult result;
  result.stage = kStage;
  result.device = device;
  result.config = config_json(options);
  result.config["cond_iterations"] = config.iterations;
  result.config["cond_size"] = config.size;
  result.config["cond_unroll_max"] = config.unroll_max;
  result.config["cond_buckets"] = config.buckets;
  result.config["cond_requests"] = config.requests;
  const bool passed = costs.checked && gemm_checks_passed(costs);
  const double gemm_flops = 2.0 * config.size * config.size * double(config.size);
  for (const LoopFigures& figures : costs.loops) {
    for (const LoopPoint& point : figures.points) {
      const double flops = figures.body == LoopBody::gemm ? gemm_flops * point.iterations : 0.0;
      for (int v = 0; v < kLoopVariants; ++v) {
        if (!measured(point, v)) continue;
        result.measurements.push_back(checked_without_digest(measurement_name(figures.body, v),
                                                             {{"iterations", point.iterations}},
                                                             point.variant[v], Work{0.0, flops}, passed));
      }
    }
    for (int v = 0; v < kLoopVariants; ++v) {
      const LineFit fit = loop_fit(figures, static_cast<LoopVariant>(v));
      if (fit.points > 0) {
        result.bounds[std::string(to_string(figures.body)) + "_" + kLoopVariantNames[v] + "_us_per_iteration"] =
            fit.per_op_us;
      }
    }
  }
  const SwitchFigures& sw = costs.switch_node;
  if (sw.measured) {
    const nlohmann::json params = {{"requests", sw.requests}, {"buckets", config.buckets}};
    result.measurements.push_back(checked_without_digest("switch_device_chosen", params, sw.device_chosen, {}, passed));
    result.measurements.push_back(checked_without_digest("switch_host_chosen", params, sw.host_chosen, {}, passed));
    result.bounds["switch_device_us_per_request"] = per_iteration_us(sw.device_chosen, sw.requests);
    result.bounds["switch_host_us_per_request"] = per_iteration_us(sw.host_chosen, sw.requests);
  }
  VerifyResult whole;
  whole.passed = true;
  whole.method = "device counters";
  whole.batches_checked = 0;
  std::vector<const VerifyResult*> checks;
  for (const VerifyResult& check : costs.gemm_checks) {
    checks.push_back(&check);
    whole.batches_checked += check.batches_checked;
  }
  if (!costs.gemm_checks.empty()) whole.method = "freivalds+sampled and device counters";
  set_verdict(result, whole, checks);
  add_failure(result, costs.checked, "device counters: " + costs.failure);
  return result;
}

nlohmann::json conditional_json(const StageResult& result, const ConditionalConfig& config,
                                const ConditionalCosts& costs) {
  nlohmann::json doc = subcommand_json(result, "conditional");
  nlohmann::json section = {{"iterations", config.iterations},
                            {"size", config.size},
                            {"unroll_max", config.unroll_max},
                            {"clear_margin", kClearMargin},
                            {"counter_checks", costs.counter_checks},
                            {"gemm_checks", costs.gemm_checks.size()}};
  for (const LoopFigures& figures : costs.loops) {
    nlohmann::json body;
    for (const LoopPoint& point : figures.points) {
      nlohmann::json p = {{"iterations", point.iterations}};
      for (int v = 0; v < kLoopVariants; ++v) {
        if (!measured(point, v)) continue;
        p[std::string(kLoopVariantNames[v]) + "_ms"] = point.variant[v].median_ms;
        p[std::string(kLoopVariantNames[v]) + "_us_per_iteration"] =
            per_iteration_us(point.variant[v], point.iterations);
      }
      if (point.unrolled_measured) p["unrolled_instantiate_ms"] = point.unrolled_instantiate_ms;
      body["points"].push_back(p);
    }
    for (int v = 0; v < kLoopVariants; ++v) {
      const LineFit fit = loop_fit(figures, static_cast<LoopVariant>(v));
      if (fit.points == 0) continue;
      body["fits"][kLoopVariantNames[v]] = {
          {"per_iteration_us", fit.per_op_us}, {"fixed_us", fit.fixed_us}, {"r2", fit.r2}, {"points", fit.points}};
    }
    for (int v = kKernelLoop; v < kLoopVariants; ++v) {
      body["while_node_versus"][kLoopVariantNames[v]] = versus_word(figures, static_cast<LoopVariant>(v));
    }
    section["loops"][to_string(figures.body)] = body;
  }
  const SwitchFigures& sw = costs.switch_node;
  section["switch"] = {{"verdict", switch_word(sw)}, {"buckets", config.buckets}, {"requests", config.requests}};
  if (sw.measured) {
    section["switch"]["per_bucket"] = sw.per_bucket;
    section["switch"]["device_us_per_request"] = per_iteration_us(sw.device_chosen, sw.requests);
    section["switch"]["host_us_per_request"] = per_iteration_us(sw.host_chosen, sw.requests);
  }
  if (!costs.checked) section["failure"] = costs.failure;
  doc["conditional"] = section;
  return doc;
}

void print_conditional(std::ostream& out, const StageResult& result, const CommonOptions& options,
                       const ConditionalConfig& config, const ConditionalCosts& costs) {
  print_title(out, result, "conditional");
  out << "a loop of N bodies (a " << config.size << "^3 naive GEMM and a counter step, or the step alone) run 5 ways"
      << (config.unroll_max < config.iterations.back()
              ? " (unrolled up to N = " + std::to_string(config.unroll_max) + ")"
              : std::string())
      << "; median of " << plural(options.plan.repeats, "run") << " after " << options.plan.warmup
      << " warm-up, interleaved\n";
  bool below_zero = false;  // a fit whose fixed part fell below zero
  for (const LoopFigures& figures : costs.loops) {
    std::vector<std::string> headers = {std::string(to_string(figures.body)) + " body"};
    for (const LoopPoint& point : figures.points) headers.push_back("N=" + std::to_string(point.iterations) + " ms");
    headers.push_back("us/iter (fit)");
    headers.push_back("fixed us");
    Table table(headers);
    for (int v = 0; v < kLoopVariants; ++v) {
      std::vector<std::string> row = {kLoopVariantNames[v]};
      for (const LoopPoint& point : figures.points) {
        row.push_back(measured(point, v) ? figure(point.variant[v].median_ms, 3) : "-");
      }
      const LineFit fit = loop_fit(figures, static_cast<LoopVariant>(v));
      row.push_back(fit.points > 0 ? figure(fit.per_op_us, 2) : "-");
      row.push_back(has_fixed_part(fit) ? figure(fit.fixed_us, 1) : "-");
      if (fit.points > 0 && !has_fixed_part(fit)) below_zero = true;
      table.add_row(row);
    }
    out << '\n';
    table.print(out);
  }
  if (below_zero) {
    out << "fixed us -: the fitted line crosses zero above N = 0, so that loop's fixed part is smaller than the fit "
           "resolves; its slope stands\n";
  }
  double instantiate_ms = 0.0;
  int instantiate_n = 0;
  for (const LoopPoint& point : costs.loops[static_cast<int>(LoopBody::gemm)].points) {
    if (point.unrolled_measured) {
      instantiate_ms = point.unrolled_instantiate_ms;
      instantiate_n = point.iterations;
    }
  }
  if (instantiate_n > 0) {
    out << "unrolled GEMM loop of N = " << instantiate_n << ": capture and instantiate " << figure(instantiate_ms, 2)
        << " ms, once, not in its times\n";
  }
  out << "\nthe WHILE node against each (time of the other / the WHILE node's; a clear difference is 10% either way):\n";
  const char* rivals[kLoopVariants] = {"", "a host loop of kernel launches", "a host loop of graph launches",
                                       "one unrolled graph", "the host deciding each iteration"};
  for (const LoopFigures& figures : costs.loops) {
    out << "  " << to_string(figures.body) << " body:\n";
    for (const int v : {kHostDecided, kKernelLoop, kGraphLoop, kUnrolled}) {
      out << "    vs " << rivals[v] << ": " << versus_text(figures, static_cast<LoopVariant>(v)) << '\n';
    }
  }
  if (costs.switch_node.measured) {
    const SwitchFigures& sw = costs.switch_node;
    std::string spread;
    for (std::size_t b = 0; b < sw.per_bucket.size(); ++b) {
      spread += (b == 0 ? "" : ", ") + std::to_string(config.buckets[b]) + ": " + std::to_string(sw.per_bucket[b]);
    }
    out << "\nshape buckets chosen per request (" << plural(sw.requests, "request") << "; requests per bucket "
        << spread << "):\n";
  } else {
    out << '\n';
  }
  out << switch_text(costs.switch_node) << '\n';
  if (!costs.checked) out << "counter WRONG: " << costs.failure << '\n';
  for (const VerifyResult& check : costs.gemm_checks) {
    if (check.passed) continue;
    out << "output WRONG: " << check.method << '\n';
    break;
  }
  print_verification(out, result);
}

}  // namespace csg::graphs
