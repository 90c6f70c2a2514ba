#include "04_graph_capture_gemm/lab/pdl/pdl.hpp"

#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
pdl: programmatic dependent launch (9.0+): chained GEMMs, empty kernels, plain vs PDL

Programmatic dependent launch (compute capability 9.0+): a chain of dependent GEMMs (the workload's
batches, C_i = A_i B + C_{i-1} mod 8) and a ping/pong chain of one-thread kernels, each launched
plainly, with cudaLaunchKernelEx and programmatic stream serialization, and captured into graphs of
both (programmatic edges counted): time per kernel and the gap between kernels each way, every
output checked.
)";

// What scripts/run_suite.sh, the GPU-box check and ctest run of it (STAGE --list).
constexpr const char* kRuns = R"(
# programmatic dependent launch: after-the-article table, after_article.png
q   -          --warmup 1 --repeats 3
fc  -
t   tiny       --batches 6 --m 33 --n 17 --k 65 --pdl-pairs 5 --warmup 1 --repeats 2
t   one_batch  --batches 1 --m 32 --n 32 --k 32 --pdl-pairs 1 --warmup 0 --repeats 1
s   -          --batches 3 --m 33 --n 17 --k 65 --pdl-pairs 2 --warmup 0 --repeats 1
)";

// A verified run of a chain's host work: 12 µs per launch errs long, as the
// launch-chains study does.
constexpr double kSecondsPerLaunch = 12e-6;

constexpr const char* kChainNames[] = {"gemm", "empty"};

const PdlChainRun& chain_run(const PdlCosts& costs, int chain) { return chain == 0 ? costs.gemm : costs.empty; }

std::string us(double value) { return figure(value, 2) + " µs"; }

PdlComparison compare(const PdlChainFigures& f, PdlWay plain_way, PdlWay pdl_way) {
  const int plain = index_of(plain_way);
  const int pdl = index_of(pdl_way);
  return {f.per_kernel_us[plain], f.per_kernel_us[pdl], f.own_us, f.spread[plain], f.spread[pdl]};
}

// Both chains' figures: the empty kernel's alone figure is the launch cost both subtract.
std::array<PdlChainFigures, 2> both_figures(const PdlCosts& costs) {
  const double empty_alone_us = 1000.0 * costs.empty.alone.median_ms;
  return {chain_figures(costs.gemm, empty_alone_us), chain_figures(costs.empty, empty_alone_us)};
}

void fill_result(const PdlConfig& config, const PdlCosts& costs, const std::array<PdlChainFigures, 2>& figures,
                 StageResult& result) {
  const Workload& work = config.common.work;
  result.config = config_json(config.common);
  result.config["pdl_pairs"] = config.pairs;
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(costs, chain);
    const std::string name = std::string("pdl_") + kChainNames[chain];
    // Way `w` (kPdlWays: one kernel alone): the GEMM chain's verified batch
    // by batch, the empty chain's by its counters.
    auto measured = [&](const std::string& what, const Summary& stats, int w) {
      const bool alone = w == kPdlWays;
      const nlohmann::json params = {{"chain", kChainNames[chain]}, {"way", what}, {"kernels", alone ? 1 : r.kernels}};
      const Work flops{0.0, (alone ? 1 : work.batches) * work.flops_per_batch()};
      return chain == 0 ? checked(name + "_" + what, params, stats, flops, r.verified[w])
                        : checked_without_digest(name + "_" + what, params, stats, Work{}, r.passed[w]);
    };
    for (const PdlWay way : kAllPdlWays) {
      const int w = index_of(way);
      Measurement m = measured(to_string(way), r.chain[w], w);
      m.host_issue = r.issue[w];
      result.measurements.push_back(std::move(m));
      result.bounds[name + "_" + to_string(way) + "_us_per_kernel"] = figures[chain].per_kernel_us[w];
      result.bounds[name + "_" + to_string(way) + "_gap_us"] = figures[chain].gap_us(way);
    }
    result.measurements.push_back(measured("alone", r.alone, kPdlWays));
    result.bounds[name + "_alone_us"] = figures[chain].alone_us;
    result.bounds[name + "_own_us"] = figures[chain].own_us;
  }
  // The GEMM chain's plain stream run is the whole: its batch count and digest.
  std::vector<const VerifyResult*> checks;
  for (const VerifyResult& check : costs.gemm.verified) checks.push_back(&check);
  set_verdict(result, costs.gemm.verified[index_of(PdlWay::stream_plain)], checks);
  for (const bool passed : costs.empty.passed) result.variants_verified += passed ? 1 : 0;
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(costs, chain);
    add_failure(result, r.checked(), std::string(kChainNames[chain]) + " chain: " + r.failure);
  }
}

// One line of the table: a way of a chain, or (way kPdlWays) one kernel alone.
struct Line {
  int chain;
  int way;
};

Table pdl_table(const PdlCosts& costs, const std::array<PdlChainFigures, 2>& figures) {
  auto alone = [](const Line& l) { return l.way == kPdlWays; };
  const std::vector<Column<Line>> columns = {
      {"chain", [](const Line& l) { return std::string(l.way == 0 ? kChainNames[l.chain] : ""); }},
      {"kernels",
       [&](const Line& l) { return l.way == 0 ? std::to_string(chain_run(costs, l.chain).kernels) : std::string(); }},
      {"way", [&](const Line& l) { return alone(l) ? std::string("one alone") : to_string(kAllPdlWays[l.way]); }},
      {"µs per kernel",
       [&](const Line& l) {
         const PdlChainFigures& f = figures[l.chain];
         return figure(alone(l) ? f.alone_us : f.per_kernel_us[l.way], 2);
       }},
      {"gap µs",
       [&](const Line& l) {
         const PdlChainFigures& f = figures[l.chain];
         return alone(l) ? "own " + figure(f.own_us, 2) : figure(f.gap_us(kAllPdlWays[l.way]), 2);
       }},
      {"spread",
       [&](const Line& l) { return alone(l) ? std::string() : percent_text(figures[l.chain].spread[l.way]); }},
      {"edges (programmatic)",
       [&](const Line& l) {
         const PdlChainRun& r = chain_run(costs, l.chain);
         auto edges = [](int all, int programmatic) {
           return std::to_string(all) + " (" + std::to_string(programmatic) + ")";
         };
         if (alone(l)) return std::string();
         if (kAllPdlWays[l.way] == PdlWay::graph_pdl) return edges(r.graph_edges, r.programmatic_edges);
         if (kAllPdlWays[l.way] == PdlWay::graph_plain) return edges(r.plain_graph_edges, r.plain_programmatic_edges);
         return std::string("-");
       }},
  };
  std::vector<Line> lines;
  for (int chain = 0; chain < 2; ++chain) {
    for (int way = 0; way <= kPdlWays; ++way) lines.push_back({chain, way});
  }
  return table_of(columns, lines);
}

nlohmann::json comparison_json(const Verdict& verdict) {
  return {{"verdict", verdict.outcome},
          {"saving_us", verdict.figures.at("saving_us")},
          {"threshold", verdict.threshold}};
}

Needs needs(const PdlConfig& config) {
  return {memory_needs(config.common.work, HostMemory::pageable), "try fewer --batches or smaller --m, --n, --k"};
}

csg::Estimate estimate(const PdlConfig& config, int device) {
  require_pdl(device);
  const Workload& work = config.common.work;
  const Rates rates = measure_rates(Gemm{}, work.shape);
  const double gemm_seconds = rates.kernel_flops_per_s > 0.0 ? work.flops_per_batch() / rates.kernel_flops_per_s : 0.0;
  return {pdl_seconds(config, gemm_seconds),
          "programmatic dependent launch: a chain of " + std::to_string(config.empty_kernels()) +
              " one-thread kernels and one of " + std::to_string(work.batches) + " GEMMs, four ways each"};
}

const Experiment<PdlConfig, PdlCosts> kExperiment{.about = kAbout, .runs = kRuns, .defaults = pdl_defaults(),
    .options = pdl_options, .read = read_pdl, .needs = needs, .estimate = estimate, .measure = measure_pdl,
    .report = report_pdl};

}  // namespace

CommonDefaults pdl_defaults() {
  return {.host_memory = HostMemory::pageable, .kernel_choice = false, .host_memory_choice = false};
}

void pdl_options(StageCli& cli) {
  cli.add_int("pdl-pairs", "Ping/pong pairs of one-thread kernels in the empty chain", kDefaultPdlPairs, 1,
              kMaxPdlPairs);
}

PdlConfig read_pdl(const StageCli& cli, CommonOptions& common) {
  return PdlConfig{.common = common, .pairs = static_cast<int>(cli.get_int("pdl-pairs"))};
}

double PdlComparison::threshold() const { return std::max({kPdlEqualWithin, plain_spread, pdl_spread}); }

Verdict pdl_verdict(const std::string& chain, const std::string& where, const PdlComparison& c) {
  Verdict v{.id = "pdl." + chain + "." + where,
            .figures = {{"plain_us", c.plain_us},
                        {"pdl_us", c.pdl_us},
                        {"own_us", c.own_us},
                        {"saving_us", c.saving_us()},
                        {"plain_gap_us", c.plain_gap_us()},
                        {"plain_spread", c.plain_spread},
                        {"pdl_spread", c.pdl_spread}},
            .threshold = c.threshold()};
  const std::string head = std::string(chain == "gemm" ? "GEMM chain: " : "empty pair: ") +
                           (where == "streams" ? "on streams" : "in the graph");
  const std::string threshold = percent_text(c.threshold());
  const std::string figures = us(c.pdl_us) + " per kernel with PDL against " + us(c.plain_us) + " without";
  const double allowed = c.threshold() * c.plain_us;
  if (c.saving_us() > allowed) {
    v.outcome = "saves";
    v.sentence = head + ", PDL saved " + us(c.saving_us()) + " per kernel (" + figures + ", more than the " +
                 threshold + " threshold): the next kernel started while the previous one was finishing";
  } else if (-c.saving_us() > allowed) {
    v.outcome = "costs";
    v.sentence = head + ", PDL cost " + us(-c.saving_us()) + " per kernel more (" + figures + ", beyond the " +
                 threshold + " threshold): the programmatic launch costs more than the gap it hides";
  } else if (c.plain_gap_us() <= allowed) {
    v.outcome = "gap_is_noise";
    v.sentence = head + ", PDL does not pay off here: " + figures + ", the same within " + threshold +
                 "; the gap between plain kernels (" + us(c.plain_gap_us()) + ") is itself under " + threshold +
                 " of a kernel's time, so the kernels are long enough that the gap is noise";
  } else {
    v.outcome = "no_gain";
    v.sentence = head + ", PDL did not save time: " + figures + ", the same within " + threshold +
                 ", although the plain kernels leave a gap of " + us(c.plain_gap_us()) + " between them";
  }
  return v;
}

PdlComparison PdlChainFigures::streams() const { return compare(*this, PdlWay::stream_plain, PdlWay::stream_pdl); }
PdlComparison PdlChainFigures::graph() const { return compare(*this, PdlWay::graph_plain, PdlWay::graph_pdl); }

PdlChainFigures chain_figures(const PdlChainRun& run, double empty_alone_us) {
  PdlChainFigures figures;
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

std::optional<Verdict> hold_verdict(const std::string& chain, const PdlChainFigures& figures) {
  Verdict v{.id = "pdl." + chain + ".hold", .outcome = "host_bound", .threshold = {{"hold_ms", figures.hold_ms}}};
  for (const PdlWay way : kAllPdlWays) {
    if (!figures.host_bound(way)) continue;
    if (!v.sentence.empty()) v.sentence += "; ";
    v.sentence += chain + ": " + to_string(way) + "'s slowest run took the host " +
                  fixed(figures.issue_max_ms[index_of(way)], 2) + " ms to queue, longer than the " +
                  fixed(figures.hold_ms, 2) + " ms hold: its figure includes the host's pace";
    v.figures[std::string(to_string(way)) + "_issue_max_ms"] = figures.issue_max_ms[index_of(way)];
  }
  if (v.sentence.empty()) return std::nullopt;
  return v;
}

double pdl_seconds(const PdlConfig& config, double gemm_seconds) {
  const Workload& work = config.common.work;
  const int gemms = work.batches;
  const int empties = config.empty_kernels();
  const double gemm_chain = gemms * std::max(gemm_seconds, kSecondsPerLaunch) + 1e-3 * pdl_hold_ms(gemms);
  const double empty_chain = empties * kSecondsPerLaunch + 1e-3 * pdl_hold_ms(empties);
  const double alone = 2.0 * (1e-3 * pdl_hold_ms(1)) + gemm_seconds;
  const int rounds = config.common.plan.warmup + config.common.plan.repeats;
  // The inputs made once; each way's check reads every C back, rebuilds the
  // products and checks them (the kernel alone's: one batch): about 5 ns an element.
  const double c_elems = double(work.batch_count() * work.c_elems());
  const double setup = 5e-9 * double(work.batch_count() * work.a_elems());
  const double checks = 5e-9 * (kPdlWays * c_elems + double(work.c_elems()));
  return rounds * (kPdlWays * (gemm_chain + empty_chain) + alone) + setup + checks;
}

void report_pdl(const PdlConfig& config, const PdlCosts& costs, Report& report) {
  const std::array<PdlChainFigures, 2> figures = both_figures(costs);
  fill_result(config, costs, figures, report.result);
  count_checked_runs(report);
  const Workload& work = config.common.work;
  std::ostream& out = report.out();
  out << "two chains of dependent kernels on one stream: " << plural(work.batches, "GEMM") << " of " << work.shape.m
      << "x" << work.shape.n << "x" << work.shape.k << " (C_i = A_i B + C_{i-1} mod 8), and " << config.pairs
      << " ping/pong " << noun(config.pairs, "pair") << " of one-thread kernels; each launched plainly, with PDL, "
      << "and as graphs of both; each run held until queued; median of " << plural(config.common.plan.repeats, "run")
      << " after " << config.common.plan.warmup << " warm-up, interleaved\n\n";
  report.table(pdl_table(costs, figures));
  out << "gap = µs per kernel - the kernel's own time (alone, less an empty kernel alone)\n\n";
  nlohmann::json section = {{"threshold", kPdlEqualWithin}};
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(costs, chain);
    const PdlChainFigures& f = figures[chain];
    nlohmann::json ways = nlohmann::json::object();
    for (const PdlWay way : kAllPdlWays) {
      const int w = index_of(way);
      ways[to_string(way)] = {{"per_kernel_us", f.per_kernel_us[w]},
                              {"gap_us", f.gap_us(way)},
                              {"issue_max_ms", f.issue_max_ms[w]},
                              {"host_bound", f.host_bound(way)}};
    }
    const nlohmann::json on_streams = comparison_json(report.verdict(pdl_verdict(kChainNames[chain], "streams",
                                                                                  f.streams())));
    const nlohmann::json in_graph = comparison_json(report.verdict(pdl_verdict(kChainNames[chain], "graph", f.graph())));
    if (std::optional<Verdict> hold = hold_verdict(kChainNames[chain], f)) report.verdict(std::move(*hold));
    section[kChainNames[chain]] = {{"kernels", r.kernels},
                                   {"hold_ms", r.hold_ms},
                                   {"alone_us", f.alone_us},
                                   {"own_us", f.own_us},
                                   {"ways", ways},
                                   {"streams", on_streams},
                                   {"graph", in_graph},
                                   {"programmatic_edges", r.programmatic_edges},
                                   {"graph_edges", r.graph_edges},
                                   {"plain_graph_edges", r.plain_graph_edges},
                                   {"plain_programmatic_edges", r.plain_programmatic_edges}};
    if (!r.checked()) section[kChainNames[chain]]["failure"] = r.failure;
  }
  for (int chain = 0; chain < 2; ++chain) {
    const PdlChainRun& r = chain_run(costs, chain);
    if (!r.checked()) out << kChainNames[chain] << " chain check FAILED: " << r.failure << '\n';
  }
  report.sections["pdl"] = std::move(section);
}

extern const Subcommand kPdl = make_subcommand<kExperiment>();

}  // namespace csg::graphs
