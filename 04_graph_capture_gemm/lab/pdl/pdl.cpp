#include "04_graph_capture_gemm/lab/pdl/pdl_report.hpp"

#include <algorithm>
#include <cmath>

#include "base/text.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

// A verified run of a chain's host work: 12 µs per launch errs long, as the
// launch-chains study does.
constexpr double kSecondsPerLaunch = 12e-6;

constexpr const char* kChainNames[] = {"gemm", "empty"};

const PdlChainRun& chain_run(const PdlCosts& costs, int chain) { return chain == 0 ? costs.gemm : costs.empty; }

std::string us(double value) { return figure(value, 2) + " µs"; }

nlohmann::json comparison_json(const PdlComparison& comparison) {
  return {{"verdict", to_string(pdl_verdict(comparison))},
          {"saving_us", comparison.saving_us()},
          {"threshold", comparison.threshold()}};
}

}  // namespace

CommonDefaults pdl_defaults() {
  CommonDefaults defaults;
  defaults.host_memory = HostMemory::pageable;
  defaults.host_memory_choice = false;
  defaults.kernel_choice = false;
  return defaults;
}

void add_pdl_options(StageCli& cli) {
  cli.add_int("pdl-pairs", "Ping/pong pairs of one-thread kernels in the empty chain", kDefaultPdlPairs, 1,
              kMaxPdlPairs);
}

PdlConfig read_pdl_options(const StageCli& cli, const CommonOptions& options) {
  PdlConfig config;
  config.work = options.work;
  config.pairs = static_cast<int>(cli.get_int("pdl-pairs"));
  config.plan = options.plan;
  config.seed = options.seed;
  return config;
}

const char* to_string(PdlVerdict verdict) {
  switch (verdict) {
    case PdlVerdict::saves: return "saves";
    case PdlVerdict::gap_is_noise: return "gap_is_noise";
    case PdlVerdict::no_gain: return "no_gain";
    case PdlVerdict::costs: return "costs";
  }
  return "?";
}

double PdlComparison::threshold() const { return std::max({kPdlEqualWithin, plain_spread, pdl_spread}); }

PdlVerdict pdl_verdict(const PdlComparison& c) {
  const double allowed = c.threshold() * c.plain_us;
  if (c.saving_us() > allowed) return PdlVerdict::saves;
  if (-c.saving_us() > allowed) return PdlVerdict::costs;
  return c.plain_gap_us() <= allowed ? PdlVerdict::gap_is_noise : PdlVerdict::no_gain;
}

std::string pdl_conclusion(const std::string& where, const PdlComparison& c) {
  const std::string threshold = percent_text(c.threshold());
  const std::string figures = us(c.pdl_us) + " per kernel with PDL against " + us(c.plain_us) + " without";
  switch (pdl_verdict(c)) {
    case PdlVerdict::saves:
      return where + ", PDL saved " + us(c.saving_us()) + " per kernel (" + figures + ", more than the " + threshold +
             " threshold): the next kernel started while the previous one was finishing";
    case PdlVerdict::gap_is_noise:
      return where + ", PDL does not pay off here: " + figures + ", the same within " + threshold +
             "; the gap between plain kernels (" + us(c.plain_gap_us()) + ") is itself under " + threshold +
             " of a kernel's time, so the kernels are long enough that the gap is noise";
    case PdlVerdict::no_gain:
      return where + ", PDL did not save time: " + figures + ", the same within " + threshold +
             ", although the plain kernels leave a gap of " + us(c.plain_gap_us()) + " between them";
    case PdlVerdict::costs:
      return where + ", PDL cost " + us(-c.saving_us()) + " per kernel more (" + figures + ", beyond the " +
             threshold + " threshold): the programmatic launch costs more than the gap it hides";
  }
  return "";
}

PdlComparison PdlChainFigures::streams() const {
  const int plain = index_of(PdlWay::stream_plain);
  const int pdl = index_of(PdlWay::stream_pdl);
  return {per_kernel_us[plain], per_kernel_us[pdl], own_us, spread[plain], spread[pdl]};
}

PdlComparison PdlChainFigures::graph() const {
  const int plain = index_of(PdlWay::graph_plain);
  const int pdl = index_of(PdlWay::graph_pdl);
  return {per_kernel_us[plain], per_kernel_us[pdl], own_us, spread[plain], spread[pdl]};
}

PdlChainFigures chain_figures(const PdlChainRun& run, double empty_alone_us) {
  PdlChainFigures figures;
  figures.kernels = run.kernels;
  figures.hold_ms = run.hold_ms;
  figures.alone_us = 1000.0 * run.alone.median_ms;
  figures.own_us = std::max(0.0, figures.alone_us - empty_alone_us);
  for (int w = 0; w < kPdlWays; ++w) {
    figures.per_kernel_us[w] = run.kernels > 0 ? 1000.0 * run.chain[w].median_ms / run.kernels : 0.0;
    figures.spread[w] = relative_spread(run.chain[w]);
    figures.issue_max_ms[w] = run.issue[w].max_ms;
  }
  return figures;
}

std::string host_bound_text(const std::string& chain, const PdlChainFigures& figures) {
  std::string text;
  for (const PdlWay way : kAllPdlWays) {
    if (!figures.host_bound(way)) continue;
    if (!text.empty()) text += "; ";
    text += chain + ": " + to_string(way) + "'s slowest run took the host " +
            fixed(figures.issue_max_ms[index_of(way)], 2) + " ms to queue, longer than the " +
            fixed(figures.hold_ms, 2) + " ms hold: its figure includes the host's pace";
  }
  return text;
}

namespace {

// Both chains' figures: the empty kernel's alone figure is the launch cost both subtract.
std::array<PdlChainFigures, 2> both_figures(const PdlCosts& costs) {
  const double empty_alone_us = 1000.0 * costs.empty.alone.median_ms;
  return {chain_figures(costs.gemm, empty_alone_us), chain_figures(costs.empty, empty_alone_us)};
}

}  // namespace

StageResult pdl_result(const DeviceInfo& device, const PdlRun& run) {
  const PdlCosts& costs = run.costs;
  const std::array<PdlChainFigures, 2> figures = both_figures(costs);
  const Workload& work = run.config.work;
  StageResult result;
  result.stage = kStage;
  result.device = device;
  result.config = config_json(run.options);
  result.config["pdl_pairs"] = run.config.pairs;

  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(costs, chain);
    const std::string name = std::string("pdl_") + kChainNames[chain];
    const bool gemm = chain == 0;
    for (const PdlWay way : kAllPdlWays) {
      const int w = index_of(way);
      const nlohmann::json params = {{"chain", kChainNames[chain]}, {"way", to_string(way)}, {"kernels", r.kernels}};
      Measurement m = gemm ? checked(name + "_" + to_string(way), params, r.chain[w],
                                     Work{0.0, work.batches * work.flops_per_batch()}, r.verified[w])
                           : checked_without_digest(name + "_" + to_string(way), params, r.chain[w], Work{},
                                                    r.passed[w]);
      m.host_issue = r.issue[w];
      result.measurements.push_back(std::move(m));
      result.bounds[name + "_" + to_string(way) + "_us_per_kernel"] = figures[chain].per_kernel_us[w];
      result.bounds[name + "_" + to_string(way) + "_gap_us"] = figures[chain].gap_us(way);
    }
    const nlohmann::json alone_params = {{"chain", kChainNames[chain]}, {"way", "alone"}, {"kernels", 1}};
    result.measurements.push_back(
        gemm ? checked(name + "_alone", alone_params, r.alone, Work{0.0, work.flops_per_batch()},
                       r.verified[kPdlWays])
             : checked_without_digest(name + "_alone", alone_params, r.alone, Work{}, r.passed[kPdlWays]));
    result.bounds[name + "_alone_us"] = figures[chain].alone_us;
    result.bounds[name + "_own_us"] = figures[chain].own_us;
  }
  // The GEMM chain's plain stream run is the whole: its batch count and digest.
  std::vector<const VerifyResult*> checks;
  for (const VerifyResult& check : costs.gemm.verified) checks.push_back(&check);
  set_verdict(result, costs.gemm.verified[index_of(PdlWay::stream_plain)], checks);
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(costs, chain);
    if (chain == 1) {
      for (const bool passed : r.passed) result.variants_verified += passed ? 1 : 0;
    }
    add_failure(result, r.checked(), std::string(kChainNames[chain]) + " chain: " + r.failure);
  }
  return result;
}

nlohmann::json pdl_json(const StageResult& result, const PdlRun& run) {
  nlohmann::json doc = subcommand_json(result, "pdl");
  const std::array<PdlChainFigures, 2> figures = both_figures(run.costs);
  nlohmann::json section = {{"threshold", kPdlEqualWithin}};
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(run.costs, chain);
    const PdlChainFigures& f = figures[chain];
    nlohmann::json ways = nlohmann::json::object();
    for (const PdlWay way : kAllPdlWays) {
      const int w = index_of(way);
      ways[to_string(way)] = {{"per_kernel_us", f.per_kernel_us[w]},
                              {"gap_us", f.gap_us(way)},
                              {"issue_max_ms", f.issue_max_ms[w]},
                              {"host_bound", f.host_bound(way)}};
    }
    nlohmann::json entry = {{"kernels", r.kernels},
                            {"hold_ms", r.hold_ms},
                            {"alone_us", f.alone_us},
                            {"own_us", f.own_us},
                            {"ways", ways},
                            {"streams", comparison_json(f.streams())},
                            {"graph", comparison_json(f.graph())},
                            {"programmatic_edges", r.programmatic_edges},
                            {"graph_edges", r.graph_edges},
                            {"plain_graph_edges", r.plain_graph_edges},
                            {"plain_programmatic_edges", r.plain_programmatic_edges}};
    if (!r.checked()) entry["failure"] = r.failure;
    section[kChainNames[chain]] = std::move(entry);
  }
  doc["pdl"] = std::move(section);
  return doc;
}

void print_pdl(std::ostream& out, const StageResult& result, const PdlRun& run) {
  const std::array<PdlChainFigures, 2> figures = both_figures(run.costs);
  const Workload& work = run.config.work;
  print_title(out, result, "pdl");
  out << "two chains of dependent kernels on one stream: " << plural(work.batches, "GEMM") << " of "
      << work.shape.m << "x" << work.shape.n << "x" << work.shape.k
      << " (C_i = A_i B + C_{i-1} mod 8), and " << run.config.pairs << " ping/pong "
      << noun(run.config.pairs, "pair") << " of one-thread kernels; each launched plainly, with PDL, and as "
      << "graphs of both; each run held until queued; median of " << plural(run.options.plan.repeats, "run")
      << " after " << run.options.plan.warmup << " warm-up, interleaved\n\n";

  Table table({"chain", "kernels", "way", "µs per kernel", "gap µs", "spread", "edges (programmatic)"});
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(run.costs, chain);
    const PdlChainFigures& f = figures[chain];
    for (const PdlWay way : kAllPdlWays) {
      const int w = index_of(way);
      std::string edges = "-";
      if (way == PdlWay::graph_pdl) {
        edges = std::to_string(r.graph_edges) + " (" + std::to_string(r.programmatic_edges) + ")";
      } else if (way == PdlWay::graph_plain) {
        edges = std::to_string(r.plain_graph_edges) + " (" + std::to_string(r.plain_programmatic_edges) + ")";
      }
      table.add_row({w == 0 ? kChainNames[chain] : "", w == 0 ? std::to_string(r.kernels) : "", to_string(way),
                     figure(f.per_kernel_us[w], 2), figure(f.gap_us(way), 2), percent_text(f.spread[w]), edges});
    }
    table.add_row({"", "", "one alone", figure(f.alone_us, 2), "own " + figure(f.own_us, 2), "", ""});
  }
  table.print(out);
  out << "gap = µs per kernel - the kernel's own time (alone, less an empty kernel alone)\n\n";
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainFigures& f = figures[chain];
    const std::string name = chain == 0 ? "GEMM chain" : "empty pair";
    out << name << ": " << pdl_conclusion("on streams", f.streams()) << '\n';
    out << name << ": " << pdl_conclusion("in the graph", f.graph()) << '\n';
    if (const std::string bound = host_bound_text(kChainNames[chain], f); !bound.empty()) out << bound << '\n';
  }
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(run.costs, chain);
    if (!r.checked()) out << kChainNames[chain] << " chain check FAILED: " << r.failure << '\n';
  }
  print_verification(out, result);
}

double pdl_seconds(const PdlConfig& config, double gemm_seconds) {
  const int gemms = config.work.batches;
  const int empties = config.empty_kernels();
  const double gemm_chain = gemms * std::max(gemm_seconds, kSecondsPerLaunch) + 1e-3 * pdl_hold_ms(gemms);
  const double empty_chain = empties * kSecondsPerLaunch + 1e-3 * pdl_hold_ms(empties);
  const double alone = 2.0 * (1e-3 * pdl_hold_ms(1)) + gemm_seconds;
  const int rounds = config.plan.warmup + config.plan.repeats;
  // The inputs made once; each way's check reads every C back, rebuilds the
  // products and checks them (the kernel alone's: one batch): about 5 ns an element.
  const double c_elems = double(config.work.batch_count() * config.work.c_elems());
  const double setup = 5e-9 * double(config.work.batch_count() * config.work.a_elems());
  const double checks = 5e-9 * (kPdlWays * c_elems + double(config.work.c_elems()));
  return rounds * (kPdlWays * (gemm_chain + empty_chain) + alone) + setup + checks;
}

}  // namespace csg::graphs
