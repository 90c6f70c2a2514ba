#include "04_graph_capture_gemm/lab/changing-shapes/changing_shapes.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
changing-shapes: requests of random batch counts: streams, re-capture, exec update or buckets

Requests of random batch counts, each run four ways: on the stream pool, re-captured and
instantiated, one exec updated with cudaGraphExecUpdate, or launched from buckets of graphs captured
up front (powers of two, the extra batches computed for nothing).
)";

constexpr const char* kRuns = R"(
q    -     --shape-requests 30
fc   -
t    tiny  --shape-requests 5 --shape-max-batches 9 --shape-size 16 --shape-rounds 1 --streams 3
m    -     ctest=api_errors_expected --shape-requests 3 --shape-max-batches 4 --shape-size 8 --shape-rounds 1 --streams 2
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

nlohmann::json samples_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"samples_ms", s.samples_ms}};
}

// ---- the declaration ------------------------------------------------------------

void options(StageCli& cli) {
  add_changing_shapes_options(cli);
  add_kernel_article_options(cli);
}

ChangingShapesOptions read(const StageCli& cli, CommonOptions& common) {
  const ChangingShapesConfig shapes = read_changing_shapes_options(cli);
  common.work = changing_shapes_workload(shapes);  // the top bucket's batches, of the requests' shape
  return {read_kernel_article_options(cli, common), shapes};
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
  return *std::min_element(kAllShapeWays.begin(), kAllShapeWays.end(),
                           [&](ShapeWay a, ShapeWay b) { return ms_of(total_ms, a) < ms_of(total_ms, b); });
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
  // The article's claim holds where re-capturing is slower than the streams.
  return by_comparison(compare_times(recapture_total_ms, streams_total_ms), ClaimVerdict::does_not_hold,
                       ClaimVerdict::borderline, ClaimVerdict::holds);
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
  std::string text = padded ? "buckets padded the " + std::to_string(requested) + " requested batches to " +
                                  std::to_string(computed) + " (" + percent_text(padding) + " more work, about " +
                                  fixed(wasted_ms, 2) + " ms of GPU time spent on padding)"
                            : "every request's batch count was a bucket size: no padding";
  const Comparison comparison = compare_times(buckets_total_ms, streams_total_ms);
  if (comparison == Comparison::faster) {
    const double saved_per_request_ms = (streams_total_ms - buckets_total_ms) / requests;
    verdict.figures["repaid_after_requests"] = one_time_ms / saved_per_request_ms;
    return decided(verdict, "faster",
                   text + (padded ? ", and still finished " : "; they finished ") +
                       fixed(streams_total_ms / buckets_total_ms, 2) +
                       "x faster than the streams: one launch of a ready graph saved more than the padding cost.\nThe "
                       "up-front capture + instantiate of the " + std::to_string(buckets) + " buckets (" +
                       fixed(one_time_ms, 2) + " ms) is repaid after " +
                       fixed(one_time_ms / saved_per_request_ms, 1) + " requests.");
  }
  if (comparison == Comparison::same) {
    return decided(verdict, "same",
                   text + "; end to end about as fast as the streams (within " + percent_text(kEqualWithin) + ")" +
                       (padded ? ": the padding ate what the launches saved." : "."));
  }
  if (!padded) {
    return decided(verdict, "slower_unpadded",
                   text + ", yet the bucket launches took " + fixed(buckets_total_ms / streams_total_ms, 2) +
                       "x the streams' time: no gain from ready graphs here.");
  }
  text += ": " + fixed(buckets_total_ms / streams_total_ms, 2) + "x the streams' time end to end.\n";
  if (buckets_total_ms - wasted_ms < streams_total_ms) {
    return decided(verdict, "padding_cost_more",
                   text + "Without the padding they would have beaten the streams: the padding cost more than "
                          "launching ready graphs saved; at this size finer buckets suit it better.");
  }
  return decided(verdict, "slower_anyway",
                 text + "Even without the padding they would not have beaten the streams: launching ready graphs "
                        "saved nothing here.");
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
  verdict.figures.update(
      {{"attempts", n.attempts}, {"applied_same_batches", n.applied_same_batches}, {"refused", n.refused}});
  return verdict;
}

// ---- the report -------------------------------------------------------------

void report_changing_shapes(const ChangingShapesOptions& options, const ShapeSequenceCosts& seq, Report& report) {
  const ChangingShapesConfig& c = seq.config;
  const CommonOptions& common = options.article.common;
  StageResult& result = report.result;
  result = pool_result(result.device, common, options.article.pool);
  result.config["batches"] = nullptr;  // each request's own; the buffers hold the top bucket's
  std::vector<const VerifyResult*> checks;
  for (ShapeWay w : kAllShapeWays) {
    const ShapeWayCosts& way = seq.way(w);
    result.measurements.push_back(checked_without_digest(
        "changing_shapes",
        {{"way", std::string(to_string(w))}, {"requests", c.requests}, {"max_batches", c.max_batches}}, way.total,
        work_of(Workload{static_cast<int>(way.batches_requested), seq.shape}), way.check.passed));
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
  report.table(table_of<ShapeWay>(
      {{"way", [](ShapeWay w) { return std::string(label(w)); }},
       {"total ms", [&seq](ShapeWay w) { return fixed(seq.way(w).total.median_ms, 2); }},
       {"GPU ms", [&seq](ShapeWay w) { return fixed(seq.way(w).gpu.median_ms, 2); }},
       {"CPU ms", [&seq](ShapeWay w) { return fixed(seq.way(w).cpu.median_ms, 2); }},
       {"capture/instantiate/update ms", [&seq](ShapeWay w) { return fixed(seq.way(w).prepare.median_ms, 2); }},
       {"batches computed", [&seq](ShapeWay w) { return std::to_string(seq.way(w).batches_computed); }},
       {"verified", [&seq](ShapeWay w) { return std::string(seq.way(w).check.passed ? "yes" : "NO"); }}},
      kAllShapeWays));

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
                                       {"total", samples_json(way.total)},
                                       {"batches_requested", way.batches_requested},
                                       {"batches_computed", way.batches_computed},
                                       {"verified", way.check.passed},
                                       {"batches_checked", way.check.batches_checked}};
  }
  report.sections["changing_shapes"] = changing_shapes_section(
      c,
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
       {"claim", std::string(to_string(recapture_claim(recapture.total.median_ms, streams_ms)))}},
      nullptr, conclusions);
}

// ---- the measurement ------------------------------------------------------------

namespace {

// ---- the sequence -----------------------------------------------------------

struct RequestTimes {
  Millis total{0};
  Millis gpu{0};
  Millis cpu{0};
  Millis prepare{0};
};

struct RoundSums {
  std::vector<Millis> total, gpu, cpu, prepare;  // one per round
  void start_round() {
    for (auto* v : {&total, &gpu, &cpu, &prepare}) v->push_back(Millis{0});
  }
  void add(const RequestTimes& t) {
    total.back() += t.total;
    gpu.back() += t.gpu;
    cpu.back() += t.cpu;
    prepare.back() += t.prepare;
  }
};

}  // namespace

ShapeSequenceCosts measure_changing_shapes(const ChangingShapesConfig& config, const ShapeRequestSteps& steps) {
  if (!config.sequence_on()) throw std::invalid_argument("measure_changing_shapes: the sequence is off");
  BatchBuffers& buffers = *steps.buffers;
  ShapeSequenceCosts costs;
  costs.config = config;
  costs.shape = buffers.work().shape;
  costs.sequence = request_sequence(config);
  costs.buckets.sizes = bucket_sizes(config.max_batches);
  if (buffers.work().batches < costs.buckets.sizes.back()) {
    throw std::invalid_argument("measure_changing_shapes: the buffers hold " + std::to_string(buffers.work().batches) +
                                " batches; the largest bucket needs " + std::to_string(costs.buckets.sizes.back()));
  }
  EventTimer timer;

  // d. the buckets: captured and instantiated up front, each launched once
  // (which uploads it) and verified.
  std::map<int, GraphExec> bucket_execs;  // by bucket size
  for (int size : costs.buckets.sizes) {
    const HostTimer capture_timer;
    const Graph graph = steps.capture(buffers, size);
    costs.buckets.capture_ms += capture_timer.elapsed().count();
    const HostTimer instantiate_timer;
    GraphExec exec = steps.instantiate(graph);
    costs.buckets.instantiate_ms += instantiate_timer.elapsed().count();
    bucket_execs.emplace(size, std::move(exec));
  }
  for (const auto& [size, exec] : bucket_execs) {
    buffers.poison_first(size, steps.stream);
    costs.buckets.first_launch_ms += host_synchronised(steps.stream, [&] { steps.launch(exec); }).count();
    fold_check(costs.buckets.check, buffers.verify_first(steps.data_seed, size));
  }

  GraphExec update_exec_of_way;  // c.: the one exec that cudaGraphExecUpdate keeps changing
  int exec_batches = 0;          // the batch count it was last instantiated or updated for
  bool timed = false;            // the warm-up's updates are not counted

  // One request of `batches`, one way: untimed poison before, verify after.
  auto run_request = [&](ShapeWay way, int batches) {
    const int computed = way == ShapeWay::buckets ? bucket_for(batches, costs.buckets.sizes) : batches;
    buffers.poison_first(computed, steps.stream);
    RequestTimes t;
    // Graphs and execs made or replaced here are destroyed after the timers are read.
    Graph graph;
    GraphExec fresh;    // b.'s exec of this request
    GraphExec retired;  // c.'s exec before a re-instantiation
    const HostTimer wall;
    switch (way) {
      case ShapeWay::streams:  // a.
        timer.start(steps.stream);
        steps.issue_on_streams(buffers, batches);
        break;
      case ShapeWay::recapture:  // b.
        graph = steps.capture(buffers, batches);
        fresh = steps.instantiate(graph);
        t.prepare = wall.elapsed();
        timer.start(steps.stream);
        steps.launch(fresh);
        break;
      case ShapeWay::exec_update: {  // c.
        graph = steps.capture(buffers, batches);
        UpdateCounts& n = costs.updates;
        bool instantiate = !update_exec_of_way.get();
        if (!instantiate) {
          const ExecUpdateAttempt attempt = update_exec(update_exec_of_way, graph);
          const bool same_batches = batches == exec_batches;
          if (timed) {
            ++n.attempts;
            if (attempt.applied()) {
              ++(same_batches ? n.applied_same_batches : n.applied_other_batches);
            } else {
              ++n.refused;
              if (same_batches) ++n.refused_same_batches;
              if (n.refused_result.empty()) n.refused_result = attempt.describe();
            }
          }
          if (!attempt.applied() && same_batches) {
            throw std::runtime_error("cudaGraphExecUpdate refused a graph of the same batch count: " +
                                     attempt.describe());
          }
          instantiate = !attempt.applied();
        }
        if (instantiate) {
          retired = std::move(update_exec_of_way);
          update_exec_of_way = steps.instantiate(graph);
          if (timed) ++n.instantiations;
        }
        exec_batches = batches;
        t.prepare = wall.elapsed();
        timer.start(steps.stream);
        steps.launch(update_exec_of_way);
        break;
      }
      case ShapeWay::buckets: {  // d.
        const GraphExec& exec = bucket_execs.at(computed);
        timer.start(steps.stream);
        steps.launch(exec);
        break;
      }
    }
    t.cpu = wall.elapsed();
    t.gpu = timer.stop();  // waits until the request's work is done
    t.total = wall.elapsed();
    ShapeWayCosts& w = costs.way(way);
    if (timed) {
      w.batches_requested += batches;
      w.batches_computed += computed;
    }
    fold_check(w.check, buffers.verify_first(steps.data_seed, computed));
    return t;
  };

  const int warmup = std::min(config.requests, kShapeWarmupRequests);
  for (int r = 0; r < warmup; ++r) {
    for (ShapeWay way : kAllShapeWays) static_cast<void>(run_request(way, costs.sequence[std::size_t(r)]));
  }
  timed = true;
  std::array<RoundSums, kShapeWays> sums;
  for (int round = 0; round < config.rounds; ++round) {
    for (RoundSums& s : sums) s.start_round();
    for (int batches : costs.sequence) {
      throw_if_interrupted("the changing-shapes experiment");
      for (ShapeWay way : kAllShapeWays) sums[std::size_t(way)].add(run_request(way, batches));
    }
  }
  for (ShapeWay way : kAllShapeWays) {
    ShapeWayCosts& w = costs.way(way);
    const RoundSums& s = sums[std::size_t(way)];
    w.total = summarize(s.total);
    w.gpu = summarize(s.gpu);
    w.cpu = summarize(s.cpu);
    w.prepare = summarize(s.prepare);
    w.batches_requested /= config.rounds;
    w.batches_computed /= config.rounds;
  }
  return costs;
}

ShapeRequestSteps shape_request_steps(const StreamPool& pool, const Gemm& gemm, BatchBuffers& buffers,
                                      std::uint64_t data_seed) {
  return {graph_calls(pool, gemm),
          [&pool, &gemm](BatchBuffers& b, int batches) { issue_on_streams(batch_ops(b, gemm), pool, batches); },
          &buffers, data_seed, pool[0]};
}

extern const Subcommand kChangingShapes = make_subcommand<kExperiment>();

}  // namespace csg::graphs
