#include "04_graph_capture_gemm/lab/rebind/rebind.hpp"

#include "04_graph_capture_gemm/lab/capture_guard.hpp"
#include "04_graph_capture_gemm/lab/exec_update.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/rebind/rebind_kernels.hpp"
#include "experiment/lab.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
rebind: a graph fed new inputs: copied into its buffers, or its nodes re-pointed 3 ways

One graph of the article's shape (a GEMM per batch on the pool's streams) fed a new request's
inputs each replay, five ways: the same work on streams; the inputs copied into the graph's static
buffers (the serving engines' way); the exec's nodes re-pointed from the host; cudaGraphExecUpdate
from a re-capture; device-updatable nodes re-pointed by a kernel. Per input size of --rebind-kib.
)";

constexpr const char* kRuns = R"(
# a new request's buffers each replay, five ways, 64 KiB to 256 MiB per batch  after the article
fc   -
q    -  --warmup 1 --repeats 5
t    tiny  --rebind-kib 16,64 --rebind-batches 3 --warmup 0 --repeats 2
m    -     --rebind-kib 16 --rebind-batches 2 --warmup 0 --repeats 1
)";

// Outputs are filled with this byte before every request: 0xFFFFFFFF is a
// NaN, never an exact row sum.
constexpr int kPoisonByte = 0xFF;
// For the estimate: what the thin GEMM and a device copy move (measured
// order of magnitude on an H100: 1-3 TB/s), and a request's fixed costs.
constexpr double kBytesPerSecond = 1e12;
constexpr double kRequestOverheadSeconds = 200e-6;

// The buffers of one request set (or of the graph's static copy): an A and a C per batch.
struct RequestBuffers {
  std::vector<DeviceBuffer<float>> a;
  std::vector<DeviceBuffer<float>> c;
  std::vector<std::vector<float>> row_sums;  // per batch: what C's column j must be, over j + 1
};

// One size's buffers, graphs and timers.
class Bench {
 public:
  Bench(const RebindConfig& config, int m)
      : config_(config), m_(m), pool_(config.streams, cudaStreamNonBlocking), b_(std::size_t(m) * kRebindColumns) {
    const cudaStream_t stream = pool_[0];
    std::vector<float> b(b_.size());
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % kRebindColumns + 1);  // column j: j + 1
    CUDA_CHECK(cudaMemcpyAsync(b_.data(), b.data(), b_.bytes(), cudaMemcpyHostToDevice, stream));
    allocate(static_, std::nullopt);  // the graph's static copy: whatever was copied in last
    for (std::size_t set = 0; set < 2; ++set) allocate(sets_[set], config.seed * 2 + set);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  // ---- the ways ---------------------------------------------------------------------

  void build_graphs() {
    const Graph copy_graph = capture(static_);
    copy_exec_ = GraphExec::instantiate(copy_graph);
    host_graph_ = capture(sets_[0]);
    host_nodes_ = gemm_nodes(host_graph_, sets_[0]);
    host_exec_ = GraphExec::instantiate(host_graph_);
    update_exec_ = GraphExec::instantiate(host_graph_);
    // The device-updatable graph: its own capture (a graph with such nodes is
    // instantiated once and never passed to cudaGraphExecUpdate).
    // Kept while the exec lives: the device-side handles are its nodes'.
    device_graph_ = capture(sets_[0]);
    const std::vector<cudaGraphNode_t> nodes = gemm_nodes(device_graph_, sets_[0]);
    std::vector<cudaGraphDeviceNode_t> handles;
    for (const cudaGraphNode_t node : nodes) {
      cudaLaunchAttributeValue value{};
      value.deviceUpdatableKernelNode.deviceUpdatable = 1;
      CUDA_CHECK(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributeDeviceUpdatableKernelNode, &value));
      CUDA_CHECK(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeDeviceUpdatableKernelNode, &value));
      if (value.deviceUpdatableKernelNode.devNode == nullptr) {
        throw std::runtime_error("rebind: CUDA returned no device handle for a device-updatable GEMM node");
      }
      handles.push_back(value.deviceUpdatableKernelNode.devNode);
    }
    device_exec_ = GraphExec::instantiate(device_graph_);
    CUDA_CHECK(cudaGraphUpload(device_exec_.get(), pool_[0]));
    device_nodes_ = DeviceBuffer<cudaGraphDeviceNode_t>(handles.size());
    CUDA_CHECK(cudaMemcpyAsync(device_nodes_.data(), handles.data(), device_nodes_.bytes(), cudaMemcpyHostToDevice,
                               pool_[0]));
    for (std::size_t set = 0; set < 2; ++set) {
      std::vector<RebindTarget> targets;
      for (std::size_t i = 0; i < batches(); ++i) targets.push_back({sets_[set].a[i].data(), sets_[set].c[i].data()});
      targets_[set] = DeviceBuffer<RebindTarget>(targets.size());
      CUDA_CHECK(cudaMemcpyAsync(targets_[set].data(), targets.data(), targets_[set].bytes(), cudaMemcpyHostToDevice,
                                 pool_[0]));
    }
    CUDA_CHECK(cudaMemsetAsync(failures_.data(), 0, failures_.bytes(), pool_[0]));
    CUDA_CHECK(cudaStreamSynchronize(pool_[0]));
  }

  struct Request {
    Millis wall{};
    Millis host{};
    Millis gpu{};
    std::string failure;
  };

  // One request of `set`'s buffers, issued `way`, timed and checked.
  Request request(RebindWay way, std::size_t set) {
    const cudaStream_t stream = pool_[0];
    for (auto& c : sets_[set].c) CUDA_CHECK(cudaMemsetAsync(c.data(), kPoisonByte, c.bytes(), stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    Request r;
    const HostTimer wall;
    CUDA_CHECK(cudaEventRecord(start_.get(), stream));
    issue(way, set);
    r.host = wall.elapsed();
    CUDA_CHECK(cudaEventRecord(stop_.get(), stream));
    CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    r.wall = wall.elapsed();
    r.gpu = elapsed_between(start_.get(), stop_.get());
    r.failure = check(set);
    if (r.failure.empty() && way == RebindWay::device_update) r.failure = device_failures();
    return r;
  }

 private:
  std::size_t batches() const { return static_cast<std::size_t>(config_.batches); }

  // A and C per batch; with a seed, A filled and its row sums kept (any seed, 0 and the largest included).
  void allocate(RequestBuffers& buffers, std::optional<unsigned long long> seed) {
    const cudaStream_t stream = pool_[0];
    const std::size_t a_count = std::size_t(m_) * std::size_t(m_);
    DeviceBuffer<float> sums(static_cast<std::size_t>(m_));
    for (std::size_t i = 0; i < batches(); ++i) {
      buffers.a.emplace_back(a_count);
      buffers.c.emplace_back(std::size_t(m_) * kRebindColumns);
      if (!seed) continue;
      launch_fill_small(buffers.a.back().data(), a_count, *seed * 1000003ull + i, stream);
      CUDA_CHECK_LAUNCH("fill_small");
      launch_row_sums(buffers.a.back().data(), m_, m_, sums.data(), stream);
      CUDA_CHECK_LAUNCH("row_sums");
      std::vector<float> host(static_cast<std::size_t>(m_));
      CUDA_CHECK(cudaMemcpyAsync(host.data(), sums.data(), sums.bytes(), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      buffers.row_sums.push_back(std::move(host));
    }
  }

  ThinGemmParams params(RequestBuffers& buffers, std::size_t i) const {
    return {buffers.a[i].data(), b_.data(), buffers.c[i].data(), m_, kRebindColumns, m_};
  }

  // The article's fork, a GEMM per batch on stream i % streams, the join; on the pool.
  void enqueue(RequestBuffers& buffers) {
    csg::fork(pool_);
    for (std::size_t i = 0; i < batches(); ++i) {
      launch_thin_gemm(params(buffers, i), pool_.for_batch(int(i)));
      CUDA_CHECK_LAUNCH("thin_gemm");
    }
    csg::join(pool_);
  }

  Graph capture(RequestBuffers& buffers) { return capture_on(pool_[0], [&] { enqueue(buffers); }); }

  // The graph's GEMM nodes in batch order, told apart by the C each writes.
  std::vector<cudaGraphNode_t> gemm_nodes(const Graph& graph, const RequestBuffers& buffers) const {
    std::vector<cudaGraphNode_t> ordered(batches(), nullptr);
    for (const cudaGraphNode_t node : nodes_of(graph)) {
      cudaGraphNodeType type{};
      CUDA_CHECK(cudaGraphNodeGetType(node, &type));
      if (type != cudaGraphNodeTypeKernel) continue;
      cudaKernelNodeParams p{};
      CUDA_CHECK(cudaGraphKernelNodeGetParams(node, &p));
      if (!is_thin_gemm(p)) continue;
      const float* c = *static_cast<float* const*>(p.kernelParams[2]);
      for (std::size_t i = 0; i < batches(); ++i) {
        if (buffers.c[i].data() == c) ordered[i] = node;
      }
    }
    if (std::count(ordered.begin(), ordered.end(), nullptr) > 0) {
      throw std::runtime_error("rebind: the captured graph lacks a GEMM node of some batch");
    }
    return ordered;
  }

  void copy_all(const std::vector<DeviceBuffer<float>>& from, std::vector<DeviceBuffer<float>>& to) {
    for (std::size_t i = 0; i < batches(); ++i) {
      CUDA_CHECK(cudaMemcpyAsync(to[i].data(), from[i].data(), from[i].bytes(), cudaMemcpyDeviceToDevice, pool_[0]));
    }
  }

  void issue(RebindWay way, std::size_t set) {
    RequestBuffers& request = sets_[set];
    const cudaStream_t stream = pool_[0];
    switch (way) {
      case RebindWay::streams:
        enqueue(request);
        return;
      case RebindWay::copy_in:
        copy_all(request.a, static_.a);
        CUDA_CHECK(cudaGraphLaunch(copy_exec_.get(), stream));
        copy_all(static_.c, request.c);
        return;
      case RebindWay::node_params:
        for (std::size_t i = 0; i < batches(); ++i) {
          ThinGemmParams p = params(request, i);
          void* arguments[6] = {};
          const cudaKernelNodeParams node = thin_gemm_node(p, arguments);
          CUDA_CHECK(cudaGraphExecKernelNodeSetParams(host_exec_.get(), host_nodes_[i], &node));
        }
        CUDA_CHECK(cudaGraphLaunch(host_exec_.get(), stream));
        return;
      case RebindWay::exec_update: {
        const Graph graph = capture(request);
        const ExecUpdateAttempt attempt = update_exec(update_exec_, graph);
        if (!attempt.applied()) throw std::runtime_error("rebind: cudaGraphExecUpdate refused: " + attempt.describe());
        CUDA_CHECK(cudaGraphLaunch(update_exec_.get(), stream));
        return;
      }
      case RebindWay::device_update:
        launch_rebind_nodes(device_nodes_.data(), targets_[set].data(), config_.batches, failures_.data(), stream);
        CUDA_CHECK_LAUNCH("rebind_nodes");
        CUDA_CHECK(cudaGraphLaunch(device_exec_.get(), stream));
        return;
    }
  }

  // Every C of `set`: column j of row r is row r's sum times j + 1, exactly.
  std::string check(std::size_t set) {
    std::vector<float> c(std::size_t(m_) * kRebindColumns);
    for (std::size_t i = 0; i < batches(); ++i) {
      CUDA_CHECK(cudaMemcpy(c.data(), sets_[set].c[i].data(), sets_[set].c[i].bytes(), cudaMemcpyDeviceToHost));
      const std::vector<float>& sums = sets_[set].row_sums[i];
      for (std::size_t e = 0; e < c.size(); ++e) {
        const float expected = sums[e / kRebindColumns] * float(e % kRebindColumns + 1);
        if (c[e] != expected) {
          return "batch " + std::to_string(i) + ", row " + std::to_string(e / kRebindColumns) + ", column " +
                 std::to_string(e % kRebindColumns) + ": expected " + fixed(expected, 0) + ", got " +
                 fixed(double(c[e]), 1);
        }
      }
    }
    return "";
  }

  std::string device_failures() {
    unsigned failures = 0;
    CUDA_CHECK(cudaMemcpy(&failures, failures_.data(), sizeof failures, cudaMemcpyDeviceToHost));
    return failures == 0 ? "" : plural(long(failures), "device-side node update") + " refused";
  }

  RebindConfig config_;
  int m_;
  StreamPool pool_;
  DeviceBuffer<float> b_;
  RequestBuffers static_;
  std::array<RequestBuffers, 2> sets_;
  GraphExec copy_exec_;
  Graph host_graph_;
  std::vector<cudaGraphNode_t> host_nodes_;
  GraphExec host_exec_;
  GraphExec update_exec_;
  Graph device_graph_;
  GraphExec device_exec_;
  DeviceBuffer<cudaGraphDeviceNode_t> device_nodes_;
  std::array<DeviceBuffer<RebindTarget>, 2> targets_;
  DeviceBuffer<unsigned> failures_{1};
  Event start_;
  Event stop_;
};

// ---- what the verdicts and the report share -------------------------------------------

constexpr RebindWay kGraphWays[] = {RebindWay::copy_in, RebindWay::node_params, RebindWay::exec_update,
                                    RebindWay::device_update};

std::string size_text(const RebindSize& s) { return format_bytes(s.input_bytes) + " per batch"; }

std::string ms_of(const RebindSize& s, RebindWay way) { return fixed(s.wall_of(way).median_ms, 3) + " ms"; }

Verdict not_verified(std::string id, const RebindResult& r) {
  return {.id = std::move(id), .outcome = "not_verified", .figures = nlohmann::json::object(), .threshold = nullptr,
          .sentence = "no conclusion about rebinding: a check failed (" +
                      (r.failure.empty() ? std::string("verification failed") : r.failure) + ")."};
}

struct Row {
  const RebindSize* size;
  RebindWay way;
};

nlohmann::json rebind_json(const RebindResult& r) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const RebindSize& s : r.sizes) {
    nlohmann::json ways = nlohmann::json::object();
    for (int w = 0; w < kRebindWays; ++w) {
      ways[std::string(to_string(RebindWay(w)))] = {{"wall", summary_json(s.wall[std::size_t(w)])},
                                                    {"host", summary_json(s.host[std::size_t(w)])},
                                                    {"gpu", summary_json(s.gpu[std::size_t(w)])}};
    }
    sizes.push_back({{"kib", s.kib}, {"m", s.m}, {"input_bytes", s.input_bytes}, {"ways", ways}});
  }
  return {{"name", "rebind"},
          {"sizes", sizes},
          {"requests_checked", r.requests_checked},
          {"verified", r.verified},
          {"failure", r.verified ? nlohmann::json(nullptr) : nlohmann::json(r.failure)}};
}

// ---- the measurement and the declaration ----------------------------------------------

RebindResult measure(const RebindConfig& config) {
  RebindResult r;
  r.config = config;
  r.verified = true;
  const int rounds = config.plan.warmup + config.plan.repeats;
  for (const long long kib : config.kib) {
    RebindSize size{.kib = kib, .m = side_for_kib(kib)};
    size.input_bytes = std::uint64_t(size.m) * std::uint64_t(size.m) * sizeof(float);
    progress("rebind: " + format_bytes(size.input_bytes) + " per batch");
    Bench bench(config, size.m);
    bench.build_graphs();
    std::array<std::vector<Millis>, kRebindWays> wall, host, gpu;
    std::array<std::size_t, kRebindWays> next_set{};
    for (int round = 0; round < rounds; ++round) {
      for (int k = 0; k < kRebindWays; ++k) {
        const int w = (k + round) % kRebindWays;  // each round starts one way later
        const std::size_t set = next_set[std::size_t(w)]++ % 2;
        const Bench::Request request = bench.request(RebindWay(w), set);
        ++r.requests_checked;
        if (!request.failure.empty() && r.verified) {
          r.verified = false;
          r.failure = format_bytes(size.input_bytes) + " per batch, " + std::string(to_string(RebindWay(w))) + ": " +
                      request.failure;
        }
        if (round < config.plan.warmup) continue;
        wall[std::size_t(w)].push_back(request.wall);
        host[std::size_t(w)].push_back(request.host);
        gpu[std::size_t(w)].push_back(request.gpu);
      }
      throw_if_interrupted("rebind round " + std::to_string(round + 1) + " of " + std::to_string(rounds));
    }
    for (std::size_t w = 0; w < std::size_t(kRebindWays); ++w) {
      size.wall[w] = summarize(std::move(wall[w]));
      size.host[w] = summarize(std::move(host[w]));
      size.gpu[w] = summarize(std::move(gpu[w]));
    }
    r.sizes.push_back(std::move(size));
  }
  return r;
}

void options(StageCli& cli) {
  cli.add_text("rebind-kib", "Input size per batch, in KiB (A square, of floats), one table block each",
               "64,1024,16384,262144", "LIST");
  cli.add_int("rebind-batches", "Batches per request, one GEMM each", RebindConfig{}.batches, 1, kMaxRebindBatches);
}

RebindConfig read(const StageCli& cli, CommonOptions& common) {
  return {.kib = parse_distinct_int_list("rebind-kib", cli.get_string("rebind-kib"), 1, kMaxRebindKib),
          .batches = static_cast<int>(cli.get_int("rebind-batches")),
          .plan = common.plan,
          .seed = static_cast<std::uint64_t>(common.seed)};
}

Needs needs(const RebindConfig& config) {
  // The largest size at once: A and C three times over (the graph's copy and two request sets).
  const long long kib = *std::max_element(config.kib.begin(), config.kib.end());
  const std::uint64_t m = std::uint64_t(side_for_kib(kib));
  const std::uint64_t per_batch = (m * m + m * kRebindColumns) * sizeof(float);
  return {{.device_bytes = 3 * per_batch * std::uint64_t(config.batches) + m * kRebindColumns * sizeof(float),
           .host_bytes = m * kRebindColumns * sizeof(float), .host_kind = HostMemory::pageable},
          "try smaller --rebind-kib or fewer --rebind-batches"};
}

Estimate estimate(const RebindConfig& config, int /*device*/) {
  double seconds = 0.0;
  for (const long long kib : config.kib) {
    const double input = double(kib) * 1024.0 * config.batches;
    // A request: at worst the copies in (read and write), the GEMM (reading A once per 16 columns of B).
    const double request = (2.0 + kRebindColumns / 16.0) * input / kBytesPerSecond + kRequestOverheadSeconds;
    seconds += 3.0 * input / kBytesPerSecond + (config.plan.warmup + config.plan.repeats) * kRebindWays * request;
  }
  return {seconds, plural(long(config.kib.size()), "size") + " x " + std::to_string(kRebindWays) + " ways of rebinding"};
}

const Experiment<RebindConfig, RebindResult> kExperiment{
    .about = kAbout, .runs = kRuns, .defaults = {.gemm_workload = false, .host_memory_choice = false},
    .options = options, .read = read, .needs = needs, .estimate = estimate, .measure = measure,
    .report = report_rebind};

}  // namespace

std::string_view to_string(RebindWay way) {
  return name_of(way, {"streams", "copy_in", "node_params", "exec_update", "device_update"});
}

std::string_view label(RebindWay way) {
  return name_of(way, {"streams, the request's buffers", "graph, copy in and out", "graph, nodes re-pointed (host)",
                       "graph, re-capture + exec update", "graph, nodes re-pointed (device)"});
}

int side_for_kib(long long kib) {
  return std::max(1, static_cast<int>(std::sqrt(double(kib) * 1024.0 / sizeof(float))));
}

// ---- the verdicts ----------------------------------------------------------------------

Verdict copy_in_verdict(const RebindResult& r, const RebindSize& s) {
  const std::string id = "rebind.copy_in.kib_" + std::to_string(s.kib);
  if (!r.verified) return not_verified(id, r);
  const double copy = s.wall_of(RebindWay::copy_in).median_ms;
  const double streams = s.wall_of(RebindWay::streams).median_ms;
  Verdict v = comparison_verdict(id, copy, streams, "");
  v.outcome = std::string(name_of(compare_times(copy, streams), {"graph_wins", "same", "graph_loses"}));
  const std::string head = size_text(s) + ": the graph fed by copies took " + ms_of(s, RebindWay::copy_in) +
                           " a request, " + compare_phrase(copy, streams) + " the streams (" +
                           ms_of(s, RebindWay::streams) + ")";
  v.sentence = head + (v.outcome == "graph_loses" ? ": the copies cost more than the replay saves."
                       : v.outcome == "graph_wins" ? ": the replay saves more than the copies cost."
                                                   : ".");
  return v;
}

Verdict best_way_verdict(const RebindResult& r, const RebindSize& s) {
  const std::string id = "rebind.best.kib_" + std::to_string(s.kib);
  if (!r.verified) return not_verified(id, r);
  RebindWay best = RebindWay::copy_in;
  for (const RebindWay way : kGraphWays) {
    if (s.wall_of(way).median_ms < s.wall_of(best).median_ms) best = way;
  }
  nlohmann::json figures = nlohmann::json::object();
  for (const RebindWay way : kGraphWays) figures[std::string(to_string(way)) + "_ms"] = s.wall_of(way).median_ms;
  figures["streams_ms"] = s.wall_of(RebindWay::streams).median_ms;
  const double ms = s.wall_of(best).median_ms;
  std::string sentence = size_text(s) + ": the fastest way to feed the graph was " + std::string(label(best)) +
                         ", " + ms_of(s, best) + " a request";
  if (best != RebindWay::copy_in) {
    sentence += ", " + compare_phrase(ms, s.wall_of(RebindWay::copy_in).median_ms) + " copying in";
  }
  sentence += ", " + compare_phrase(ms, s.wall_of(RebindWay::streams).median_ms) + " the streams.";
  return {.id = id, .outcome = std::string(to_string(best)), .figures = figures, .threshold = kEqualWithin,
          .sentence = sentence};
}

Verdict crossover_verdict(const RebindResult& r) {
  if (!r.verified) return not_verified("rebind.crossover", r);
  // Sizes in ascending order of input; the first from which copy-in loses at every larger size.
  std::vector<const RebindSize*> sizes;
  for (const RebindSize& s : r.sizes) sizes.push_back(&s);
  std::sort(sizes.begin(), sizes.end(), [](const RebindSize* x, const RebindSize* y) { return x->input_bytes < y->input_bytes; });
  const auto loses = [](const RebindSize* s) {
    return compare_times(s->wall_of(RebindWay::copy_in).median_ms, s->wall_of(RebindWay::streams).median_ms) ==
           Comparison::slower;
  };
  std::size_t from = sizes.size();
  while (from > 0 && loses(sizes[from - 1])) --from;
  nlohmann::json figures = nlohmann::json::object();
  for (const RebindSize* s : sizes) {
    figures[std::to_string(s->kib) + "_kib"] = {{"copy_in_ms", s->wall_of(RebindWay::copy_in).median_ms},
                                                {"streams_ms", s->wall_of(RebindWay::streams).median_ms}};
  }
  Verdict v{.id = "rebind.crossover", .outcome = "", .figures = figures, .threshold = kEqualWithin, .sentence = ""};
  if (from == sizes.size()) {
    v.outcome = "copy_in_never_loses";
    v.sentence = "copying the inputs in never made the graph lose to the streams at these sizes (up to " +
                 size_text(*sizes.back()) + ").";
  } else if (from == 0) {
    v.outcome = "copy_in_always_loses";
    v.sentence = "copying the inputs in made the graph lose to the streams at every size, from " +
                 size_text(*sizes.front()) + ".";
  } else {
    v.outcome = "copy_in_loses_from";
    v.figures["from_kib"] = sizes[from]->kib;
    v.sentence = "copying the inputs in made the graph lose to the streams from " + size_text(*sizes[from]) +
                 " on (at " + size_text(*sizes[from - 1]) + " it did not).";
  }
  return v;
}

// ---- the report --------------------------------------------------------------------------

void report_rebind(const RebindConfig& config, const RebindResult& r, Report& report) {
  std::ostream& out = report.out();
  out << "\na new request each replay: " << plural(config.batches, "batch", "batches") << " of C = A B (A m x m, B m x "
      << kRebindColumns << ") on " << plural(config.streams, "stream") << ";\n  two request sets alternate; medians of "
      << plural(config.plan.repeats, "request") << " per way after " << config.plan.warmup
      << " warm-up, in interleaved rounds\n";
  std::vector<Row> rows;
  for (const RebindSize& s : r.sizes) {
    for (int w = 0; w < kRebindWays; ++w) rows.push_back({&s, RebindWay(w)});
  }
  report.table(table_of<Row>(
      {{"input per batch", [](const Row& row) { return format_bytes(row.size->input_bytes); }},
       {"way", [](const Row& row) { return std::string(label(row.way)); }},
       {"wall ms", [](const Row& row) { return fixed(row.size->wall_of(row.way).median_ms, 3); }},
       {"host ms", [](const Row& row) { return fixed(row.size->host[std::size_t(row.way)].median_ms, 3); }},
       {"GPU ms", [](const Row& row) { return fixed(row.size->gpu[std::size_t(row.way)].median_ms, 3); }},
       {"vs streams", [](const Row& row) {
          const double streams = row.size->wall_of(RebindWay::streams).median_ms;
          return streams > 0.0 ? fixed(row.size->wall_of(row.way).median_ms / streams, 2) + "x" : std::string("-");
        }}},
      rows));
  out << "wall: from the first call to done (the rebinding included); host: the calls alone; GPU: events on the\n"
      << "pool's first stream around the request\n";
  std::string conclusion;
  const auto add = [&](Verdict v) {
    if (!conclusion.empty()) conclusion += "\n";
    conclusion += report.verdict(std::move(v)).sentence;
  };
  for (const RebindSize& s : r.sizes) {
    add(copy_in_verdict(r, s));
    add(best_way_verdict(r, s));
  }
  add(crossover_verdict(r));

  report.result.config = {{"rebind_kib", config.kib},     {"batches", config.batches}, {"streams", config.streams},
                          {"columns", kRebindColumns},      {"warmup", config.plan.warmup},
                          {"repeats", config.plan.repeats}, {"seed", config.seed}};
  report.result.verification.passed = r.verified;
  report.result.verification.batches_checked = r.requests_checked * config.batches;
  report.result.verification.checked = "batch";
  report.result.verification.method = "every C of every request, poisoned before, exact after (row sums of A times j + 1)";
  report.result.verification.failure = r.verified ? "" : r.failure;
  nlohmann::json figures = rebind_json(r);
  figures["conclusion"] = conclusion;
  report.sections["rebind"] = figures;
}

extern const Subcommand kRebind = make_subcommand<kExperiment>();

}  // namespace csg::graphs
