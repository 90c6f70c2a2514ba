// 04_graph_capture_gemm changing-shapes: the article's "graphs suit stable
// work", measured. A seeded sequence of requests of random batch counts, each
// run four ways (changing_shapes.hpp says which and how); this file declares
// the subcommand and reports what the four ways cost.
#include "04_graph_capture_gemm/lab/changing-shapes/changing_shapes.hpp"

#include <iostream>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "base/enum_names.hpp"
#include "base/progress.hpp"
#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
changing-shapes: requests of random batch counts: streams, re-capture, exec update or buckets

Requests of random batch counts, each run four ways: on the stream pool, re-captured and
instantiated, one exec updated with cudaGraphExecUpdate, or launched from buckets of graphs captured
up front (powers of two, the extra batches computed for nothing).
)";

constexpr const char* kRuns = R"(
qfc  -
t    tiny  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1 --streams 3
s    -     ctest=api_errors_expected --shape-requests 3 --shape-max-batches 4 --shape-size 8 --shape-rounds 1 --streams 2
)";

constexpr std::size_t kBatchCountsPrinted = 20;  // the rest of the sequence is in the JSON

double ms_of(const std::array<double, kShapeWays>& values, ShapeWay way) { return values[std::size_t(way)]; }

// "1.40x as long", or "about as fast: within 3%".
std::string relative_time(double ms, double best_ms) {
  if (compare_times(ms, best_ms) == Comparison::same) return "about as fast: within " + percent_text(kEqualWithin);
  return fixed(ms / best_ms, 2) + "x as long";
}

std::array<double, kShapeWays> totals_of(const ShapeSequenceCosts& seq) {
  std::array<double, kShapeWays> totals{};
  for (ShapeWay w : kAllShapeWays) totals[std::size_t(w)] = seq.way(w).total.median_ms;
  return totals;
}

std::string_view to_string(ClaimVerdict verdict) { return name_of(verdict, {"holds", "borderline", "does_not_hold"}); }

nlohmann::json summary_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"samples_ms", s.samples_ms}};
}

// ---- the declaration ------------------------------------------------------------

void options(StageCli& cli) {
  add_changing_shapes_options(cli);
  add_kernel_option(cli, GemmKernel::naive);
  add_article_options(cli);
}

ChangingShapesOptions read(const StageCli& cli, CommonOptions& common) {
  const ChangingShapesConfig shapes = read_changing_shapes_options(cli);
  common.work = changing_shapes_workload(shapes);  // the top bucket's batches, of the requests' shape
  read_kernel_option(cli, common);
  return {read_article_options(cli, common), shapes};
}

Needs needs(const ChangingShapesOptions& options) {
  return {article_memory(options.article),
          "try a smaller --shape-max-batches or --shape-size, or --device-buffers slots"};
}

// The whole sequence at this GPU's rates: every batch of every request as
// one batch in a pipeline, and the host's poison and verification of it
// (about as long again).
Estimate estimate(const ChangingShapesOptions& options, int) {
  const CommonOptions& common = options.article.common;
  const ChangingShapesConfig& shapes = options.shapes;
  const GemmShape& shape = common.work.shape;
  const WorkSeconds batch = work_seconds(Workload{1, shape}, measure_rates(Gemm(common.gemm), shape),
                                         common.host_memory == HostMemory::pageable);
  for (const std::string& warning : options.article.pool.warnings) std::cerr << warning << '\n';
  return {changing_shapes_seconds(shapes, 2.0 * batch.overlapped()),
          "changing shapes: " + plural(shapes.requests, "request") + " of 1 to " +
              plural(shapes.max_batches, "batch") + ", four ways"};
}

ShapeSequenceCosts measure(const ChangingShapesOptions& options) {
  const CommonOptions& common = options.article.common;
  const Gemm gemm(common.gemm);
  ArticleWork article(options.article, gemm);  // the top bucket's batches: a padded request computes real ones
  return measure_changing_shapes(options.shapes, shape_request_steps(article.pool, gemm, article.buffers, common.seed));
}

// .runs: the requests choose their batch counts, --shape-size their shape
// .options: --shape-rounds
const Experiment<ChangingShapesOptions, ShapeSequenceCosts> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = own_workload_defaults(/*rounds=*/false), .options = options, .read = read, .needs = needs,
    .estimate = estimate, .measure = measure, .report = report_changing_shapes};

}  // namespace

// Every count under its own name (UpdateCounts says what each counts).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(UpdateCounts, attempts, applied_same_batches, applied_other_batches, refused,
                                   refused_same_batches, instantiations, refused_result)

std::string_view to_string(ShapeWay way) { return name_of(way, {"streams", "recapture", "exec_update", "buckets"}); }

std::string_view label(ShapeWay way) { return name_of(way, {"streams", "re-capture", "exec update", "buckets"}); }

// ---- the verdicts -------------------------------------------------------------

ShapeWay fastest_way(const std::array<double, kShapeWays>& total_ms) {
  ShapeWay best = ShapeWay::streams;
  for (ShapeWay w : kAllShapeWays) {
    if (ms_of(total_ms, w) < ms_of(total_ms, best)) best = w;
  }
  return best;
}

Verdict fastest_verdict(const std::array<double, kShapeWays>& total_ms, int requests) {
  const ShapeWay best = fastest_way(total_ms);
  const double best_ms = ms_of(total_ms, best);
  Verdict verdict{.id = "changing_shapes.fastest", .outcome = std::string(to_string(best)), .threshold = kEqualWithin};
  verdict.sentence = "fastest end to end over " + plural(requests, "request") + ": " + std::string(label(best)) + ", " +
                     fixed(best_ms, 2) + " ms";
  for (ShapeWay w : kAllShapeWays) {
    verdict.figures[std::string(to_string(w)) + "_total_ms"] = ms_of(total_ms, w);
    if (w == best) continue;
    verdict.sentence += "; " + std::string(label(w)) + " " + fixed(ms_of(total_ms, w), 2) + " ms (" +
                        relative_time(ms_of(total_ms, w), best_ms) + ")";
  }
  verdict.sentence += ".";
  return verdict;
}

ClaimVerdict recapture_claim(double recapture_total_ms, double streams_total_ms) {
  switch (compare_times(recapture_total_ms, streams_total_ms)) {
    case Comparison::slower: return ClaimVerdict::holds;
    case Comparison::same: return ClaimVerdict::borderline;
    case Comparison::faster: break;
  }
  return ClaimVerdict::does_not_hold;
}

Verdict recapture_verdict(double recapture_total_ms, double recapture_prepare_ms, double streams_total_ms) {
  // What the launched graphs gained on the streams, once they existed.
  const double saved_ms = streams_total_ms - (recapture_total_ms - recapture_prepare_ms);
  const ClaimVerdict claim = recapture_claim(recapture_total_ms, streams_total_ms);
  Verdict verdict{.id = "changing_shapes.recapture",
                  .outcome = std::string(to_string(claim)),
                  .figures = {{"recapture_total_ms", recapture_total_ms},
                              {"recapture_prepare_ms", recapture_prepare_ms}, {"streams_total_ms", streams_total_ms},
                              {"saved_ms", saved_ms}},
                  .threshold = kEqualWithin};
  std::string& text = verdict.sentence;
  text = "re-capture + instantiate on every request cost the CPU " + fixed(recapture_prepare_ms, 2) +
         " ms over the sequence; once launched, the graphs ";
  text += saved_ms > 0.0 ? "finished " + fixed(saved_ms, 2) + " ms sooner than the streams"
                         : "were no faster than the streams (" + fixed(-saved_ms, 2) + " ms slower)";
  switch (claim) {
    case ClaimVerdict::holds:
      text += ": re-capturing cost more than the graph saved, " + fixed(recapture_total_ms / streams_total_ms, 2) +
              "x the streams' time end to end.\nThe article's claim holds at this size: when the shape changes with "
              "every request, re-capturing costs more than the graph saves.";
      break;
    case ClaimVerdict::borderline:
      text += ": about what it saved; end to end about as fast as the streams (within " + percent_text(kEqualWithin) +
              ").\nAt this size the article's claim is borderline: re-capturing neither lost nor won.";
      break;
    case ClaimVerdict::does_not_hold:
      text += ": less than it saved; end to end " + compare_phrase(recapture_total_ms, streams_total_ms) +
              " the streams.\nThe article's claim does not hold at this size on this GPU: launching the work as one "
              "graph saved more than capturing it cost.";
      break;
  }
  return verdict;
}

double wasted_gpu_ms(double buckets_gpu_ms, double padding) {
  if (!(padding > 0.0)) return 0.0;
  return buckets_gpu_ms * padding / (1.0 + padding);
}

Verdict bucket_verdict(long long requested, long long computed, double buckets_total_ms, double buckets_gpu_ms,
                       double streams_total_ms, double one_time_ms, int buckets, int requests) {
  const double padding = padding_fraction(requested, computed);
  const double wasted_ms = wasted_gpu_ms(buckets_gpu_ms, padding);
  const bool padded = computed > requested;
  Verdict verdict{.id = "changing_shapes.buckets",
                  .figures = {{"batches_requested", requested}, {"batches_computed", computed}, {"padding", padding},
                              {"wasted_gpu_ms", wasted_ms}, {"buckets_total_ms", buckets_total_ms},
                              {"streams_total_ms", streams_total_ms}, {"one_time_ms", one_time_ms}},
                  .threshold = kEqualWithin};
  std::string& text = verdict.sentence;
  text = padded ? "buckets padded the " + std::to_string(requested) + " requested batches to " +
                      std::to_string(computed) + " (" + percent_text(padding) + " more work, about " +
                      fixed(wasted_ms, 2) + " ms of GPU time spent on padding)"
                : "every request's batch count was a bucket size: no padding";
  const Comparison comparison = compare_times(buckets_total_ms, streams_total_ms);
  if (comparison == Comparison::faster) {
    const double saved_per_request_ms = (streams_total_ms - buckets_total_ms) / requests;
    verdict.outcome = "faster";
    verdict.figures["repaid_after_requests"] = one_time_ms / saved_per_request_ms;
    text += (padded ? ", and still finished " : "; they finished ") + fixed(streams_total_ms / buckets_total_ms, 2) +
            "x faster than the streams: one launch of a ready graph saved more than the padding cost.\nThe up-front "
            "capture + instantiate of the " + std::to_string(buckets) + " buckets (" + fixed(one_time_ms, 2) +
            " ms) is repaid after " + fixed(one_time_ms / saved_per_request_ms, 1) + " requests.";
  } else if (comparison == Comparison::same) {
    verdict.outcome = "same";
    text += "; end to end about as fast as the streams (within " + percent_text(kEqualWithin) + ")" +
            (padded ? ": the padding ate what the launches saved." : ".");
  } else if (!padded) {
    verdict.outcome = "slower_unpadded";
    text += ", yet the bucket launches took " + fixed(buckets_total_ms / streams_total_ms, 2) +
            "x the streams' time: no gain from ready graphs here.";
  } else {
    text += ": " + fixed(buckets_total_ms / streams_total_ms, 2) + "x the streams' time end to end.\n";
    const bool without_padding_wins = buckets_total_ms - wasted_ms < streams_total_ms;
    verdict.outcome = without_padding_wins ? "padding_cost_more" : "slower_anyway";
    text += without_padding_wins
                ? "Without the padding they would have beaten the streams: the padding cost more than launching "
                  "ready graphs saved; at this size finer buckets suit it better."
                : "Even without the padding they would not have beaten the streams: launching ready graphs saved "
                  "nothing here.";
  }
  return verdict;
}

Verdict update_counts_verdict(const UpdateCounts& n, double update_total_ms, double recapture_total_ms) {
  if (n.applied_other_batches > 0) {
    return {.id = "changing_shapes.exec_update",
            .outcome = "unexpected_update",
            .figures = {{"applied_other_batches", n.applied_other_batches}},
            .sentence = "cudaGraphExecUpdate applied " + plural(n.applied_other_batches, "update") +
                        " between different batch counts: unexpected, since a different batch count changes the "
                        "node count (3 per batch); check the capture."};
  }
  std::string text = "cudaGraphExecUpdate: " + std::to_string(n.applied_same_batches) + " of " +
                     std::to_string(n.attempts) + " updates applied (only where a request had the batch count of the "
                     "one before), " + std::to_string(n.refused) + " refused";
  if (!n.refused_result.empty()) text += " (" + n.refused_result + ")";
  text += n.refused > 0 ? " and the exec instantiated again: a different batch count changes the topology, so the "
                          "update can't help.\n"
                        : ".\n";
  text += "exec update took " + fixed(update_total_ms, 2) + " ms end to end, " +
          compare_phrase(update_total_ms, recapture_total_ms) + " re-capture + instantiate (" +
          fixed(recapture_total_ms, 2) + " ms).";
  Verdict verdict = comparison_verdict("changing_shapes.exec_update", update_total_ms, recapture_total_ms, text);
  verdict.figures["attempts"] = n.attempts;
  verdict.figures["applied_same_batches"] = n.applied_same_batches;
  verdict.figures["refused"] = n.refused;
  return verdict;
}

// ---- the report -------------------------------------------------------------

void report_changing_shapes(const ChangingShapesOptions& options, const ShapeSequenceCosts& seq, Report& report) {
  const ChangingShapesConfig& c = seq.config;
  const CommonOptions& common = options.article.common;
  StageResult& result = report.result;
  result = pool_result(result.device, common, options.article.pool);
  result.config["batches"] = nullptr;  // each request's own; the buffers hold the top bucket's
  const Workload one{1, seq.shape};
  std::vector<const VerifyResult*> checks;
  for (ShapeWay w : kAllShapeWays) {
    const ShapeWayCosts& way = seq.way(w);
    const double batches = double(way.batches_requested);
    result.measurements.push_back(Measurement{
        "changing_shapes",
        {{"way", std::string(to_string(w))}, {"requests", c.requests}, {"max_batches", c.max_batches}},
        way.total,
        Work{batches * double(one.a_bytes() + one.c_bytes()), batches * one.flops_per_batch()},
        way.check.passed});
    checks.push_back(&way.check);
  }
  checks.push_back(&seq.buckets.check);
  set_verdict(result, seq.way(ShapeWay::streams).check, checks);
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << gemm_name(common.gemm) << " GEMMs, " << pool_text(common.host_memory, options.article.pool)
      << "\n\nwhen shapes change: " << plural(c.requests, "request") << " of 1.." << plural(c.max_batches, "batch")
      << " each (seed " << c.seed << "), " << seq.shape.m << "x" << seq.shape.n << "x" << seq.shape.k
      << " GEMMs, each run four ways, interleaved per request;\nsums over the sequence, median of "
      << plural(c.rounds, "round") << " (every request's outputs verified):\nbatch counts:";
  for (std::size_t i = 0; i < seq.sequence.size() && i < kBatchCountsPrinted; ++i) out << ' ' << seq.sequence[i];
  if (seq.sequence.size() > kBatchCountsPrinted) out << " ... (" << seq.sequence.size() << " in all)";
  out << "\nbuckets:";
  for (int size : seq.buckets.sizes) out << ' ' << size;
  out << "; captured in " << fixed(seq.buckets.capture_ms, 2) << " ms and instantiated in "
      << fixed(seq.buckets.instantiate_ms, 2) << " ms up front, first launches " << fixed(seq.buckets.first_launch_ms, 2)
      << " ms\n";
  struct WayRow {
    ShapeWay way;
    const ShapeWayCosts* costs;
  };
  std::vector<WayRow> rows;
  for (ShapeWay w : kAllShapeWays) rows.push_back({w, &seq.way(w)});
  report.table(table_of<WayRow>(
      {{"way", [](const WayRow& r) { return std::string(label(r.way)); }},
       {"total ms", [](const WayRow& r) { return fixed(r.costs->total.median_ms, 2); }},
       {"GPU ms", [](const WayRow& r) { return fixed(r.costs->gpu.median_ms, 2); }},
       {"CPU ms", [](const WayRow& r) { return fixed(r.costs->cpu.median_ms, 2); }},
       {"capture/instantiate/update ms", [](const WayRow& r) { return fixed(r.costs->prepare.median_ms, 2); }},
       {"batches computed", [](const WayRow& r) { return std::to_string(r.costs->batches_computed); }},
       {"verified", [](const WayRow& r) { return std::string(r.costs->check.passed ? "yes" : "NO"); }}},
      rows));

  const ShapeWayCosts& recapture = seq.way(ShapeWay::recapture);
  const ShapeWayCosts& buckets = seq.way(ShapeWay::buckets);
  const double streams_ms = seq.way(ShapeWay::streams).total.median_ms;
  nlohmann::json conclusions = nlohmann::json::array();
  for (Verdict verdict :
       {fastest_verdict(totals_of(seq), c.requests),
        recapture_verdict(recapture.total.median_ms, recapture.prepare.median_ms, streams_ms),
        bucket_verdict(buckets.batches_requested, buckets.batches_computed, buckets.total.median_ms,
                       buckets.gpu.median_ms, streams_ms, seq.buckets.one_time_ms(),
                       static_cast<int>(seq.buckets.sizes.size()), c.requests),
        update_counts_verdict(seq.updates, seq.way(ShapeWay::exec_update).total.median_ms,
                              recapture.total.median_ms)}) {
    conclusions.push_back(report.verdict(std::move(verdict)).sentence);
  }
  for (const VerifyResult* check : checks) {
    if (!check->passed) out << "FAILED: " << check->message() << '\n';
  }

  const double padding = padding_fraction(buckets.batches_requested, buckets.batches_computed);
  nlohmann::json ways = nlohmann::json::object();
  for (ShapeWay w : kAllShapeWays) {
    const ShapeWayCosts& way = seq.way(w);
    ways[std::string(to_string(w))] = {{"total_ms", way.total.median_ms},
                                       {"gpu_ms", way.gpu.median_ms},
                                       {"cpu_ms", way.cpu.median_ms},
                                       {"prepare_ms", way.prepare.median_ms},
                                       {"total", summary_json(way.total)},
                                       {"batches_requested", way.batches_requested},
                                       {"batches_computed", way.batches_computed},
                                       {"verified", way.check.passed},
                                       {"batches_checked", way.check.batches_checked}};
  }
  report.sections["changing_shapes"] = {
      {"requests", c.requests},
      {"max_batches", c.max_batches},
      {"seed", c.seed},
      {"rounds", c.rounds},
      {"node_updates_on", false},
      {"sequence",
       {{"shape", {{"m", seq.shape.m}, {"n", seq.shape.n}, {"k", seq.shape.k}}},
        {"batch_counts", seq.sequence},
        {"batches_requested", requested_batches(seq.sequence)},
        {"buckets",
         {{"sizes", seq.buckets.sizes},
          {"capture_ms", seq.buckets.capture_ms},
          {"instantiate_ms", seq.buckets.instantiate_ms},
          {"first_launch_ms", seq.buckets.first_launch_ms},
          {"verified", seq.buckets.check.passed},
          {"batches_computed", buckets.batches_computed},
          {"padding_percent", 100.0 * padding},
          {"wasted_gpu_ms", wasted_gpu_ms(buckets.gpu.median_ms, padding)}}},
        {"ways", ways},
        {"updates", seq.updates},
        {"fastest", std::string(to_string(fastest_way(totals_of(seq))))},
        {"recapture_over_streams", recapture.total.median_ms / streams_ms},
        {"claim", std::string(to_string(recapture_claim(recapture.total.median_ms, streams_ms)))}}},
      {"node_updates", nullptr},
      {"conclusions", conclusions},
  };
}

extern const Subcommand kChangingShapes = make_subcommand<kExperiment>();

}  // namespace csg::graphs
