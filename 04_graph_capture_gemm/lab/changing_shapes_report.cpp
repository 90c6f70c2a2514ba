#include "04_graph_capture_gemm/lab/changing_shapes_report.hpp"

#include <algorithm>

#include "base/enum_names.hpp"
#include "base/text.hpp"
#include "report/conclusions.hpp"
#include "report/table.hpp"

namespace csg::graphs {
namespace {

constexpr std::size_t kBatchCountsPrinted = 20;  // the rest of the sequence is in the JSON

double ms_of(const std::array<double, kShapeWays>& values, ShapeWay way) { return values[std::size_t(way)]; }

// "1.40x as long", or "about as fast: within 3%".
std::string relative_time(double ms, double best_ms) {
  if (compare_times(ms, best_ms) == Comparison::same) return "about as fast: within " + percent_text(kEqualWithin);
  return fixed(ms / best_ms, 2) + "x as long";
}

std::string shape_text(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

nlohmann::json summary_json(const Summary& s) {
  return {{"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms}, {"samples_ms", s.samples_ms}};
}

std::array<double, kShapeWays> totals_of(const ShapeSequenceCosts& seq) {
  std::array<double, kShapeWays> totals{};
  for (ShapeWay w : kAllShapeWays) totals[std::size_t(w)] = seq.way(w).total.median_ms;
  return totals;
}

std::string_view to_string(ClaimVerdict verdict) { return name_of(verdict, {"holds", "borderline", "does_not_hold"}); }

std::string bucket_sentence(const ShapeSequenceCosts& seq) {
  const ShapeWayCosts& b = seq.way(ShapeWay::buckets);
  return bucket_text(b.batches_requested, b.batches_computed, b.total.median_ms, b.gpu.median_ms,
                     seq.way(ShapeWay::streams).total.median_ms, seq.buckets.one_time_ms(),
                     static_cast<int>(seq.buckets.sizes.size()), seq.config.requests);
}

}  // namespace

// Every count under its own name (UpdateCounts says what each counts).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(UpdateCounts, attempts, applied_same_batches, applied_other_batches, refused,
                                   refused_same_batches, instantiations, refused_result)

std::string_view to_string(ShapeWay way) { return name_of(way, {"streams", "recapture", "exec_update", "buckets"}); }

std::string_view label(ShapeWay way) { return name_of(way, {"streams", "re-capture", "exec update", "buckets"}); }

// ---- conclusions ------------------------------------------------------------

ShapeWay fastest_way(const std::array<double, kShapeWays>& total_ms) {
  ShapeWay best = ShapeWay::streams;
  for (ShapeWay w : kAllShapeWays) {
    if (ms_of(total_ms, w) < ms_of(total_ms, best)) best = w;
  }
  return best;
}

std::string fastest_text(const std::array<double, kShapeWays>& total_ms, int requests) {
  const ShapeWay best = fastest_way(total_ms);
  const double best_ms = ms_of(total_ms, best);
  std::string text = "fastest end to end over " + plural(requests, "request") + ": " +
                     std::string(label(best)) + ", " + fixed(best_ms, 2) + " ms";
  for (ShapeWay w : kAllShapeWays) {
    if (w == best) continue;
    text += "; " + std::string(label(w)) + " " + fixed(ms_of(total_ms, w), 2) + " ms (" +
            relative_time(ms_of(total_ms, w), best_ms) + ")";
  }
  return text + ".";
}

ClaimVerdict recapture_verdict(double recapture_total_ms, double streams_total_ms) {
  switch (compare_times(recapture_total_ms, streams_total_ms)) {
    case Comparison::slower: return ClaimVerdict::holds;
    case Comparison::same: return ClaimVerdict::borderline;
    case Comparison::faster: break;
  }
  return ClaimVerdict::does_not_hold;
}

std::string recapture_text(double recapture_total_ms, double recapture_prepare_ms, double streams_total_ms) {
  // What the launched graphs gained on the streams, once they existed.
  const double saved_ms = streams_total_ms - (recapture_total_ms - recapture_prepare_ms);
  std::string text = "re-capture + instantiate on every request cost the CPU " + fixed(recapture_prepare_ms, 2) +
                     " ms over the sequence; once launched, the graphs ";
  text += saved_ms > 0.0 ? "finished " + fixed(saved_ms, 2) + " ms sooner than the streams"
                         : "were no faster than the streams (" + fixed(-saved_ms, 2) + " ms slower)";
  switch (recapture_verdict(recapture_total_ms, streams_total_ms)) {
    case ClaimVerdict::holds:
      return text + ": re-capturing cost more than the graph saved, " +
             fixed(recapture_total_ms / streams_total_ms, 2) +
             "x the streams' time end to end.\nThe article's claim holds at this size: when the shape changes with "
             "every request, re-capturing costs more than the graph saves.";
    case ClaimVerdict::borderline:
      return text + ": about what it saved; end to end about as fast as the streams (within " +
             percent_text(kEqualWithin) + ").\nAt this size the article's claim is borderline: re-capturing neither "
             "lost nor won.";
    case ClaimVerdict::does_not_hold:
      break;
  }
  return text + ": less than it saved; end to end " + compare_phrase(recapture_total_ms, streams_total_ms) +
         " the streams.\nThe article's claim does not hold at this size on this GPU: launching the work as one "
         "graph saved more than capturing it cost.";
}

double wasted_gpu_ms(double buckets_gpu_ms, double padding) {
  if (!(padding > 0.0)) return 0.0;
  return buckets_gpu_ms * padding / (1.0 + padding);
}

std::string bucket_text(long long requested, long long computed, double buckets_total_ms, double buckets_gpu_ms,
                        double streams_total_ms, double one_time_ms, int buckets, int requests) {
  const double padding = padding_fraction(requested, computed);
  const bool padded = computed > requested;
  std::string text = padded ? "buckets padded the " + std::to_string(requested) + " requested batches to " +
                                  std::to_string(computed) + " (" + percent_text(padding) +
                                  " more work, about " + fixed(wasted_gpu_ms(buckets_gpu_ms, padding), 2) +
                                  " ms of GPU time spent on padding)"
                            : "every request's batch count was a bucket size: no padding";
  switch (compare_times(buckets_total_ms, streams_total_ms)) {
    case Comparison::faster: {
      const double saved_per_request_ms = (streams_total_ms - buckets_total_ms) / requests;
      return text + (padded ? ", and still finished " : "; they finished ") +
             fixed(streams_total_ms / buckets_total_ms, 2) + "x faster than the streams: one launch of a ready graph "
             "saved more than the padding cost.\nThe up-front capture + instantiate of the " +
             std::to_string(buckets) + " buckets (" + fixed(one_time_ms, 2) + " ms) is repaid after " +
             fixed(one_time_ms / saved_per_request_ms, 1) + " requests.";
    }
    case Comparison::same:
      return text + "; end to end about as fast as the streams (within " + percent_text(kEqualWithin) + ")" +
             (padded ? ": the padding ate what the launches saved." : ".");
    case Comparison::slower:
      break;
  }
  const std::string slower = fixed(buckets_total_ms / streams_total_ms, 2) + "x the streams' time";
  if (!padded) return text + ", yet the bucket launches took " + slower + ": no gain from ready graphs here.";
  text += ": " + slower + " end to end.\n";
  if (buckets_total_ms - wasted_gpu_ms(buckets_gpu_ms, padding) < streams_total_ms) {
    return text + "Without the padding they would have beaten the streams: the padding cost more than launching "
                  "ready graphs saved; at this size finer buckets suit it better.";
  }
  return text + "Even without the padding they would not have beaten the streams: launching ready graphs saved "
                "nothing here.";
}

std::string update_counts_text(const UpdateCounts& n, double update_total_ms, double recapture_total_ms) {
  if (n.applied_other_batches > 0) {
    return "cudaGraphExecUpdate applied " + plural(n.applied_other_batches, "update") +
           " between different batch counts: unexpected, since a different batch count changes the "
           "node count (3 per batch); check the capture.";
  }
  std::string text = "cudaGraphExecUpdate: " + std::to_string(n.applied_same_batches) + " of " +
                     std::to_string(n.attempts) +
                     " updates applied (only where a request had the batch count of the one before), " + std::to_string(n.refused) +
                     " refused";
  if (!n.refused_result.empty()) text += " (" + n.refused_result + ")";
  text += n.refused > 0 ? " and the exec instantiated again: a different batch count changes the topology, so the "
                          "update can't help.\n"
                        : ".\n";
  return text + "exec update took " + fixed(update_total_ms, 2) + " ms end to end, " +
         compare_phrase(update_total_ms, recapture_total_ms) + " re-capture + instantiate (" +
         fixed(recapture_total_ms, 2) + " ms).";
}

std::string node_update_text(double whole_graph_ms, std::optional<double> node_level_ms, double recapture_ms,
                             std::size_t nodes, const std::string& note) {
  if (!node_level_ms) {
    return note + "; capture + cudaGraphExecUpdate took " + fixed(whole_graph_ms, 3) + " ms, " +
           compare_phrase(whole_graph_ms, recapture_ms) + " re-capture + instantiate (" + fixed(recapture_ms, 3) +
           " ms).";
  }
  const double node_ms = *node_level_ms;
  const bool fastest = compare_times(node_ms, whole_graph_ms) == Comparison::faster &&
                       compare_times(node_ms, recapture_ms) == Comparison::faster;
  return "switching the exec to new buffers node by node (" + std::to_string(nodes) +
         " SetParams calls, no capture) took " + fixed(node_ms, 3) + " ms, " + compare_phrase(node_ms, whole_graph_ms) +
         " capture + cudaGraphExecUpdate (" + fixed(whole_graph_ms, 3) + " ms) and " +
         compare_phrase(node_ms, recapture_ms) + " re-capture + instantiate (" + fixed(recapture_ms, 3) + " ms)" +
         (fastest ? ":\nwhen only pointers change and the nodes are known, setting them directly skips the capture."
                  : ":\nhere one call per node cost as much as capturing the graph again.");
}

// ---- results ----------------------------------------------------------------

std::vector<std::string> changing_shapes_conclusions(const ChangingShapesRun& run) {
  std::vector<std::string> lines;
  if (run.sequence) {
    const ShapeSequenceCosts& seq = *run.sequence;
    const ShapeWayCosts& recapture = seq.way(ShapeWay::recapture);
    const double streams_ms = seq.way(ShapeWay::streams).total.median_ms;
    lines.push_back(fastest_text(totals_of(seq), seq.config.requests));
    lines.push_back(recapture_text(recapture.total.median_ms, recapture.prepare.median_ms, streams_ms));
    lines.push_back(bucket_sentence(seq));
    lines.push_back(update_counts_text(seq.updates, seq.way(ShapeWay::exec_update).total.median_ms,
                                       recapture.total.median_ms));
  }
  if (run.node_updates) {
    const NodeUpdateCosts& n = *run.node_updates;
    lines.push_back(node_update_text(n.whole_graph.median_ms,
                                     n.node_level ? std::optional<double>(n.node_level->median_ms) : std::nullopt,
                                     n.recapture_instantiate.median_ms, n.kernel_nodes + n.memcpy_nodes,
                                     n.node_level_note));
  }
  return lines;
}

void print_changing_shapes(std::ostream& out, const ChangingShapesRun& run) {
  if (!run.sequence && !run.node_updates) return;
  const std::vector<std::string> conclusions = changing_shapes_conclusions(run);
  std::size_t next = 0;
  if (run.sequence) {
    const ShapeSequenceCosts& seq = *run.sequence;
    const ChangingShapesConfig& c = seq.config;
    out << "\nwhen shapes change: " << plural(c.requests, "request") << " of 1.." << plural(c.max_batches, "batch")
        << " each (seed " << c.seed << "), " << shape_text(seq.shape)
        << " GEMMs, each run four ways, interleaved per request;\nsums over the sequence, median of "
        << plural(c.rounds, "round") << " (every request's outputs verified):\n";
    out << "batch counts:";
    for (std::size_t i = 0; i < seq.sequence.size() && i < kBatchCountsPrinted; ++i) out << ' ' << seq.sequence[i];
    if (seq.sequence.size() > kBatchCountsPrinted) out << " ... (" << seq.sequence.size() << " in all)";
    out << "\nbuckets:";
    for (int size : seq.buckets.sizes) out << ' ' << size;
    out << "; captured in " << fixed(seq.buckets.capture_ms, 2) << " ms and instantiated in "
        << fixed(seq.buckets.instantiate_ms, 2) << " ms up front, first launches " << fixed(seq.buckets.first_launch_ms, 2)
        << " ms\n";
    Table table({"way", "total ms", "GPU ms", "CPU ms", "capture/instantiate/update ms", "batches computed",
                 "verified"});
    for (ShapeWay w : kAllShapeWays) {
      const ShapeWayCosts& way = seq.way(w);
      table.add_row({std::string(label(w)), fixed(way.total.median_ms, 2), fixed(way.gpu.median_ms, 2),
                     fixed(way.cpu.median_ms, 2), fixed(way.prepare.median_ms, 2),
                     std::to_string(way.batches_computed), way.check.passed ? "yes" : "NO"});
    }
    table.print(out);
    for (; next < 4; ++next) out << conclusions[next] << '\n';
  }
  if (run.node_updates) {
    const NodeUpdateCosts& n = *run.node_updates;
    out << "\nswitching one exec of the " << n.batches << "-batch graph to a second set of buffers (host time):\n";
    Table table({"switch", "median ms", "min ms", "max ms", "verified"});
    auto row = [&](const std::string& name, const Summary& s, const VerifyResult& check) {
      table.add_row({name, fixed(s.median_ms, 3), fixed(s.min_ms, 3), fixed(s.max_ms, 3), check.passed ? "yes" : "NO"});
    };
    row("capture + cudaGraphExecUpdate", n.whole_graph, n.whole_graph_check);
    if (n.node_level && n.node_level_check) row("node by node (SetParams)", *n.node_level, *n.node_level_check);
    row("re-capture + instantiate", n.recapture_instantiate, n.recapture_check);
    table.print(out);
    out << conclusions[next] << '\n';
  }
  for (const VerifyResult* check : changing_shapes_checks(run)) {
    if (!check->passed) out << "FAILED: " << check->message() << '\n';
  }
}

nlohmann::json changing_shapes_json(const ChangingShapesRun& run) {
  const ChangingShapesConfig& c = run.config;
  nlohmann::json doc = {{"requests", c.requests}, {"max_batches", c.max_batches}, {"seed", c.seed},
                        {"rounds", c.rounds},     {"node_updates_on", run.node_updates.has_value()}};
  doc["sequence"] = nullptr;
  if (run.sequence) {
    const ShapeSequenceCosts& seq = *run.sequence;
    const ShapeWayCosts& b = seq.way(ShapeWay::buckets);
    const double padding = padding_fraction(b.batches_requested, b.batches_computed);
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
    const double recapture_ms = seq.way(ShapeWay::recapture).total.median_ms;
    const double streams_ms = seq.way(ShapeWay::streams).total.median_ms;
    doc["sequence"] = {
        {"shape", {{"m", seq.shape.m}, {"n", seq.shape.n}, {"k", seq.shape.k}}},
        {"batch_counts", seq.sequence},
        {"batches_requested", requested_batches(seq.sequence)},
        {"buckets",
         {{"sizes", seq.buckets.sizes},
          {"capture_ms", seq.buckets.capture_ms},
          {"instantiate_ms", seq.buckets.instantiate_ms},
          {"first_launch_ms", seq.buckets.first_launch_ms},
          {"verified", seq.buckets.check.passed},
          {"batches_computed", b.batches_computed},
          {"padding_percent", 100.0 * padding},
          {"wasted_gpu_ms", wasted_gpu_ms(b.gpu.median_ms, padding)}}},
        {"ways", ways},
        {"updates", seq.updates},
        {"fastest", std::string(to_string(fastest_way(totals_of(seq))))},
        {"recapture_over_streams", recapture_ms / streams_ms},
        {"claim", std::string(to_string(recapture_verdict(recapture_ms, streams_ms)))},
    };
  }
  doc["node_updates"] = nullptr;
  if (run.node_updates) {
    const NodeUpdateCosts& n = *run.node_updates;
    doc["node_updates"] = {
        {"batches", n.batches},
        {"kernel_nodes", n.kernel_nodes},
        {"memcpy_nodes", n.memcpy_nodes},
        {"whole_graph_ms", n.whole_graph.median_ms},
        {"node_level_ms", n.node_level ? nlohmann::json(n.node_level->median_ms) : nlohmann::json(nullptr)},
        {"node_level_note", n.node_level_note},
        {"recapture_instantiate_ms", n.recapture_instantiate.median_ms},
        {"verified", n.whole_graph_check.passed && n.recapture_check.passed &&
                         (!n.node_level_check || n.node_level_check->passed)},
    };
  }
  doc["conclusions"] = changing_shapes_conclusions(run);
  return doc;
}

std::vector<Measurement> changing_shapes_measurements(const ChangingShapesRun& run) {
  std::vector<Measurement> out;
  if (run.sequence) {
    const ShapeSequenceCosts& seq = *run.sequence;
    const Workload one{1, seq.shape};
    for (ShapeWay w : kAllShapeWays) {
      const ShapeWayCosts& way = seq.way(w);
      const double batches = double(way.batches_requested);
      out.push_back(Measurement{"changing_shapes",
                                {{"way", std::string(to_string(w))},
                                 {"requests", seq.config.requests},
                                 {"max_batches", seq.config.max_batches}},
                                way.total,
                                Work{batches * double(one.a_bytes() + one.c_bytes()), batches * one.flops_per_batch()},
                                way.check.passed});
    }
  }
  if (run.node_updates) {
    const NodeUpdateCosts& n = *run.node_updates;
    auto add = [&](const char* how, const Summary& s, bool passed) {
      out.push_back(Measurement{"node_update", {{"how", how}, {"batches", n.batches}}, s, Work{}, passed});
    };
    add("whole_graph", n.whole_graph, n.whole_graph_check.passed);
    if (n.node_level) add("node_level", *n.node_level, n.node_level_check && n.node_level_check->passed);
    add("recapture_instantiate", n.recapture_instantiate, n.recapture_check.passed);
  }
  return out;
}

std::vector<const VerifyResult*> changing_shapes_checks(const ChangingShapesRun& run) {
  std::vector<const VerifyResult*> checks;
  if (run.sequence) {
    for (ShapeWay w : kAllShapeWays) checks.push_back(&run.sequence->way(w).check);
    checks.push_back(&run.sequence->buckets.check);
  }
  if (run.node_updates) {
    checks.push_back(&run.node_updates->whole_graph_check);
    if (run.node_updates->node_level_check) checks.push_back(&*run.node_updates->node_level_check);
    checks.push_back(&run.node_updates->recapture_check);
  }
  return checks;
}

}  // namespace csg::graphs
