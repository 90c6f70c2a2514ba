#include "04_graph_capture_gemm/lab/memory-nodes/memory_nodes.hpp"

#include "04_graph_capture_gemm/lab/article_run.hpp"
#include "04_graph_capture_gemm/lab/graph_steps.hpp"
#include "04_graph_capture_gemm/lab/report.hpp"

namespace csg::graphs {
namespace {

constexpr const char* kAbout = R"(
memory-nodes: buffers allocated inside the graph vs preallocated: replay, footprint, trim

The article's graph with each batch's device A and C allocated inside it (captured cudaMallocAsync
and cudaFreeAsync: memory nodes; B stays preallocated) against the graph on preallocated buffers:
replay and instantiate time, the graph memory the driver reports (used, reserved) from instantiate
to cudaDeviceGraphMemTrim, and whether two such graphs share it.
)";

constexpr const char* kRuns = R"(
# graph memory nodes: after-the-article table, after_article.png
fc   -
q    -  --warmup 1 --repeats 3
t    tiny                --batches 7 --m 33 --n 17 --k 65 --streams 3 --warmup 1 --repeats 2
t    per_batch_pageable  --batches 5 --m 16 --n 24 --k 8 --streams 2 --device-buffers per-batch --host-memory pageable --warmup 0 --repeats 1
t    cublas              --kernel cublas --batches 6 --m 64 --n 48 --k 40 --streams 2 --warmup 0 --repeats 2
m    -                   --batches 5 --m 33 --n 17 --k 65 --streams 3 --warmup 0 --repeats 1
)";

// "12.0 MiB"
std::string mib(std::uint64_t bytes) { return fixed(double(bytes) / double(kMiB), 1) + " MiB"; }

// `to` - `from` in MiB, signed: "+48.0", "-2.0", "0.0".
std::string signed_mib(std::uint64_t from, std::uint64_t to) {
  const double delta = (double(to) - double(from)) / double(kMiB);
  std::string text = fixed(delta, 1);
  if (delta > 0.0) text.insert(text.begin(), '+');
  return text;
}

// Whether `a` and `b` are within kSameBytes of the larger.
bool about_the_same(std::uint64_t a, std::uint64_t b) {
  return std::abs(double(a) - double(b)) <= kSameBytes * double(std::max(a, b));
}

// The replays are told apart beyond kMinReplayNoise or either run's own spread.
double replay_noise(const Summary& memory, const Summary& preallocated) {
  return std::max({kMinReplayNoise, relative_spread(memory), relative_spread(preallocated)});
}

// A verdict on byte counts: its id and figures, kSameBytes its threshold.
Verdict bytes_verdict(const char* what, nlohmann::json figures) {
  return {.id = std::string("memory_nodes.") + what, .figures = std::move(figures), .threshold = kSameBytes};
}

MemorySizes memory_sizes(const ArticleOptions& config) {
  const Workload& work = config.common.work;
  return MemorySizes{work.batches, device_slots_for(config.pool, work.batches),
                     std::uint64_t(work.a_bytes() + work.c_bytes())};
}

}  // namespace

std::string_view to_string(Moment moment) {
  return name_of(moment, {"baseline", "instantiated", "uploaded", "first_launch", "replays", "second_uploaded",
                          "second_launched", "both_launched", "destroyed", "trimmed"});
}

// ---- verdicts -------------------------------------------------------------------

Verdict replay_verdict(const Summary& memory, const Summary& preallocated) {
  const double noise = replay_noise(memory, preallocated);
  const double change = preallocated.median_ms > 0.0 ? memory.median_ms / preallocated.median_ms - 1.0 : 0.0;
  Verdict v{.id = "memory_nodes.replay",
            .figures = {{"memory_ms", memory.median_ms},
                        {"preallocated_ms", preallocated.median_ms},
                        {"change", change},
                        {"memory_spread", relative_spread(memory)},
                        {"preallocated_spread", relative_spread(preallocated)}},
            .threshold = noise};
  const std::string figures = fixed(memory.median_ms, 3) + " ms a replay against " +
                              fixed(preallocated.median_ms, 3) + " ms preallocated (" +
                              std::string(change >= 0.0 ? "+" : "") + fixed(100.0 * change, 1) + "%";
  const std::string noise_text = fixed(100.0 * noise, 1) + "% noise)";
  if (memory.median_ms > preallocated.median_ms * (1.0 + noise)) {
    return decided(v, "slower",
                   "allocating inside the graph costs replay time: " + figures + ", beyond the " + noise_text);
  }
  if (memory.median_ms < preallocated.median_ms * (1.0 - noise)) {
    return decided(v, "faster",
                   "the graph that allocates its buffers replays faster: " + figures + ", beyond the " + noise_text);
  }
  return decided(v, "same",
                 "allocating inside the graph costs no replay time here: " + figures + ", within the " + noise_text);
}

Verdict footprint_verdict(std::uint64_t reserved, const MemorySizes& sizes) {
  const std::uint64_t pre = sizes.preallocated_bytes();
  Verdict v = bytes_verdict("footprint", {{"reserved_bytes", reserved}, {"preallocated_bytes", pre}});
  const std::string figures = mib(reserved) + " reserved by the graph allocator after the replays, against " +
                              mib(pre) + " of preallocated A and C (" + plural(sizes.slots, "slot") + ")";
  if (reserved == 0) {
    return decided(v, "none",
                   "the driver reported no graph memory reserved after the replays: no footprint to compare");
  }
  if (about_the_same(reserved, pre)) {
    return decided(v, "same",
                   "allocating inside the graph holds about what preallocating does (within " +
                       fixed(100.0 * kSameBytes, 0) + "%): " + figures);
  }
  if (reserved < pre)
    return decided(v, "smaller", "allocating inside the graph holds less memory than preallocating: " + figures);
  return decided(v, "larger",
                 "allocating inside the graph holds more memory than preallocating (" +
                     fixed(pre > 0 ? double(reserved) / double(pre) : 0.0, 1) + "x): " + figures);
}

Verdict reuse_verdict(std::uint64_t reserved, const MemorySizes& sizes) {
  const std::uint64_t all = sizes.allocations_bytes();
  Verdict v = bytes_verdict("reuse", {{"reserved_bytes", reserved}, {"allocations_bytes", all}});
  const std::string figures = mib(reserved) + " reserved for " + mib(all) + " allocated in all (" +
                              plural(sizes.batches, "batch") + " x " + mib(sizes.pair_bytes) + " of A and C)";
  if (reserved == 0) return decided(v, "none", "no reserved memory to compare with the graph's allocations");
  if (double(reserved) < (1.0 - kSameBytes) * double(all)) {
    return decided(v, "reused", "inside the graph, a batch's freed A and C served later batches: " + figures);
  }
  return decided(v, "not_reused", "no reuse inside the graph: every batch kept its own memory, " + figures);
}

Verdict sharing_verdict(std::uint64_t one, std::uint64_t two) {
  Verdict v = bytes_verdict("sharing", {{"one_graph_bytes", one}, {"two_graphs_bytes", two}});
  const std::string figures =
      "reserved " + mib(one) + " with one graph launched, " + mib(two) + " with both launched one after the other";
  if (one == 0) return decided(v, "none", "nothing was reserved after one graph's launches: nothing to share");
  if (double(two) <= (1.0 + kSameBytes) * double(one)) {
    return decided(v, "shared", "two graphs that never run at once shared their memory: " + figures);
  }
  if (double(two) >= (2.0 - kSameBytes) * double(one)) {
    return decided(v, "separate", "each graph kept memory of its own (reserved doubled): " + figures);
  }
  return decided(v, "partly", "the two graphs shared part of their memory: " + figures);
}

Verdict destroy_verdict(const GraphMemory& live, const GraphMemory& destroyed) {
  Verdict v = bytes_verdict("destroy", {{"used_live_bytes", live.used_current},
                                        {"used_destroyed_bytes", destroyed.used_current},
                                        {"reserved_live_bytes", live.reserved_current},
                                        {"reserved_destroyed_bytes", destroyed.reserved_current}});
  const std::string figures = "used " + mib(live.used_current) + " -> " + mib(destroyed.used_current) +
                              ", reserved " + mib(live.reserved_current) + " -> " + mib(destroyed.reserved_current);
  if (destroyed.reserved_current > 0 &&
      double(destroyed.reserved_current) >= (1.0 - kSameBytes) * double(live.reserved_current)) {
    return decided(v, "kept",
                   "destroying both execs kept the reserved memory for the next graph (until trimmed): " + figures);
  }
  return decided(v, "released", "destroying both execs released reserved memory: " + figures);
}

Verdict trim_verdict(const GraphMemory& destroyed, const GraphMemory& trimmed) {
  const std::uint64_t before = destroyed.reserved_current;
  const std::uint64_t after = trimmed.reserved_current;
  Verdict v{.id = "memory_nodes.trim",
            .figures = {{"reserved_before_bytes", before},
                        {"reserved_after_bytes", after},
                        {"free_before_bytes", destroyed.device_free},
                        {"free_after_bytes", trimmed.device_free}}};
  const std::string free_delta =
      " (cudaMemGetInfo: free memory " + signed_mib(destroyed.device_free, trimmed.device_free) + " MiB)";
  if (before == 0) {
    return decided(v, "nothing_to_trim",
                   "cudaDeviceGraphMemTrim had nothing to give back: nothing was reserved" + free_delta);
  }
  if (after == 0) return decided(v, "all", "cudaDeviceGraphMemTrim gave back all " + mib(before) + free_delta);
  if (after < before) {
    return decided(v, "part",
                   "cudaDeviceGraphMemTrim gave back " + mib(before - after) + " of " + mib(before) + ", " +
                       mib(after) + " stays reserved" + free_delta);
  }
  return decided(v, "nothing",
                 "cudaDeviceGraphMemTrim gave back nothing: " + mib(after) + " stays reserved" + free_delta);
}

// ---- the report ---------------------------------------------------------------

void report_memory_nodes(const ArticleOptions& config, const MemoryNodesFigures& f, Report& report) {
  const CommonOptions& options = config.common;
  const Work full = work_of(options.work);
  const nlohmann::json memory = {{"streams", config.pool.streams}, {"batches", options.work.batches},
                                 {"device_buffers", "graph_allocated"}};
  const nlohmann::json pre = pool_params(config.pool, options.work.batches);
  StageResult& result = report.result;
  result.config = pool_result(result.device, options, config.pool).config;
  result.measurements = {
      checked("memory_graph_replay", memory, f.memory_replay, full, f.memory_check),
      checked("preallocated_graph_replay", pre, f.preallocated_replay, full, f.preallocated_check),
      cost("memory_graph_launch_cpu", memory, f.memory_launch_cpu),
      cost("preallocated_graph_launch_cpu", pre, f.preallocated_launch_cpu),
      cost("memory_graph_instantiate", memory, f.memory_instantiate),
      cost("preallocated_graph_instantiate", pre, f.preallocated_instantiate),
  };
  const Footprint& fp = f.footprint;
  const std::uint64_t one = fp[Moment::replays].reserved_current;
  const std::uint64_t two = fp[Moment::both_launched].reserved_current;
  const double pre_ms = f.preallocated_replay.median_ms;
  result.bounds = {
      {"replay_memory_over_preallocated",
       pre_ms > 0.0 ? nlohmann::json(f.memory_replay.median_ms / pre_ms) : nlohmann::json(nullptr)},
      {"reserved_after_replays_bytes", one},
      {"reserved_two_graphs_bytes", two},
      {"preallocated_bytes", f.sizes.preallocated_bytes()},
      {"allocations_bytes", f.sizes.allocations_bytes()},
  };
  set_verdict(result, f.memory_check, {&f.first_launch_check, &f.memory_check, &f.preallocated_check, &f.second_check});
  count_checked_runs(report);

  std::ostream& out = report.out();
  out << pool_run_text(options, config.pool) << "\nthe memory graph: each batch's device A and C allocated inside it "
      << "(cudaMallocAsync before its H2D, cudaFreeAsync after its D2H; B preallocated), " << f.memory_nodes
      << " nodes against " << f.preallocated_nodes << "\n\nreplays, interleaved (GPU time; host time of the launch; "
      << "host time of the instantiate):\n";
  report.measurements();
  out << "\ngraph memory as the driver reports it (cudaDeviceGetGraphMemAttribute, MiB; free: cudaMemGetInfo "
         "against the baseline):\n";
  auto in_mib = [](std::uint64_t bytes) { return fixed(double(bytes) / double(kMiB), 1); };
  const std::vector<Column<Moment>> columns = {
      {"moment", [](Moment m) { return std::string(to_string(m)); }},
      {"used", [&](Moment m) { return in_mib(fp[m].used_current); }},
      {"used high", [&](Moment m) { return in_mib(fp[m].used_high); }},
      {"reserved", [&](Moment m) { return in_mib(fp[m].reserved_current); }},
      {"reserved high", [&](Moment m) { return in_mib(fp[m].reserved_high); }},
      {"free", [&](Moment m) { return signed_mib(fp[Moment::baseline].device_free, fp[m].device_free); }},
  };
  std::vector<Moment> moments;
  for (int i = 0; i < kMomentCount; ++i) moments.push_back(static_cast<Moment>(i));
  report.table(table_of(columns, moments));
  out << '\n';
  nlohmann::json outcomes = nlohmann::json::object();
  for (Verdict verdict : {replay_verdict(f.memory_replay, f.preallocated_replay), footprint_verdict(one, f.sizes),
                          reuse_verdict(one, f.sizes), sharing_verdict(one, two),
                          destroy_verdict(fp[Moment::both_launched], fp[Moment::destroyed]),
                          trim_verdict(fp[Moment::destroyed], fp[Moment::trimmed])}) {
    outcomes[verdict.id.substr(verdict.id.find('.') + 1)] = verdict.outcome;
    report.verdict(std::move(verdict));
  }
  nlohmann::json points = nlohmann::json::array();
  for (const Moment m : moments) {
    const GraphMemory& g = fp[m];
    points.push_back({{"moment", to_string(m)},
                      {"used_current", g.used_current},
                      {"used_high", g.used_high},
                      {"reserved_current", g.reserved_current},
                      {"reserved_high", g.reserved_high},
                      {"device_free", g.device_free}});
  }
  report.sections["memory_nodes"] = {
      {"batches", f.sizes.batches},
      {"slots", f.sizes.slots},
      {"pair_bytes", f.sizes.pair_bytes},
      {"allocations_bytes", f.sizes.allocations_bytes()},
      {"preallocated_bytes", f.sizes.preallocated_bytes()},
      {"memory_graph_nodes", f.memory_nodes},
      {"preallocated_graph_nodes", f.preallocated_nodes},
      {"replay_noise", replay_noise(f.memory_replay, f.preallocated_replay)},
      {"footprint", points},
      {"verdicts", outcomes},
  };
}

// ---- the measurement ------------------------------------------------------------

namespace {

// The addresses a capture of allocating_ops recorded: the graph's own,
// valid while it runs. One set per captured graph.
struct GraphAddresses {
  std::vector<float*> a;
  std::vector<float*> c;
};

// Batch i's three calls as batch_ops makes them, with its device A and C
// allocated on its stream before the H2D and freed after the D2H. Captured,
// the allocations and frees are the graph's memory nodes, and the kernel and
// copies use the addresses they returned. `buffers`, `gemm` and `at` must
// outlive the capture.
BatchOps allocating_ops(BatchBuffers& buffers, const Gemm& gemm, GraphAddresses& at) {
  at.a.assign(std::size_t(buffers.work().batches), nullptr);
  at.c.assign(std::size_t(buffers.work().batches), nullptr);
  BatchBuffers* b = &buffers;
  const Gemm* g = &gemm;
  GraphAddresses* d = &at;
  return BatchOps{
      .h2d = [b, d](int i, cudaStream_t stream) {
        void* a = nullptr;
        void* c = nullptr;
        CUDA_CHECK(cudaMallocAsync(&a, b->work().a_bytes(), stream));
        CUDA_CHECK(cudaMallocAsync(&c, b->work().c_bytes(), stream));
        d->a[std::size_t(i)] = static_cast<float*>(a);
        d->c[std::size_t(i)] = static_cast<float*>(c);
        CUDA_CHECK(cudaMemcpyAsync(a, b->host_a(i), b->work().a_bytes(), cudaMemcpyHostToDevice, stream));
      },
      .compute = [b, g, d](int i, cudaStream_t stream) {
        g->run(d->a[std::size_t(i)], b->device_b(), d->c[std::size_t(i)], b->work().shape, stream);
      },
      .d2h = [b, d](int i, cudaStream_t stream) {
        float* c = d->c[std::size_t(i)];
        CUDA_CHECK(cudaMemcpyAsync(b->host_c(i), c, b->work().c_bytes(), cudaMemcpyDeviceToHost, stream));
        CUDA_CHECK(cudaFreeAsync(d->a[std::size_t(i)], stream));
        CUDA_CHECK(cudaFreeAsync(c, stream));
      }};
}

// Every host A_i from --seed or from a second seed (B keeps --seed's). The
// memory graph's launches alternate them: its allocations may land on the
// physical memory of its previous launch, where the C of the other inputs
// still lies, so a launch that copied out a C its kernel had not written
// fails the check instead of passing on stale data.
class AlternatingInputs {
 public:
  AlternatingInputs(BatchBuffers& buffers, std::uint64_t seed) : buffers_(buffers), seed_(seed) {}
  void use(bool other) {
    if (other == other_) return;
    const Workload& work = buffers_.work();
    const std::uint64_t seed = other ? splitmix64(seed_ ^ 0x6d656d6f7279ull) : seed_;
    for (int i = 0; i < work.batches; ++i) {
      fill_matrix({buffers_.host_a(i), work.a_elems()}, seed, std::uint64_t(i) + 1);  // A_i is matrix i + 1
    }
    other_ = other;
  }
  void flip() { use(!other_); }

 private:
  BatchBuffers& buffers_;
  std::uint64_t seed_;
  bool other_ = false;
};

// The first failure stays; while none, the latest check.
void keep(VerifyResult& kept, VerifyResult latest) {
  if (kept.batches_checked > 0 && !kept.passed) return;
  kept = std::move(latest);
}

GraphMemory read_graph_memory(int device) {
  GraphMemory g;
  for (const auto& [attribute, into] :
       {std::pair{cudaGraphMemAttrUsedMemCurrent, &g.used_current},
        std::pair{cudaGraphMemAttrUsedMemHigh, &g.used_high},
        std::pair{cudaGraphMemAttrReservedMemCurrent, &g.reserved_current},
        std::pair{cudaGraphMemAttrReservedMemHigh, &g.reserved_high}}) {
    std::uint64_t value = 0;  // the attribute's type, cuuint64_t
    CUDA_CHECK(cudaDeviceGetGraphMemAttribute(device, attribute, &value));
    *into = value;
  }
  std::size_t free = 0;
  std::size_t total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  g.device_free = free;
  return g;
}

// The high-water marks can only be reset, to zero.
void reset_high_water(int device) {
  for (const cudaGraphMemAttributeType attribute : {cudaGraphMemAttrUsedMemHigh, cudaGraphMemAttrReservedMemHigh}) {
    std::uint64_t zero = 0;
    CUDA_CHECK(cudaDeviceSetGraphMemAttribute(device, attribute, &zero));
  }
}

// Both graphs captured, instantiated, replayed and checked, the graph memory
// read at every moment.
MemoryNodesFigures measure_memory_nodes(const ArticleOptions& options) {
  const CommonOptions& common = options.common;
  const Workload& work = common.work;
  const RepeatPlan& plan = common.plan;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const Gemm gemm(common.gemm);
  MemoryNodesFigures f;
  f.sizes = memory_sizes(options);
  ArticleWork article(options, gemm);
  const StreamPool& pool = article.pool;
  BatchBuffers& buffers = article.buffers;
  AlternatingInputs inputs(buffers, common.seed);

  // Launch, wait, check: the device buffers are the graph's, so only the
  // host's C can be poisoned and read. Several execs run one after the other
  // on one stream: the last one's outputs are the ones checked.
  auto launch_checked = [&](std::initializer_list<const GraphExec*> execs) {
    inputs.flip();
    buffers.poison_host_outputs();
    for (const GraphExec* exec : execs) launch(*exec, pool);
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    return buffers.verify(common.seed);
  };

  progress("capturing both graphs, and their instantiate times");
  const BatchOps preallocated_ops = batch_ops(buffers, gemm);
  const Graph preallocated_graph = capture_batches(preallocated_ops, pool, work.batches);
  GraphAddresses first_addresses;
  const Graph memory_graph = capture_batches(allocating_ops(buffers, gemm, first_addresses), pool, work.batches);
  f.memory_nodes = memory_graph.node_count();
  f.preallocated_nodes = preallocated_graph.node_count();
  // A graph with memory nodes has at most one exec at a time: each is destroyed in its round.
  auto instantiate_time = [](const Graph& graph) {
    const HostTimer timer;
    const GraphExec exec = instantiate(graph);
    return timer.elapsed();
  };
  measure_interleaved_into(plan,
                           {{.prepare = nullptr, .run = [&] { return instantiate_time(memory_graph); },
                             .after_last = nullptr},
                            {.prepare = nullptr, .run = [&] { return instantiate_time(preallocated_graph); },
                             .after_last = nullptr}},
                           {&f.memory_instantiate, &f.preallocated_instantiate});
  const GraphExec preallocated_exec = instantiate(preallocated_graph);

  progress("graph memory from instantiate to first launch");
  auto read = [&](Moment moment) { f.footprint[moment] = read_graph_memory(device); };
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaDeviceGraphMemTrim(device));  // whatever an earlier graph of this process left
  reset_high_water(device);
  read(Moment::baseline);
  {
    const GraphExec first = instantiate(memory_graph);
    read(Moment::instantiated);
    CUDA_CHECK(cudaGraphUpload(first.get(), pool[0]));
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    read(Moment::uploaded);
    // The inputs alternate from launch to launch so that the last timed
    // replay runs on --seed's (the digest every stage reports): the first
    // launch takes the other inputs when the timed runs are odd in number.
    const int runs = plan.warmup + plan.repeats;
    if (runs % 2 == 0) inputs.use(true);  // launch_checked flips: to --seed's for an even count
    f.first_launch_check = launch_checked({&first});
    read(Moment::first_launch);

    progress("replays of both graphs, interleaved, each checked");
    EventTimer timer;
    Millis issued{};
    // `exec` replayed after `prepare`, timed, then checked into `check`.
    auto replay = [&](std::function<void()> prepare, const GraphExec* exec, VerifyResult* check) {
      return TimedVariant{.prepare = std::move(prepare),
                          .run = [&, exec, check] {
                            const Millis ms =
                                gpu_and_issue_time(timer, pool[0], issued, [&] { launch(*exec, pool); });
                            keep(*check, buffers.verify(common.seed));
                            return ms;
                          },
                          .after_last = nullptr,
                          .side = [&] { return issued; }};
    };
    const std::vector<Measured> replays = measure_rounds(
        plan, {replay([&] { inputs.flip(); buffers.poison_host_outputs(); }, &first, &f.memory_check),
               replay([&] { buffers.poison_outputs(pool[0]); }, &preallocated_exec, &f.preallocated_check)});
    f.memory_replay = replays.at(0).primary;
    f.memory_launch_cpu = replays.at(0).side.value();
    f.preallocated_replay = replays.at(1).primary;
    f.preallocated_launch_cpu = replays.at(1).side.value();
    read(Moment::replays);

    progress("a second memory graph beside the first; destroy; trim");
    GraphAddresses second_addresses;
    const Graph second_graph =
        capture_batches(allocating_ops(buffers, gemm, second_addresses), pool, work.batches);
    const GraphExec second = instantiate(second_graph);
    CUDA_CHECK(cudaGraphUpload(second.get(), pool[0]));
    CUDA_CHECK(cudaStreamSynchronize(pool[0]));
    read(Moment::second_uploaded);
    keep(f.second_check, launch_checked({&second}));
    read(Moment::second_launched);
    keep(f.second_check, launch_checked({&first, &second}));
    read(Moment::both_launched);
  }  // both memory execs (and the second graph) destroyed
  CUDA_CHECK(cudaDeviceSynchronize());
  read(Moment::destroyed);
  CUDA_CHECK(cudaDeviceGraphMemTrim(device));
  CUDA_CHECK(cudaDeviceSynchronize());
  read(Moment::trimmed);

  return f;
}

// ---- the declaration -------------------------------------------------------------

// The preallocated buffers, and two memory graphs' allocations should the driver reuse nothing.
Needs needs(const ArticleOptions& config) {
  MemoryNeeds needs = article_memory(config);
  needs.device_bytes += 2 * memory_sizes(config).allocations_bytes();
  return {needs, "try fewer --batches, or --device-buffers slots"};
}

// Every round at this GPU's rates: both replays (and their checks' launches),
// and the footprint's few launches; the pool's warnings printed.
csg::Estimate estimate(const ArticleOptions& config, int device) {
  int pools_supported = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&pools_supported, cudaDevAttrMemoryPoolsSupported, device));
  if (pools_supported == 0) {
    throw NoDeviceError("memory-nodes needs stream-ordered allocation (cudaMallocAsync), which this device or "
                        "driver does not support (cudaDevAttrMemoryPoolsSupported is 0)");
  }
  return article_estimate(config, [](const CommonOptions& common, const Rates& rates) {
    return (common.plan.warmup + common.plan.repeats + 3) * 2.0 * pipeline_seconds(common, rates);
  });
}

const Experiment<ArticleOptions, MemoryNodesFigures> kExperiment{.about = kAbout, .runs = kRuns,
    .defaults = pinned_defaults(), .options = add_article_options, .read = read_article_options, .needs = needs,
    .estimate = estimate, .measure = measure_memory_nodes, .report = report_memory_nodes};

}  // namespace

extern const Subcommand kMemoryNodes = make_subcommand<kExperiment>();

}  // namespace csg::graphs
