#include "03_stream_pool_gemm/lab/graph-priorities/graph_priorities.hpp"

#include "experiment/lab.hpp"

namespace csg::pool {
namespace {

constexpr const char* kAbout = R"(
graph-priorities: short kernels beside a flood as graphs, without and with the node priority flag

The short kernels of `priorities` beside its flood, as kernels on a default- and a greatest-priority
stream, and as one-node graphs whose node carries the greatest priority: instantiated plainly
(launched on either stream) and with cudaGraphInstantiateFlagUseNodePriority; each round runs every
way once.
)";

constexpr const char* kRuns = R"(
# short kernels beside a flood, as streams and as graphs; shared memory  appendix
fc   -
q    -  --warmup 1 --repeats 5
t    tiny  ctest=whole_gpu --priority-samples 20 --warmup 0 --repeats 1
s    -     --priority-samples 4 --flood-waves 1 --flood-depth 2 --warmup 0 --repeats 1
)";

// Capturing and instantiating one short kernel's graph twice (measured order
// of magnitude: tens of us), for the estimate.
constexpr double kGraphSetupUs = 60.0;

}  // namespace

std::string_view to_string(GraphWay way) {
  return name_of(way, {"idle", "stream_default", "stream_greatest", "graph_plain", "graph_node_priority",
                       "graph_on_greatest"});
}

std::string_view label(GraphWay way) {
  return name_of(way, {"kernels alone, idle GPU", "kernels, default-priority stream",
                       "kernels, greatest-priority stream", "graphs, no flag, default-priority stream",
                       "graphs, node priority flag, default stream", "graphs, no flag, greatest-priority stream"});
}

namespace {

// The median latency of `slow` over `fast` (0 when not measured).
double graph_speedup(const GraphPriorityResult& r, GraphWay slow, GraphWay fast) {
  const double fast_ms = r.at(fast).latency.median_ms;
  return fast_ms > 0.0 ? r.at(slow).latency.median_ms / fast_ms : 0.0;
}

// "123.4 us (p99 234.5)": a way's median and 99th percentile.
std::string latency_text(const GraphPriorityResult& r, GraphWay way) {
  const Summary& s = r.at(way).latency;
  return us(s.median_ms) + " us (p99 " + us(p99_ms(s)) + ")";
}

double median_of_way(const GraphPriorityResult& r, GraphWay way) { return r.at(way).latency.median_ms; }

nlohmann::json way_figures(const GraphPriorityResult& r, std::initializer_list<GraphWay> ways) {
  nlohmann::json figures = nlohmann::json::object();
  for (const GraphWay way : ways) {
    figures[std::string(to_string(way)) + "_median_ms"] = median_of_way(r, way);
    figures[std::string(to_string(way)) + "_p99_ms"] = p99_ms(r.at(way).latency);
  }
  return figures;
}

}  // namespace

Verdict node_priority_verdict(const GraphPriorityResult& r) {
  const double speedup = graph_speedup(r, GraphWay::graph_plain, GraphWay::graph_node_priority);
  const double busy = r.at(GraphWay::stream_default).flood_busy;
  const PriorityVerdict judged = judge_latency(r, busy, speedup);
  Verdict verdict{.id = "graph_priorities.node_priority",
                  .outcome = std::string(to_string(judged)),
                  .figures = way_figures(r, {GraphWay::stream_default, GraphWay::stream_greatest,
                                             GraphWay::graph_plain, GraphWay::graph_node_priority}),
                  .threshold = {{"priority_within", kPriorityWithin}, {"flood_full", kFloodFull}}};
  verdict.figures["median_latency_speedup"] = speedup;
  const double flagged = median_of_way(r, GraphWay::graph_node_priority);
  const double plain = median_of_way(r, GraphWay::graph_plain);
  const std::string streams =
      "\n  kernels on streams: " + latency_text(r, GraphWay::stream_default) + " at the default priority, " +
      latency_text(r, GraphWay::stream_greatest) + " at the greatest";
  const std::string beside =
      "\n  with the flag the graph was " +
      compare_phrase(flagged, median_of_way(r, GraphWay::stream_greatest), kPriorityWithin) +
      " kernels on the greatest-priority stream; without it, " +
      compare_phrase(plain, median_of_way(r, GraphWay::stream_default), kPriorityWithin) +
      " kernels on its\n  default-priority launch stream.";
  const std::string both = "median " + latency_text(r, GraphWay::graph_node_priority) + " with the flag, " +
                           latency_text(r, GraphWay::graph_plain) + " without";
  // With the flag as fast as the greatest-priority stream (within the band or
  // faster); without it as slow as the default-priority one (or slower).
  const bool flag_kept = compare_times(flagged, median_of_way(r, GraphWay::stream_greatest), kPriorityWithin) !=
                         Comparison::slower;
  const bool plain_lost = compare_times(plain, median_of_way(r, GraphWay::stream_default), kPriorityWithin) !=
                          Comparison::faster;
  switch (judged) {
    case PriorityVerdict::helps:
      verdict.sentence = "cudaGraphInstantiateFlagUseNodePriority cut the graph's short kernels' median latency " +
                         fixed(speedup, 1) + "x" +
                         (flag_kept && plain_lost ? ": with it the nodes'\n  greatest priority ruled, without it the "
                                                    "stream the graph was launched on did.\n  "
                                                  : ".\n  ") +
                         both + streams + "." + beside;
      break;
    case PriorityVerdict::no_difference: {
      const bool streams_helped =
          judge_latency(r, busy, graph_speedup(r, GraphWay::stream_default, GraphWay::stream_greatest)) ==
          PriorityVerdict::helps;
      verdict.sentence = "cudaGraphInstantiateFlagUseNodePriority made no difference to the graph's short kernels "
                         "within " + percent_text(kPriorityWithin) + ":\n  " + both + streams +
                         (!streams_helped ? ";\n  priority did not help kernels on streams either: there was nothing "
                                            "to keep."
                          : flag_kept     ? ";\n  the graph kept its nodes' priority even without the flag."
                                          : ";\n  priority helps kernels on streams here, so the graph's nodes lost "
                                            "theirs.");
      break;
    }
    case PriorityVerdict::worse:
      verdict.sentence = "cudaGraphInstantiateFlagUseNodePriority made the graph's short kernels slower, " +
                         fixed(1.0 / speedup, 2) + "x:\n  " + both + streams + "." + beside;
      break;
    default:
      verdict.sentence = failed_check_sentence(judged, r, busy, "graph priorities");
      break;
  }
  return verdict;
}

Verdict launch_stream_verdict(const GraphPriorityResult& r) {
  const double speedup = graph_speedup(r, GraphWay::graph_plain, GraphWay::graph_on_greatest);
  const double busy = r.at(GraphWay::stream_default).flood_busy;
  const PriorityVerdict judged = judge_latency(r, busy, speedup);
  Verdict verdict{.id = "graph_priorities.launch_stream",
                  .outcome = std::string(to_string(judged)),
                  .figures = way_figures(r, {GraphWay::graph_plain, GraphWay::graph_on_greatest}),
                  .threshold = {{"priority_within", kPriorityWithin}, {"flood_full", kFloodFull}}};
  verdict.figures["median_latency_speedup"] = speedup;
  const std::string both = "median " + latency_text(r, GraphWay::graph_plain) + " launched on the default-priority "
                           "stream, " + latency_text(r, GraphWay::graph_on_greatest) + " on the greatest.";
  switch (judged) {
    case PriorityVerdict::helps:
      verdict.sentence = "a graph instantiated without the flag took the priority of the stream it was launched "
                         "on: " + fixed(speedup, 1) + "x faster\n  from the greatest-priority stream; " + both;
      break;
    case PriorityVerdict::no_difference:
      verdict.sentence = "the stream a plain graph was launched on made no difference within " +
                         percent_text(kPriorityWithin) + ": " + both;
      break;
    case PriorityVerdict::worse:
      verdict.sentence = "a plain graph launched on the greatest-priority stream was slower, " +
                         fixed(1.0 / speedup, 2) + "x: " + both;
      break;
    default:
      verdict.sentence = failed_check_sentence(judged, r, busy, "graph priorities");
      break;
  }
  return verdict;
}

// ---- the report --------------------------------------------------------------------------

namespace {

struct WayRow {
  GraphWay way;
  const char* launched_as;
  int stream_priority;
  std::optional<int> node_priority;  // a graph's node
  const PriorityMode* mode;
};

std::vector<WayRow> way_rows(const GraphPriorityResult& r) {
  const int least = r.device.least_priority;
  const int greatest = r.device.greatest_priority;
  const auto row = [&](GraphWay way, const char* as, int stream, std::optional<int> node) {
    return WayRow{way, as, stream, node, &r.at(way)};
  };
  return {row(GraphWay::idle, "kernel", least, std::nullopt),
          row(GraphWay::stream_default, "kernel", least, std::nullopt),
          row(GraphWay::stream_greatest, "kernel", greatest, std::nullopt),
          row(GraphWay::graph_plain, "graph", least, greatest),
          row(GraphWay::graph_node_priority, "graph, node priority", least, greatest),
          row(GraphWay::graph_on_greatest, "graph", greatest, greatest)};
}

nlohmann::json graph_priorities_json(const GraphPriorityResult& r) {
  nlohmann::json ways = nlohmann::json::object();
  for (const WayRow& w : way_rows(r)) {
    nlohmann::json way = flood_way_json(*w.mode, w.way != GraphWay::idle, latency_json(w.mode->latency));
    way["launched_as"] = w.launched_as;
    way["stream_priority"] = w.stream_priority;
    way["node_priority"] = w.node_priority ? nlohmann::json(*w.node_priority) : nlohmann::json(nullptr);
    way["use_node_priority"] = w.way == GraphWay::graph_node_priority;
    ways[std::string(to_string(w.way))] = std::move(way);
  }
  const auto median_us = [&](GraphWay way) { return r.at(way).latency.median_ms * 1e3; };
  nlohmann::json doc = flood_run_json("graph_priorities", r.config, r);
  doc["cuda_device_max_connections"] = r.device.hardware_queues;
  doc["captured_node_priority"] = r.captured_node_priority;
  doc["ways"] = ways;
  doc["median_us"] = {{"graph_plain", median_us(GraphWay::graph_plain)},
                      {"graph_node_priority", median_us(GraphWay::graph_node_priority)},
                      {"stream_default", median_us(GraphWay::stream_default)},
                      {"stream_greatest", median_us(GraphWay::stream_greatest)}};
  return doc;
}

}  // namespace

void report_graph_priorities(const PriorityConfig& /*config*/, const GraphPriorityResult& r, Report& report) {
  const PriorityConfig& c = r.config;
  std::ostream& out = report.out();
  out << "\nshort kernels beside a full GPU as kernels and as graphs: " << plural(c.flood_streams, "flood stream")
      << " of " << c.flood_block_us << "-us blocks;\n  " << plural(c.samples, "short kernel") << " of "
      << c.short_blocks << "x" << c.short_threads << " threads per way, one at a time, each its own one-node graph; "
      << plural(c.plan.repeats, "round") << " after " << c.plan.warmup << " warm-up;\n  stream priorities from "
      << r.device.least_priority << " (least, the default) to " << r.device.greatest_priority
      << " (greatest); captured from the greatest-priority stream, a node\n  carried priority "
      << r.captured_node_priority << ", then set to " << r.device.greatest_priority << "\n";
  const double default_blocks = r.at(GraphWay::stream_default).flood_blocks_per_ms;
  const std::vector<WayRow> rows = way_rows(r);
  report.table(table_of<WayRow>(
      {{"short kernels", [](const WayRow& w) { return std::string(label(w.way)); }},
       {"stream prio", [](const WayRow& w) { return std::to_string(w.stream_priority); }},
       {"node prio", [](const WayRow& w) { return w.node_priority ? std::to_string(*w.node_priority) : "-"; }},
       {"median us", [](const WayRow& w) { return us(w.mode->latency.median_ms); }},
       {"p95 us", [](const WayRow& w) { return us(w.mode->latency.p95_ms); }},
       {"p99 us", [](const WayRow& w) { return us(p99_ms(w.mode->latency)); }},
       {"flood busy", [](const WayRow& w) { return w.way == GraphWay::idle ? "-" : percent_text(w.mode->flood_busy); }},
       {"flood blocks/ms",
        [default_blocks](const WayRow& w) {
          return w.way == GraphWay::idle ? "-" : flood_blocks_text(w.mode->flood_blocks_per_ms, default_blocks);
        }}},
      rows));
  out << "latency: events on the launching stream just before and after each launch (kernel or graph);\n"
      << "flood blocks/ms: the flood's throughput beside each way (x: against the default-priority stream's)\n";
  const std::string node = report.verdict(node_priority_verdict(r)).sentence;
  const std::string stream = report.verdict(launch_stream_verdict(r)).sentence;
  finish_flood_report(report, c, r, kGraphWays, "graph_priorities", graph_priorities_json(r),
                      node + "\n  " + stream);
}

// ---- the measurement -----------------------------------------------------------------------

GraphPriorityResult measure_graph_priorities(const PriorityConfig& config) {
  require_valid(config);
  GraphPriorityResult r;
  r.config = config;
  r.device = query_flood_device();
  const int greatest = r.device.greatest_priority;
  Flood flood(config, r.device.sm_count, r.device.flood_blocks_per_sm);
  ShortKernels shorts(config);
  const Stream same_stream(cudaStreamNonBlocking, r.device.least_priority);
  const Stream high_stream(cudaStreamNonBlocking, greatest);

  // Each short kernel's graph: captured from the greatest-priority stream,
  // its one node then given the greatest priority, instantiated twice.
  std::vector<GraphExec> plain, flagged;
  for (int i = 0; i < config.samples; ++i) {
    CUDA_CHECK(cudaStreamBeginCapture(high_stream.get(), cudaStreamCaptureModeThreadLocal));
    shorts.launch(i, high_stream.get());
    CUDA_CHECK_LAUNCH("short_kernel (captured)");
    const Graph graph = end_capture(high_stream.get());
    cudaGraphNode_t node = nullptr;
    std::size_t nodes = 1;
    CUDA_CHECK(cudaGraphGetNodes(graph.get(), &node, &nodes));
    if (nodes != 1) throw std::runtime_error("a short kernel's capture gave " + plural(long(nodes), "node"));
    cudaLaunchAttributeValue value{};
    CUDA_CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &value));
    if (i == 0) r.captured_node_priority = value.priority;
    value.priority = greatest;
    CUDA_CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributePriority, &value));
    plain.push_back(GraphExec::instantiate(graph));
    flagged.push_back(GraphExec::instantiate(graph, {.flags = cudaGraphInstantiateFlagUseNodePriority}));
    if (i % 256 == 255) throw_if_interrupted("building the short kernels' graphs");
  }
  const auto graphs = [](const std::vector<GraphExec>& execs, cudaStream_t stream) {
    return [&execs, stream](int sample) {
      CUDA_CHECK(cudaGraphLaunch(execs[static_cast<std::size_t>(sample)].get(), stream));
    };
  };
  const cudaStream_t same = same_stream.get();
  const cudaStream_t high = high_stream.get();
  const ShortWay ways[kGraphWays] = {{.stream = same, .flood = nullptr, .launch = {}},
                                     {.stream = same, .flood = &flood, .launch = {}},
                                     {.stream = high, .flood = &flood, .launch = {}},
                                     {.stream = same, .flood = &flood, .launch = graphs(plain, same)},
                                     {.stream = same, .flood = &flood, .launch = graphs(flagged, same)},
                                     {.stream = high, .flood = &flood, .launch = graphs(plain, high)}};
  std::vector<PriorityMode> modes = shorts.run(ways, r);
  for (std::size_t w = 0; w < r.ways.size(); ++w) r.ways[w] = std::move(modes[w]);
  for (const WayRow& row : way_rows(r)) r.ways[static_cast<std::size_t>(row.way)].short_priority = row.stream_priority;
  return r;
}

namespace {

void options(StageCli& cli) { add_priority_options(cli, kMaxGraphPrioritySamples); }

Estimate estimate(const PriorityConfig& config, int /*device*/) {
  // Idle once; the default-priority stream and the two plain graphs wait
  // behind the flood (if the flag or the stream is ignored); the rest are preferred.
  const double seconds = beside_flood_seconds(config, 1, 3, 2) + config.samples * kGraphSetupUs * 1e-6;
  return {seconds, std::to_string(config.samples) +
                       " short kernels per way and round, 6 ways, as kernels and as graphs, beside a flood"};
}

const Experiment<PriorityConfig, GraphPriorityResult> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = competition_defaults(), .options = options, .read = read_priority_options,
    .needs = short_kernel_needs, .estimate = estimate, .measure = measure_graph_priorities,
    .report = report_graph_priorities};

}  // namespace

extern const Subcommand kGraphPriorities = make_subcommand<kExperiment>();

}  // namespace csg::pool
