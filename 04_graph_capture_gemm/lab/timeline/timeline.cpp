// 04_graph_capture_gemm timeline: the graph's replay timed in rounds, then
// one more replay recorded with CUPTI and drawn, each node on the row of the
// pool stream its batch was captured on, then the replay re-timed with the
// recording over: recording must not change what the timed rounds measured.
//
// A replay runs on streams the driver picks, so the captured graph itself
// says what each node is: a memcpy node's host pointer is h_A[b] (H2D) or
// h_C[b] (D2H) of one batch b, each kernel node depends on its batch's H2D,
// and batch b was captured on pool stream b % pool, its row. CUPTI's records
// carry the ids of the EXEC's nodes, clones of the captured ones:
// prepare_graph_timeline instantiates a second exec while GraphNodeClones
// watches, to map each clone back. Where any of this fails, labelling falls
// back to the order in which the driver's streams started work, and a note says so.
#include <set>

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"
#include "experiment/lab.hpp"
#include "timeline/cupti_recorder.hpp"
#include "timeline/stage_timeline.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
timeline: one replay recorded with CUPTI, each node on its pool stream; --trace FILE

The graph's replay timed, then one more replay recorded with CUPTI and drawn as a timeline (a row
per pool stream: H copy in, K kernel, D copy out), then re-timed after the recording.
)";

constexpr const char* kRuns = R"(
# one replay on a timeline: timeline_04_graph_capture_gemm-timeline.png
fc   -     --trace {trace}
q    -     --warmup 1 --repeats 2 --trace {trace}
t    tiny  --batches 10 --m 32 --n 16 --k 48 --streams 3 --warmup 0 --repeats 1 --timeline-batches 6
)";

// The host address a memcpy node reads or writes: the pitched pointer plus the
// position offset (a 1-D copy captured from cudaMemcpyAsync has offset 0).
const void* host_address(const cudaPitchedPtr& ptr, const cudaPos& pos) {
  if (ptr.ptr == nullptr) return nullptr;
  return static_cast<const char*>(ptr.ptr) + pos.z * ptr.pitch * ptr.ysize + pos.y * ptr.pitch + pos.x;
}

std::vector<cudaGraphNode_t> dependencies_of(cudaGraphNode_t node) {
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &count));
  std::vector<cudaGraphNode_t> dependencies(count);
  // Edge data asked for too: without it, an edge with non-default data makes
  // the call fail with cudaErrorLossyQuery (captured edges have none, but be safe).
  std::vector<cudaGraphEdgeData> edges(count);
  if (count > 0) CUDA_CHECK(cudaGraphNodeGetDependencies(node, dependencies.data(), edges.data(), &count));
  dependencies.resize(count);
  return dependencies;
}

// Row (b % pool) and batch of every memcpy and kernel node of a capture of
// the article's loop on `buffers`. Empty, with the reason in `notes`, if any
// copy or kernel node can't be matched to a batch.
std::map<cudaGraphNode_t, NodeLabel> label_captured_nodes(const Graph& graph, BatchBuffers& buffers, int pool,
                                                          std::vector<std::string>& notes) {
  const int batches = buffers.work().batches;
  std::map<const void*, int> h2d_source;  // h_A[b] -> b
  std::map<const void*, int> d2h_target;  // h_C[b] -> b
  for (int batch = 0; batch < batches; ++batch) {
    h2d_source[buffers.host_a(batch)] = batch;
    d2h_target[buffers.host_c(batch)] = batch;
  }

  std::map<cudaGraphNode_t, NodeLabel> labels;
  std::map<cudaGraphNode_t, int> h2d_batch;
  std::vector<cudaGraphNode_t> kernels;
  int unknown = 0;
  // Copies first: their host pointers name the batch.
  for (const cudaGraphNode_t node : nodes_of(graph)) {
    cudaGraphNodeType type{};
    CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    if (type == cudaGraphNodeTypeKernel) {
      kernels.push_back(node);
      continue;
    }
    if (type != cudaGraphNodeTypeMemcpy) continue;  // the article's capture has no other nodes
    cudaMemcpy3DParms params{};
    CUDA_CHECK(cudaGraphMemcpyNodeGetParams(node, &params));
    if (const auto it = h2d_source.find(host_address(params.srcPtr, params.srcPos)); it != h2d_source.end()) {
      labels[node] = NodeLabel{it->second % pool, it->second};
      h2d_batch[node] = it->second;
    } else if (const auto jt = d2h_target.find(host_address(params.dstPtr, params.dstPos)); jt != d2h_target.end()) {
      labels[node] = NodeLabel{jt->second % pool, jt->second};
    } else {
      ++unknown;
    }
  }
  // Kernels: the batch of the one H2D they depend on.
  for (const cudaGraphNode_t kernel : kernels) {
    std::set<int> from;
    for (const cudaGraphNode_t dependency : dependencies_of(kernel)) {
      if (const auto it = h2d_batch.find(dependency); it != h2d_batch.end()) from.insert(it->second);
    }
    if (from.size() == 1) {
      labels[kernel] = NodeLabel{*from.begin() % pool, *from.begin()};
    } else {
      ++unknown;
    }
  }
  if (unknown > 0) {
    notes.push_back("the batch of " + plural(unknown, "captured node") + " could not be told from the "
                    "graph; rows follow the order in which the replay's streams started work");
    return {};
  }
  return labels;
}

// Labels the captured nodes, then instantiates (and uploads on pool[0]) a
// second exec of `graph` while CUPTI reports the clones.
struct GraphTimelineRun {
  GraphExec exec;                  // a second exec of the graph, instantiated and uploaded for the recording
  TimelineRun plan;                // rows "stream 0".., graph_nodes keyed by captured AND cloned node ids
  std::vector<std::string> notes;  // why labelling by node may fall back
};

GraphTimelineRun prepare_graph_timeline(const Graph& graph, BatchBuffers& buffers, const StreamPool& pool) {
  GraphTimelineRun out;
  out.plan.row_names = pool_row_names(pool.size());
  out.plan.batches = buffers.work().batches;
  out.plan.pool = pool.size();
  out.plan.flops_per_kernel = buffers.work().flops_per_batch();
  // plan.streams stays empty: a replay runs on the driver's streams, not the pool's.

  const std::map<cudaGraphNode_t, NodeLabel> labels = label_captured_nodes(graph, buffers, pool.size(), out.notes);
  std::map<std::uint64_t, cudaGraphNode_t> clone_to_original;
  bool watched = false;
  {
    const GraphNodeClones clones;  // on only while this exec is instantiated
    out.exec = GraphExec::instantiate(graph, {.flags = cudaGraphInstantiateFlagUpload, .upload_stream = pool[0]});
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    clone_to_original = clones.clone_to_original();
    watched = clones.watching();
    if (!clones.watching() && !labels.empty()) {
      out.notes.push_back("no clone ids (" + clones.unavailable_reason() + "); trying the captured nodes' ids");
    }
  }
  if (labels.empty()) return out;

  // The exec's copies first: CUPTI's records of a replay carry their ids.
  for (const auto& [clone_id, original] : clone_to_original) {
    if (const auto it = labels.find(original); it != labels.end()) out.plan.graph_nodes[clone_id] = it->second;
  }
  if (watched && out.plan.graph_nodes.empty()) {
    out.notes.push_back("CUPTI reported no clone of a captured node while instantiating (" +
                        plural(static_cast<long long>(clone_to_original.size()), "clone") + " of other nodes)");
  }
  // And the captured nodes' own ids, in case a driver reports those instead.
  for (const auto& [node, label] : labels) {
    if (const std::optional<std::uint64_t> id = TimelineRecorder::graph_node_id(node)) {
      out.plan.graph_nodes.emplace(*id, label);
    }
  }
  return out;
}

struct Config {
  ArticleOptions article;
  TimelineOptions timeline;
};

struct Figures {
  VerifyResult six_steps_check;  // the first launch, which also uploads the exec
  Summary graph_replay;          // the timed replays
  VerifyResult check;            // after the last of them
  StageTimeline timeline;        // one more replay, recorded, and the replays re-timed after it
};

void options(StageCli& cli) {
  add_timeline_options(cli);
  add_article_options(cli);
}

Config read(const StageCli& cli, CommonOptions& common) {
  return {read_article_options(cli, common), read_timeline_options(cli)};
}

Needs needs(const Config& config) { return article_needs(config.article); }

// The rounds before the recording and again after it, a replay each.
double timeline_seconds(const CommonOptions& options, const Rates& rates) {
  return 2.0 * (options.plan.warmup + options.plan.repeats) * pipeline_seconds(options, rates);
}

Estimate estimate(const Config& config, int) { return article_estimate(config.article, timeline_seconds); }

Figures measure(const Config& config) {
  const CommonOptions& common = config.article.common;
  const Gemm gemm(common.gemm);
  ArticleWork article(config.article, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  const Graph graph = capture_batches(batch_ops(buffers, gemm), pool, common.work.batches);
  const GraphExec exec = instantiate(graph);
  Figures f;
  // The six steps once before the timing: the first launch also uploads the exec.
  f.six_steps_check = launch_and_verify(exec, pool, buffers, common.seed);

  progress("the graph's replay, timed");
  EventTimer timer;
  auto poison = [&] { buffers.poison_outputs(pool[0]); };
  auto verify = [&] { return buffers.verify(common.seed); };
  auto replay = [&](const GraphExec& e) { return gpu_time(timer, pool[0], [&] { launch(e, pool); }); };
  const TimedVariant timed{.prepare = poison,
                           .run = [&] { return replay(exec); },
                           .after_last = [&] { f.check = verify(); }};
  f.graph_replay = measure_interleaved(common.plan, {timed}).front();

  // One more replay, untimed, with CUPTI timestamping every node, of a second
  // exec of the same graph whose nodes it can name by pool stream and batch;
  // then the timed exec re-timed with the recording over.
  progress("recording one more graph replay for the timeline");
  const GraphTimelineRun traced = prepare_graph_timeline(graph, buffers, pool);
  f.timeline = record_stage_timeline(
      common.plan, {.plan = traced.plan, .notes = traced.notes, .poison = poison, .verify = verify,
                    .timed_run = [&] { return replay(exec); },
                    .recorded_run = [&] { static_cast<void>(replay(traced.exec)); },  // its time is not used
                    .timed = f.graph_replay});
  return f;
}

void report(const Config& config, const Figures& f, Report& report) {
  const ArticleOptions& options = config.article;
  const Workload& work = options.common.work;
  report.result = pool_result(report.result.device, options.common, options.pool);
  report.result.measurements = {checked("graph_replay", pool_params(options.pool, work.batches), f.graph_replay,
                                        work_of(work), f.check)};
  set_verdict(report.result, f.check, {&f.six_steps_check, &f.check});
  count_checked_runs(report);
  report.out() << pool_run_text(options.common, options.pool) << "\n\n";
  report.measurements();
  report.out() << '\n';
  add_timeline(report, f.timeline, config.timeline);
}

const Experiment<Config, Figures> kExperiment{.about = kAbout, .runs = kRuns, .defaults = pinned_defaults(),
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure, .report = report};

}  // namespace

extern const Subcommand kTimeline = make_subcommand<kExperiment>();

}  // namespace csg::graphs
